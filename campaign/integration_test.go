package campaign

import (
	"bytes"
	"crypto/sha256"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/reprobench/reprobench/internal/mpirun"
)

// The integration tests run the real "reprobench launch" and "reprobench
// run" under each installed MPI library's launcher with 2 ranks: a
// campaign of 3 mpiruns of an 8-byte MPI_Allreduce with itNrep
// observations each, killed in the middle of mpirun 1.
//
// The victim must certainly still be running when it is killed, on a
// quiet machine as on a loaded one (a quiet machine finished a
// 300000-observation mpirun in 0.34 s, before a 300 ms sleep was over). So
// no sleep decides it: the first launch holds mpirun 1 through reprobench
// run's test hook (cmd/reprobench/launch_hooks.go): each of its ranks, with
// its .partial output created, writes its pid to a file and waits to be
// killed. The resume runs without the hook.

// itNrep is the observations per mpirun: 2000 rows (about 200 KB of raw
// CSV) take several buffered writes of the .partial file. More only cost
// time under load: two busy-polling MPICH ranks beside a busy core took
// 40 s for 20000 (2 ms per observation, at load 18 on 2 cores).
const itNrep = 2000

var itRunFlags = fmt.Sprintf("--calls MPI_Allreduce --sizes 8 --nrep %d --warmup 10", itNrep)

// itTimeout is the launcher's --timeout for one mpirun of itNrep
// observations, a deadline against a hang: 60 s stretched by the machine's
// load at the call (mpirun.Deadline), in whole seconds.
func itTimeout() string {
	return fmt.Sprintf("%.0fs", mpirun.Deadline(60*time.Second).Seconds())
}

// holdEnv is the environment that holds mpirun i of a launch until it is
// killed; the ranks write their pids into dir.
func holdEnv(dir string, i int) []string {
	return []string{fmt.Sprintf("RB_TEST_HOLD_MPIRUN=%d", i), "RB_TEST_HOLD_DIR=" + dir}
}

// heldRanks returns the pids of the np held ranks of mpirun i, or nil while
// not all of them are held yet.
func heldRanks(dir string, i, np int) []int {
	var pids []int
	for r := 0; r < np; r++ {
		b, err := os.ReadFile(filepath.Join(dir, fmt.Sprintf("mpirun%03d-rank%d.pid", i, r)))
		if err != nil {
			return nil
		}
		pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
		if err != nil {
			return nil
		}
		pids = append(pids, pid)
	}
	return pids
}

// eachFlavor runs test once per installed MPI library.
func eachFlavor(t *testing.T, test func(t *testing.T, f mpirun.Flavor)) {
	t.Helper()
	if testing.Short() {
		t.Skip("integration test: needs mpirun")
	}
	for _, f := range mpirun.Flavors(t) {
		t.Run(f.Name, func(t *testing.T) { test(t, f) })
	}
}

// reprobench builds cmd/reprobench for f once per test binary
// (mpirun.BuildShared; TestMain removes it).
func reprobench(t *testing.T, f mpirun.Flavor) string {
	t.Helper()
	return mpirun.BuildShared(t, f, "..", "./cmd/reprobench")
}

// launchCmd starts "reprobench launch ARGS" in its own process group, with
// env added to its environment.
func launchCmd(t *testing.T, f mpirun.Flavor, bin string, env []string, args ...string) (*exec.Cmd, *bytes.Buffer) {
	t.Helper()
	cmd := exec.Command(bin, append([]string{"launch"}, args...)...)
	cmd.Env = append(append(os.Environ(), f.Env...), env...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		cmd.Wait()
	})
	return cmd, &out
}

// waitCmd waits for cmd for up to d stretched by the machine's load
// (mpirun.Deadline) and returns its exit code.
func waitCmd(t *testing.T, cmd *exec.Cmd, out *bytes.Buffer, d time.Duration) int {
	t.Helper()
	d = mpirun.Deadline(d)
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if ee, ok := err.(*exec.ExitError); ok {
			return ee.ExitCode()
		}
		if err != nil {
			t.Fatalf("%v\n%s", err, out)
		}
		return 0
	case <-time.After(d):
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		t.Fatalf("launcher did not finish within %v\n%s", d, out)
	}
	return -1
}

// completedData hashes every final output file of the campaign's complete
// mpiruns (name → SHA-256).
func completedData(t *testing.T, dir, runID string, n int) map[string][32]byte {
	t.Helper()
	h := map[string][32]byte{}
	for i := 0; i < n; i++ {
		if !exists(sidecarPath(dir, runID, i)) {
			continue
		}
		files, _ := filepath.Glob(outputBase(dir, runID, i) + ".*")
		for _, f := range files {
			b, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			h[filepath.Base(f)] = sha256.Sum256(b)
		}
	}
	return h
}

