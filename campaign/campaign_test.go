package campaign

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/reprobench/reprobench/design"
	"github.com/reprobench/reprobench/internal/mpirun"
	"github.com/reprobench/reprobench/internal/slurmtest"
)

// The test binary doubles as a launcher process (for killing the launcher
// with SIGKILL): with DESIGN_TEST_LAUNCHER set to a JSON helperJob it runs
// Start or Resume and exits.
type helperJob struct {
	Campaign Campaign
	Options  Options
	Resume   string // manifest path: resume instead of start
}

func TestMain(m *testing.M) {
	if j := os.Getenv("DESIGN_TEST_LAUNCHER"); j != "" {
		var job helperJob
		if err := json.Unmarshal([]byte(j), &job); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
		job.Options.Progress = os.Stderr
		var err error
		if job.Resume != "" {
			_, err = Resume(context.Background(), job.Resume, job.Options)
		} else {
			_, err = Start(context.Background(), job.Campaign, job.Options)
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "launcher:", err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	code := m.Run()
	if fakerunDir != "" {
		os.RemoveAll(fakerunDir)
	}
	// The Slurm tests share one cluster (slurm_test.go), the integration
	// tests the reprobench binaries.
	for _, err := range []error{slurmtest.StopShared(), mpirun.RemoveBuilds()} {
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			code = max(code, 1)
		}
	}
	os.Exit(code)
}

var (
	fakerunOnce sync.Once
	fakerunDir  string
	fakerunBin  string
	fakerunErr  error
)

// fakerun builds internal/fakerun once per test binary.
func fakerun(t testing.TB) string {
	t.Helper()
	fakerunOnce.Do(func() {
		fakerunDir, fakerunErr = os.MkdirTemp("", "fakerun")
		if fakerunErr != nil {
			return
		}
		fakerunBin = filepath.Join(fakerunDir, "fakerun")
		out, err := exec.Command("go", "build", "-o", fakerunBin, "./internal/fakerun").CombinedOutput()
		if err != nil {
			fakerunErr = fmt.Errorf("go build ./internal/fakerun: %v\n%s", err, out)
		}
	})
	if fakerunErr != nil {
		t.Fatal(fakerunErr)
	}
	return fakerunBin
}

// localCampaign runs fakerun without MPI: "env NP={np}" is the launcher.
func localCampaign(t *testing.T, dir string, n int, runArgs ...string) Campaign {
	return Campaign{Dir: dir, RunID: "t1", Mpiruns: n, Np: 2, Launcher: []string{"env", "NP={np}"},
		Program: []string{fakerun(t), "run"}, RunArgs: runArgs, Seed: 99}
}

func sidecars(t *testing.T, m *Manifest) map[int][32]byte {
	t.Helper()
	h := map[int][32]byte{}
	for i := 0; i < m.Mpiruns; i++ {
		for _, ext := range []string{".csv", ".json"} {
			b, err := os.ReadFile(outputBase(m.Dir, m.RunID, i) + ext)
			if err == nil {
				s := sha256.Sum256(append(b, ext...))
				old := h[i]
				for k := range s {
					s[k] ^= old[k]
				}
				h[i] = s
			}
		}
	}
	return h
}

func TestLaunchAllOK(t *testing.T) {
	dir := t.TempDir()
	var progress bytes.Buffer
	c := localCampaign(t, dir, 3, "--sleep", "10ms")
	m, err := Start(context.Background(), c, Options{Progress: &progress, Timeout: time.Minute})
	if err != nil {
		t.Fatal(err, progress.String())
	}
	for i, r := range m.Runs {
		if r.Status != StatusOK || !r.Complete || len(r.Attempts) != 1 {
			t.Errorf("mpirun %d: %+v", i, r)
		}
		if r.Seed != design.RunSeed(99, i) {
			t.Errorf("mpirun %d: seed %d", i, r.Seed)
		}
		envPath, _ := exec.LookPath("env")
		want := []string{envPath, "NP=2", fakerun(t), "run", "--out", dir, "--run-id", "t1", "--mpirun", strconv.Itoa(i), "--seed", strconv.FormatUint(r.Seed, 10), "--sleep", "10ms"}
		if strings.Join(r.Argv, " ") != strings.Join(want, " ") {
			t.Errorf("argv %q, want %q", r.Argv, want)
		}
		var meta struct{ Seed uint64 }
		b, _ := os.ReadFile(sidecarPath(dir, "t1", i))
		if json.Unmarshal(b, &meta) != nil || meta.Seed != r.Seed {
			t.Errorf("sidecar %s: %s", sidecarPath(dir, "t1", i), b)
		}
	}
	// The manifest on disk is what Start returned.
	m2, err := ReadManifest(ManifestPath(dir, "t1"))
	if err != nil || m2.Runs[2].Status != StatusOK || m2.Seed != 99 {
		t.Errorf("manifest on disk: %+v %v", m2, err)
	}
	if !strings.Contains(progress.String(), "mpirun 2 ok") || !strings.Contains(progress.String(), "ETA") {
		t.Errorf("progress:\n%s", progress.String())
	}
	// A second start of the same run id is refused; a resume does nothing.
	if _, err := Start(context.Background(), c, Options{}); err == nil {
		t.Error("second Start accepted")
	}
	before := sidecars(t, m)
	m3, err := Resume(context.Background(), ManifestPath(dir, "t1"), Options{})
	if err != nil || len(m3.Runs[0].Attempts) != 1 {
		t.Errorf("resume of a complete campaign: %v %+v", err, m3.Runs[0])
	}
	if after := sidecars(t, m3); fmt.Sprint(after) != fmt.Sprint(before) {
		t.Error("resume changed completed data")
	}
}

func TestLaunchFailureRecordedThenResumed(t *testing.T) {
	dir := t.TempDir()
	c := localCampaign(t, dir, 3)
	m, err := Start(context.Background(), c, Options{Env: []string{"FAKERUN_FAIL_MPIRUN=1"}})
	if !errors.Is(err, ErrIncomplete) {
		t.Fatalf("err %v, want ErrIncomplete", err)
	}
	r := m.Runs[1]
	a := r.Attempts[0]
	if r.Status != StatusFailed || r.Complete || a.ExitStatus == nil || *a.ExitStatus != 3 {
		t.Fatalf("mpirun 1: %+v", r)
	}
	if len(a.StderrTail) != stderrTailLines || !strings.Contains(a.StderrTail[len(a.StderrTail)-1], "failing mpirun 1 on purpose") {
		t.Errorf("stderr tail (%d lines): %q", len(a.StderrTail), a.StderrTail)
	}
	if m.Runs[0].Status != StatusOK || m.Runs[2].Status != StatusOK {
		t.Errorf("the campaign did not continue after the failure: %v %v", m.Runs[0].Status, m.Runs[2].Status)
	}
	before := sidecars(t, m)
	m, err = Resume(context.Background(), ManifestPath(dir, "t1"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	r = m.Runs[1]
	if r.Status != StatusOK || len(r.Attempts) != 2 || r.Attempts[0].Status != StatusFailed {
		t.Errorf("after resume: %+v", r)
	}
	if len(m.Runs[0].Attempts) != 1 || len(m.Runs[2].Attempts) != 1 {
		t.Error("resume re-ran complete mpiruns")
	}
	after := sidecars(t, m)
	if after[0] != before[0] || after[2] != before[2] {
		t.Error("completed data changed")
	}
}

func TestLaunchFailFast(t *testing.T) {
	dir := t.TempDir()
	m, err := Start(context.Background(), localCampaign(t, dir, 3), Options{FailFast: true, Env: []string{"FAKERUN_FAIL_MPIRUN=0"}})
	if !errors.Is(err, ErrIncomplete) {
		t.Fatal(err)
	}
	if m.Runs[0].Status != StatusFailed || m.Runs[1].Status != StatusPending || m.Runs[2].Status != StatusPending {
		t.Errorf("statuses %s %s %s", m.Runs[0].Status, m.Runs[1].Status, m.Runs[2].Status)
	}
}

func alive(pid int) bool {
	if syscall.Kill(pid, 0) != nil {
		return false
	}
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	f := strings.Fields(string(b[bytes.LastIndexByte(b, ')')+1:]))
	return len(f) > 0 && f[0] != "Z"
}

func readPid(t *testing.T, path string) int {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		t.Fatal(err)
	}
	return pid
}

func TestLaunchTimeoutKillsProcessGroup(t *testing.T) {
	dir := t.TempDir()
	// The timeout also governs mpirun 1, which must complete within it: it
	// is stretched with the machine's load (mpirun.Deadline).
	timeout := mpirun.Deadline(1500 * time.Millisecond)
	m, err := Start(context.Background(), localCampaign(t, dir, 2),
		Options{Timeout: timeout, Env: []string{"FAKERUN_HANG_MPIRUN=0"}})
	if !errors.Is(err, ErrIncomplete) {
		t.Fatal(err)
	}
	a := m.Runs[0].Attempts[0]
	// The run hangs for an hour: any duration well below that shows the
	// timeout killed it; the upper bound leaves room for a loaded machine.
	if m.Runs[0].Status != StatusTimedOut || a.Signal != "terminated" || a.DurationS < timeout.Seconds() || a.DurationS > mpirun.Deadline(120*time.Second).Seconds() {
		t.Errorf("mpirun 0: %+v", m.Runs[0])
	}
	if alive(readPid(t, filepath.Join(dir, "pids", "mpirun000-rank0.pid"))) {
		t.Error("the hung run is still alive")
	}
	if m.Runs[1].Status != StatusOK {
		t.Errorf("mpirun 1 after the timeout: %+v", m.Runs[1])
	}
}

// waitFor polls cond every 20 ms for up to d stretched by the machine's
// load (mpirun.Deadline: d is a deadline against a hang).
func waitFor(t *testing.T, d time.Duration, what string, cond func() bool) {
	t.Helper()
	d = mpirun.Deadline(d)
	for end := time.Now().Add(d); time.Now().Before(end); time.Sleep(20 * time.Millisecond) {
		if cond() {
			return
		}
	}
	t.Fatalf("timed out after %v waiting for %s", d, what)
}

// startLauncher runs Start or Resume in a child process (this test binary).
func startLauncher(t *testing.T, job helperJob) (*exec.Cmd, *bytes.Buffer) {
	t.Helper()
	j, err := json.Marshal(job)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "DESIGN_TEST_LAUNCHER="+string(j))
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL); cmd.Wait() })
	return cmd, &out
}