// rankPids returns the pids of the "reprobench run" processes of mpirun i
// (not the mpirun launcher itself).
func rankPids(bin, dir, runID string, i int) []int {
	var ranks []int
	for _, pid := range staleProcesses(dir, runID, i) {
		cl, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
		if argv := strings.Split(string(cl), "\x00"); len(argv) > 1 && argv[0] == bin && argv[1] == "run" {
			ranks = append(ranks, pid)
		}
	}
	return ranks
}

func csvRows(t *testing.T, path string) int {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return bytes.Count(b, []byte("\n")) - 1
}

// checkComplete checks that every mpirun has its sidecar and its raw data
// holds every observation.
func checkComplete(t *testing.T, m *Manifest) {
	t.Helper()
	if in := m.Incomplete(); len(in) > 0 {
		t.Fatalf("incomplete mpiruns %v", in)
	}
	for i := 0; i < m.Mpiruns; i++ {
		if n := csvRows(t, outputBase(m.Dir, m.RunID, i)+".csv"); n != itNrep {
			t.Errorf("mpirun %d: %d rows, want %d", i, n, itNrep)
		}
		if m.Runs[i].Status != StatusOK {
			t.Errorf("mpirun %d: status %s", i, m.Runs[i].Status)
		}
	}
}

// checkHeld checks that mpirun 1 is what the held ranks say: recorded as
// running, its .partial output created, and ranks the processes of its
// "reprobench run".
func checkHeld(t *testing.T, bin, dir, runID, manifest string, held []int) {
	t.Helper()
	// The launcher records the run as running once Start has returned its
	// pid, which the held ranks may beat on a loaded machine (the race of
	// TestLaunchKillLauncherThenResume): wait for the record, no sleep.
	waitFor(t, 60*time.Second, "the manifest to record mpirun 1 as running", func() bool {
		return manifestStatus(manifest, 1) == StatusRunning
	})
	if !exists(outputBase(dir, runID, 1) + ".csv.partial") {
		t.Fatal("mpirun 1 is held but has no .csv.partial")
	}
	ranks := rankPids(bin, dir, runID, 1)
	for _, p := range held {
		if !containsInt(ranks, p) {
			t.Fatalf("held pid %d is not a rank of mpirun 1 (ranks %v)", p, ranks)
		}
	}
}

func TestIntegrationKillRankThenResume(t *testing.T) { eachFlavor(t, killRankThenResume) }