// manifestStatus reads mpirun i's status from the manifest on disk.
func manifestStatus(path string, i int) string {
	m, err := ReadManifest(path)
	if err != nil {
		return ""
	}
	return m.Runs[i].Status
}

func TestLaunchKillLauncherThenResume(t *testing.T) {
	dir := t.TempDir()
	c := localCampaign(t, dir, 3)
	// Mpirun 1 is held mid-run until killed: no sleep decides whether it
	// is still running when the launcher dies.
	cmd, out := startLauncher(t, helperJob{Campaign: c, Options: Options{Timeout: time.Minute, Env: []string{"FAKERUN_HOLD_MPIRUN=1"}}})
	mp := ManifestPath(dir, "t1")
	pidFile := filepath.Join(dir, "pids", "mpirun001-rank0.pid")
	partial := outputBase(dir, "t1", 1) + ".csv.partial"
	waitFor(t, 60*time.Second, "mpirun 1 to be held mid-run", func() bool {
		return exists(filepath.Join(dir, "pids", "mpirun001.held"))
	})
	// The launcher records the run as running once Start has returned its
	// pid, so the held run may get there first: wait for the manifest too
	// (the CI run of 2964bb9 read "pending" here on a loaded machine).
	waitFor(t, 60*time.Second, "the manifest to record mpirun 1 as running", func() bool {
		return manifestStatus(mp, 1) == StatusRunning
	})
	if !exists(pidFile) || !exists(partial) {
		t.Fatalf("mpirun 1 is held but: pid file %v, partial %v", exists(pidFile), exists(partial))
	}
	runPid := readPid(t, pidFile)
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	cmd.Wait()
	// Pdeathsig takes the run down with its launcher.
	waitFor(t, 5*time.Second, "the orphaned run to die", func() bool { return !alive(runPid) })
	m, _ := ReadManifest(mp)
	if m.Runs[0].Status != StatusOK || m.Runs[1].Status != StatusRunning || m.Runs[2].Status != StatusPending {
		t.Fatalf("after the kill: %s %s %s\n%s", m.Runs[0].Status, m.Runs[1].Status, m.Runs[2].Status, out)
	}
	if exists(sidecarPath(dir, "t1", 1)) {
		t.Fatal("mpirun 1 completed although killed")
	}
	before := sidecars(t, m)

	m, err := Resume(context.Background(), mp, Options{})
	if err != nil {
		t.Fatal(err)
	}
	r := m.Runs[1]
	if r.Status != StatusOK || len(r.Attempts) != 2 || r.Attempts[0].Status != StatusAbandoned {
		t.Fatalf("mpirun 1 after resume: %+v", r)
	}
	aside := filepath.Join(asideDir(dir, "t1"), "mpirun001-attempt2", filepath.Base(partial)+asideSuffix)
	if len(r.Attempts[1].MovedAside) != 1 || r.Attempts[1].MovedAside[0] != aside || !exists(aside) {
		t.Errorf("partial file not moved aside: %q", r.Attempts[1].MovedAside)
	}
	if len(m.Runs[0].Attempts) != 1 || m.Runs[2].Status != StatusOK {
		t.Errorf("mpirun 0: %+v, mpirun 2: %+v", m.Runs[0], m.Runs[2])
	}
	if after := sidecars(t, m); after[0] != before[0] {
		t.Error("mpirun 0's data changed")
	}
	if in := m.Incomplete(); len(in) != 0 {
		t.Errorf("incomplete: %v", in)
	}
}

// A run that survives its launcher (here: ignoring Pdeathsig is impossible,
// so we start one by hand in the recorded process group's place) is killed
// by the resume before the mpirun is run again.
func TestResumeKillsStaleRun(t *testing.T) {
	dir := t.TempDir()
	c := localCampaign(t, dir, 1)
	m, err := Start(context.Background(), c, Options{Env: []string{"FAKERUN_FAIL_MPIRUN=0"}})
	if !errors.Is(err, ErrIncomplete) {
		t.Fatal(err)
	}
	// A stale process of mpirun 0 in its own group, as the launcher that
	// died would have left it.
	stale := exec.Command(m.Runs[0].Argv[0], m.Runs[0].Argv[1:]...)
	stale.Env = append(os.Environ(), "FAKERUN_HANG_MPIRUN=0")
	stale.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := stale.Start(); err != nil {
		t.Fatal(err)
	}
	defer stale.Process.Kill()
	go stale.Wait()
	m.Runs[0].Attempts[0].Status = StatusRunning
	m.Runs[0].Attempts[0].Pgid = stale.Process.Pid
	m.Runs[0].Status = StatusRunning
	if err := m.save(); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 10*time.Second, "the stale run to start", func() bool { return len(staleProcesses(dir, "t1", 0)) == 1 })
	m, err = Resume(context.Background(), ManifestPath(dir, "t1"), Options{StaleWait: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	a := m.Runs[0].Attempts[1]
	if len(a.KilledStale) != 1 || a.KilledStale[0] != stale.Process.Pid || m.Runs[0].Status != StatusOK {
		t.Errorf("attempt 2: %+v", a)
	}
}

func TestStartRefusesForeignOutputs(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(outputBase(dir, "t1", 0)+".csv", []byte("x"), 0o644)
	if _, err := Start(context.Background(), localCampaign(t, dir, 1), Options{}); err == nil || !strings.Contains(err.Error(), "already exist") {
		t.Errorf("err %v", err)
	}
	c := localCampaign(t, dir, 1, "--out", "/elsewhere")
	c.RunID = "t2"
	if _, err := Start(context.Background(), c, Options{}); err == nil {
		t.Error("run args setting --out accepted")
	}
}

func TestManifestLock(t *testing.T) {
	dir := t.TempDir()
	unlock, err := lockCampaign(dir, "x")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := lockCampaign(dir, "x"); err == nil {
		t.Error("second lock succeeded")
	}
	unlock()
	unlock2, err := lockCampaign(dir, "x")
	if err != nil {
		t.Fatal(err)
	}
	unlock2()
}

func TestLaunchInterrupted(t *testing.T) {
	dir := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	// Cancel once mpirun 0 (which hangs) has started. The deadline is only
	// a safety net, far beyond a loaded machine's start-up time; passing it
	// is reported as such rather than as a wrong status.
	started := make(chan bool, 1)
	go func() { // t.Fatal is not for other goroutines: poll by hand
		ok := false
		for end := time.Now().Add(mpirun.Deadline(2 * time.Minute)); !ok && time.Now().Before(end); time.Sleep(20 * time.Millisecond) {
			ok = exists(filepath.Join(dir, "pids", "mpirun000-rank0.pid"))
		}
		started <- ok
		cancel()
	}()
	m, err := Start(ctx, localCampaign(t, dir, 3), Options{Env: []string{"FAKERUN_HANG_MPIRUN=0"}})
	if !<-started {
		t.Fatal("mpirun 0 did not start within 2 minutes")
	}
	if !errors.Is(err, ErrIncomplete) || !strings.Contains(err.Error(), "interrupted") {
		t.Fatalf("err %v", err)
	}
	if m.Runs[0].Status != StatusInterrupted || m.Runs[1].Status != StatusPending {
		t.Errorf("statuses %s %s", m.Runs[0].Status, m.Runs[1].Status)
	}
	if alive(readPid(t, filepath.Join(dir, "pids", "mpirun000-rank0.pid"))) {
		t.Error("the interrupted run is still alive")
	}
}

// A campaign of more than maxMpiruns mpiruns is refused
// before anything is built or started (10^8 mpiruns were once built up
// front until the launcher was killed at 24 GB), and a manifest claiming
// more is refused on reading.
func TestStartRefusesTooManyMpiruns(t *testing.T) {
	dir := t.TempDir()
	for _, n := range []int{maxMpiruns + 1, 100_000_000, 0, -1} {
		c := Campaign{Dir: dir, RunID: "big", Mpiruns: n, Np: 2, Launcher: []string{"false"}, Program: []string{"run"}}
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		_, err := Start(context.Background(), c, Options{})
		runtime.ReadMemStats(&after)
		if err == nil || !strings.Contains(err.Error(), fmt.Sprintf("need 1 to %d per campaign", maxMpiruns)) {
			t.Errorf("%d mpiruns: err %v, want the MaxMpiruns bound", n, err)
		}
		if a := after.TotalAlloc - before.TotalAlloc; a > 1<<20 {
			t.Errorf("%d mpiruns: %d bytes allocated before the refusal", n, a)
		}
		if exists(ManifestPath(dir, "big")) {
			t.Fatalf("%d mpiruns: a manifest was written", n)
		}
	}
	// maxMpiruns itself is accepted (a launcher that cannot start fails
	// every mpirun at once; only the first is tried with FailFast).
	c := Campaign{Dir: dir, RunID: "max", Mpiruns: maxMpiruns, Np: 1, Launcher: []string{filepath.Join(dir, "no-such-launcher")}, Program: []string{"run"}}
	m, err := Start(context.Background(), c, Options{FailFast: true})
	if !errors.Is(err, ErrIncomplete) || len(m.Runs) != maxMpiruns || m.Runs[0].Status != StatusFailed {
		t.Fatalf("MaxMpiruns mpiruns: %v", err)
	}
	b, err := os.ReadFile(ManifestPath(dir, "max"))
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("manifest of %d mpiruns: %d bytes", maxMpiruns, len(b)) // informative: its size is not a promise
	// A manifest edited to claim more is refused.
	b = bytes.Replace(b, []byte(fmt.Sprintf(`"mpiruns": %d`, maxMpiruns)), []byte(`"mpiruns": 100000000`), 1)
	if err := os.WriteFile(ManifestPath(dir, "max"), b, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadManifest(ManifestPath(dir, "max")); err == nil || !strings.Contains(err.Error(), "100000000 mpiruns") {
		t.Errorf("manifest claiming 10^8 mpiruns: %v", err)
	}
}

// A mpirun that ignores SIGTERM is killed with SIGKILL after the grace
// (SIGTERM first, so that srun can cancel its job step).
func TestLaunchTimeoutGraceThenKill(t *testing.T) {
	dir := t.TempDir()
	m, err := Start(context.Background(), localCampaign(t, dir, 1),
		Options{Timeout: time.Second, Grace: 1500 * time.Millisecond, Env: []string{"FAKERUN_HANG_MPIRUN=0", "FAKERUN_IGNORE_TERM=1"}})
	if !errors.Is(err, ErrIncomplete) {
		t.Fatal(err)
	}
	a := m.Runs[0].Attempts[0]
	// It ignored SIGTERM at 1 s, so it lived through the grace: ≥ 2.5 s.
	if m.Runs[0].Status != StatusTimedOut || a.Signal != "killed" || a.DurationS < 2.5 || a.DurationS > mpirun.Deadline(120*time.Second).Seconds() || !strings.Contains(a.Error, "SIGKILL after 1.5s") {
		t.Errorf("mpirun 0: %+v", a)
	}
	if alive(readPid(t, filepath.Join(dir, "pids", "mpirun000-rank0.pid"))) {
		t.Error("the run is still alive")
	}
}