func killRankThenResume(t *testing.T, f mpirun.Flavor) {
	bin := reprobench(t, f)
	dir := t.TempDir()
	launcher := f.Launcher[0] + " -np {np}"
	args := append([]string{"--mpiruns", "3", "--np", "2", "--launcher", launcher, "--out", dir, "--run-id", "kr", "--timeout", itTimeout(), "--seed", "1", "--"}, strings.Fields(itRunFlags)...)
	hold := t.TempDir()
	cmd, out := launchCmd(t, f, bin, holdEnv(hold, 1), args...)
	mp := ManifestPath(dir, "kr")
	var ranks []int
	waitFor(t, 120*time.Second, "both ranks of mpirun 1 to be held", func() bool {
		ranks = heldRanks(hold, 1, 2)
		return ranks != nil
	})
	checkHeld(t, bin, dir, "kr", mp, ranks)
	victim := ranks[1]
	if err := syscall.Kill(victim, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	t.Logf("killed rank process %d of mpirun 1", victim)
	if code := waitCmd(t, cmd, out, 90*time.Second); code != 1 {
		t.Fatalf("launcher exit code %d, want 1 (incomplete)\n%s", code, out)
	}
	m, err := ReadManifest(mp)
	if err != nil {
		t.Fatal(err)
	}
	r := m.Runs[1]
	// Open MPI reports the killed rank on stderr, MPICH's hydra on stdout.
	if r.Status != StatusFailed || r.Complete || len(r.Attempts) != 1 || len(r.Attempts[0].StderrTail)+len(r.Attempts[0].StdoutTail) == 0 {
		t.Fatalf("mpirun 1 after the kill: %+v\n%s", r, out)
	}
	tail := append(r.Attempts[0].StdoutTail, r.Attempts[0].StderrTail...)
	t.Logf("mpirun 1 recorded as %s: %s; its log tail ends %q", r.Status, r.Attempts[0].Error, tail[len(tail)-1])
	if m.Runs[0].Status != StatusOK || m.Runs[2].Status != StatusOK {
		t.Fatalf("the campaign did not go on: %s %s\n%s", m.Runs[0].Status, m.Runs[2].Status, out)
	}
	if left := staleProcesses(dir, "kr", 1); len(left) > 0 {
		t.Errorf("processes of the failed mpirun still alive: %v", left)
	}
	before := completedData(t, dir, "kr", 3)
	if len(before) != 4 {
		t.Fatalf("completed files %v, want the .csv and .json of mpiruns 0 and 2", before)
	}

	cmd, out = launchCmd(t, f, bin, nil, "--resume", "--out", dir, "--run-id", "kr", "--timeout", itTimeout())
	if code := waitCmd(t, cmd, out, 90*time.Second); code != 0 {
		t.Fatalf("resume exit code %d\n%s", code, out)
	}
	if m, err = ReadManifest(mp); err != nil {
		t.Fatal(err)
	}
	checkComplete(t, m)
	r = m.Runs[1]
	if len(r.Attempts) != 2 || r.Attempts[0].Status != StatusFailed || len(r.Attempts[1].MovedAside) == 0 {
		t.Errorf("mpirun 1 attempts: %+v", r.Attempts)
	}
	t.Logf("moved aside before the retry: %q", r.Attempts[1].MovedAside)
	if len(m.Runs[0].Attempts) != 1 || len(m.Runs[2].Attempts) != 1 {
		t.Error("resume re-ran complete mpiruns")
	}
	after := completedData(t, dir, "kr", 3)
	for name, h := range before {
		if after[name] != h {
			t.Errorf("%s changed", name)
		}
	}
}

func TestIntegrationKillLauncherThenResume(t *testing.T) { eachFlavor(t, killLauncherThenResume) }

func killLauncherThenResume(t *testing.T, f mpirun.Flavor) {
	bin := reprobench(t, f)
	dir := t.TempDir()
	launcher := f.Launcher[0] + " -np {np}"
	args := append([]string{"--mpiruns", "3", "--np", "2", "--launcher", launcher, "--out", dir, "--run-id", "kl", "--timeout", itTimeout(), "--seed", "2", "--"}, strings.Fields(itRunFlags)...)
	hold := t.TempDir()
	cmd, out := launchCmd(t, f, bin, holdEnv(hold, 1), args...)
	mp := ManifestPath(dir, "kl")
	var ranks []int
	waitFor(t, 120*time.Second, "both ranks of mpirun 1 to be held", func() bool {
		ranks = heldRanks(hold, 1, 2)
		return ranks != nil
	})
	checkHeld(t, bin, dir, "kl", mp, ranks)
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	waitCmd(t, cmd, out, 10*time.Second)
	t.Logf("killed the launcher (pid %d); processes of mpirun 1 left: %v", cmd.Process.Pid, staleProcesses(dir, "kl", 1))
	m, err := ReadManifest(mp)
	if err != nil {
		t.Fatal(err)
	}
	if m.Runs[0].Status != StatusOK || m.Runs[1].Status != StatusRunning || m.Runs[2].Status != StatusPending {
		t.Fatalf("after the kill: %s %s %s\n%s", m.Runs[0].Status, m.Runs[1].Status, m.Runs[2].Status, out)
	}
	before := completedData(t, dir, "kl", 3)
	if len(before) != 2 {
		t.Fatalf("completed files %v, want the .csv and .json of mpirun 0", before)
	}

	// Resume at once, while orphaned ranks may still be alive.
	cmd, out = launchCmd(t, f, bin, nil, "--resume", "--out", dir, "--timeout", itTimeout())
	if code := waitCmd(t, cmd, out, 90*time.Second); code != 0 {
		t.Fatalf("resume exit code %d\n%s", code, out)
	}
	if m, err = ReadManifest(mp); err != nil {
		t.Fatal(err)
	}
	checkComplete(t, m)
	r := m.Runs[1]
	if len(r.Attempts) != 2 || r.Attempts[0].Status != StatusAbandoned {
		t.Errorf("mpirun 1 attempts: %+v", r.Attempts)
	}
	t.Logf("resume: killed stale %v, moved aside %q", r.Attempts[1].KilledStale, r.Attempts[1].MovedAside)
	after := completedData(t, dir, "kl", 3)
	for name, h := range before {
		if after[name] != h {
			t.Errorf("%s changed", name)
		}
	}
	if n := len(after); n != 6 {
		t.Errorf("%d final files, want 6", n)
	}
}
