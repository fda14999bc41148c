package campaign

import (
	"bytes"
	"encoding/json"
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
	"github.com/reprobench/reprobench/internal/slurmtest"
)

// The Slurm tests run reprobench launch through srun on a
// one-node Slurm (internal/slurmtest, scripts/slurm-up.sh), for each MPI
// library with the PMI plugin its Debian build needs. They share one
// cluster (slurmtest.Shared; TestMain stops it): each uses job names and
// directories of its own and ends with no job left.

// slurmPMI is the plugin each library needs (campaign.SrunPMI).
var slurmPMI = SrunPMI

// slurmTimeout is the launcher's --timeout in the Slurm tests that make a
// mpirun time out. It is short, so that these tests do not spend the suite
// waiting: a held run cannot finish, so the timeout need only exceed the
// time until its ranks are held (checkHeldInTime asserts that, or the test
// would not test a timeout of a running mpirun), and, where the same
// timeout governs a mpirun that must complete (a resume's rerun,
// checkRerunInTime), that mpirun's whole duration. Measured on the 2-core
// VM at load 6-9: held 0.14-2.6 s after the start (srun, step,
// batch); a batch mpirun of 200 observations took 0.8-6.3 s, an srun one
// 0.5-2 s. Those are wall-clock times, which grow with the load: the 8 s
// are stretched by the machine's load at the call (mpirun.Deadline), in
// whole seconds. The tests log both margins.
func slurmTimeout() string {
	return fmt.Sprintf("%.0fs", mpirun.Deadline(8*time.Second).Seconds())
}

func slurmEnv(c *slurmtest.Cluster, extra ...string) []string {
	return append(append([]string{}, c.Env...), extra...)
}

// TestSlurmLaunch: a campaign through srun completes, and the manifest and
// the sidecars record the job id, step id, node list and PMI.
func TestSlurmLaunch(t *testing.T) {
	if testing.Short() {
		t.Skip("integration test: needs mpirun and Slurm")
	}
	c := slurmtest.Shared(t)
	eachFlavor(t, func(t *testing.T, f mpirun.Flavor) {
		bin := reprobench(t, f)
		dir := t.TempDir()
		pmi := slurmPMI[f.Name]
		cmd, out := launchCmd(t, f, bin, slurmEnv(c), "--mpiruns", "2", "--np", "2", "--launcher", "srun -n {np} --mpi="+pmi,
			"--out", dir, "--run-id", "sl", "--timeout", "120s", "--seed", "3", "--", "--calls", "MPI_Allreduce", "--sizes", "8", "--nrep", "200")
		if code := waitCmd(t, cmd, out, 300*time.Second); code != 0 {
			t.Fatalf("launch through srun: exit %d\n%s", code, out)
		}
		m, err := ReadManifest(ManifestPath(dir, "sl"))
		if err != nil {
			t.Fatal(err)
		}
		for i, r := range m.Runs {
			a := r.Attempts[len(r.Attempts)-1]
			if r.Status != StatusOK || a.Slurm == nil || a.Slurm.JobID == "" || a.Slurm.State != "COMPLETED" || a.Slurm.Nodes == "" || a.Slurm.MPI != pmi || a.Slurm.ExitCode != "0:0" {
				t.Fatalf("mpirun %d: status %s, slurm %+v", i, r.Status, a.Slurm)
			}
			var meta struct {
				Np          int
				Environment struct {
					MPIEnv map[string]string `json:"mpi_env"`
				}
			}
			b, err := os.ReadFile(sidecarPath(dir, "sl", i))
			if err != nil || json.Unmarshal(b, &meta) != nil {
				t.Fatalf("sidecar: %v", err)
			}
			e := meta.Environment.MPIEnv
			if meta.Np != 2 || e["SLURM_JOB_ID"] != a.Slurm.JobID || e["SLURM_STEP_ID"] == "" || e["SLURM_JOB_NODELIST"] != a.Slurm.Nodes || e["SLURM_MPI_TYPE"] != pmi {
				t.Errorf("mpirun %d: np %d, sidecar Slurm variables job %q step %q nodes %q mpi %q; manifest %+v", i, meta.Np,
					e["SLURM_JOB_ID"], e["SLURM_STEP_ID"], e["SLURM_JOB_NODELIST"], e["SLURM_MPI_TYPE"], a.Slurm)
			}
			t.Logf("mpirun %d: job %s step %s on %s, --mpi=%s", i, a.Slurm.JobID, e["SLURM_STEP_ID"], a.Slurm.Nodes, pmi)
		}

		// A bare "srun -n {np}": launch adds the plugin this build needs.
		cmd, out = launchCmd(t, f, bin, slurmEnv(c), "--mpiruns", "1", "--np", "2", "--launcher", "srun -n {np}",
			"--out", dir, "--run-id", "auto", "--timeout", "120s", "--", "--calls", "MPI_Allreduce", "--sizes", "8", "--nrep", "200")
		if code := waitCmd(t, cmd, out, 300*time.Second); code != 0 {
			t.Fatalf("launch through a bare srun: exit %d\n%s", code, out)
		}
		if m, err = ReadManifest(ManifestPath(dir, "auto")); err != nil {
			t.Fatal(err)
		}
		if a := m.Runs[0].Attempts[0]; a.Slurm == nil || a.Slurm.MPI != pmi || !strings.Contains(out.String(), "adding --mpi="+pmi) {
			t.Errorf("bare srun: recorded %+v\n%s", a.Slurm, out)
		}

		// run under srun directly, without launch.
		direct := c.Command("srun", "-n", "2", "--mpi="+pmi, bin, "run", "--out", dir, "--run-id", "direct", "--calls", "MPI_Allreduce", "--sizes", "8", "--nrep", "200")
		direct.Env = append(direct.Env, f.Env...)
		if b, err := direct.CombinedOutput(); err != nil {
			t.Fatalf("srun ... run: %v\n%s", err, b)
		}
		if n := csvRows(t, outputBase(dir, "direct", 0)+".csv"); n != 200 || !exists(sidecarPath(dir, "direct", 0)) {
			t.Errorf("srun ... run: %d rows, sidecar %v", n, exists(sidecarPath(dir, "direct", 0)))
		}
		c.WaitNoJobs(t)
	})
}

// TestSlurmWrongPMI: with a PMI plugin that does not connect the ranks
// (--mpi=none, or the other library's), srun starts singletons (MPICH) or
// MPI_Init fails (Debian's Open MPI); under launch, under a direct srun and
// under srun in an sbatch script the run exits non-zero, says which
// plugin to use, and writes nothing: no result, no partial file.
func TestSlurmWrongPMI(t *testing.T) {
	if testing.Short() {
		t.Skip("integration test: needs mpirun and Slurm")
	}
	c := slurmtest.Shared(t)
	eachFlavor(t, func(t *testing.T, f mpirun.Flavor) {
		bin := reprobench(t, f)
		dir := t.TempDir()
		cmd, out := launchCmd(t, f, bin, slurmEnv(c), "--mpiruns", "1", "--np", "2", "--launcher", "srun -n {np} --mpi=none",
			"--out", dir, "--run-id", "wp", "--timeout", "120s", "--", "--calls", "MPI_Allreduce", "--sizes", "8", "--nrep", "200")
		if code := waitCmd(t, cmd, out, 300*time.Second); code != 1 {
			t.Fatalf("launch with --mpi=none: exit %d, want 1\n%s", code, out)
		}
		m, err := ReadManifest(ManifestPath(dir, "wp"))
		if err != nil {
			t.Fatal(err)
		}
		a := m.Runs[0].Attempts[0]
		if m.Runs[0].Status != StatusFailed || exists(sidecarPath(dir, "wp", 0)) || exists(outputBase(dir, "wp", 0)+".csv") {
			t.Fatalf("a run of singletons was recorded: %+v", m.Runs[0])
		}
		tail := strings.Join(append(a.StderrTail, a.StdoutTail...), "\n")
		// MPICH starts singletons: the size check says why; Open MPI's
		// MPI_Init fails after the run's note on the plugin.
		want := "use srun --mpi=" + slurmPMI[f.Name]
		if !strings.Contains(tail, want) || (f.Name == "mpich" && !strings.Contains(tail, "did not join one MPI job")) {
			t.Errorf("no clear error from the singletons:\n%s", tail)
		}
		t.Logf("%s with --mpi=none: %s", f.Name, launchLast(tail))
		c.WaitNoJobs(t)

		// run under srun directly, and under srun in a batch script.
		other := map[string]string{"openmpi": "pmi2", "mpich": "pmix"}[f.Name]
		runArgs := []string{bin, "run", "--calls", "MPI_Allreduce", "--sizes", "8", "--nrep", "200", "--run-id", "wrong"}
		for _, plugin := range []string{"none", other} {
			res := t.TempDir()
			srun := c.Command("srun", append([]string{"-n", "2", "--mpi=" + plugin}, append(runArgs, "--out", res)...)...)
			srun.Env = append(srun.Env, f.Env...)
			b, err := srun.CombinedOutput()
			if err == nil || !strings.Contains(string(b), want) {
				t.Errorf("srun --mpi=%s %s run: %v, want an error naming %q\n%s", plugin, f.Name, err, want, b)
			}
			checkNothingWritten(t, res)
			t.Logf("srun --mpi=%s: %v: %s", plugin, err, launchLast(string(b)))
		}
		res, job := t.TempDir(), t.TempDir()
		script := filepath.Join(job, "job.sh")
		if err := os.WriteFile(script, []byte("#!/bin/sh\nexec srun -n 2 --mpi=none "+ShellJoin(append(runArgs, "--out", res))+"\n"), 0o755); err != nil {
			t.Fatal(err)
		}
		log := filepath.Join(job, "job.out")
		sb := c.Command("sbatch", "--wait", "-n", "2", "-J", "rbtest-wrongpmi-"+f.Name, "-o", log, script)
		sb.Env = append(sb.Env, f.Env...)
		if b, err := sb.CombinedOutput(); err == nil {
			t.Errorf("sbatch of srun --mpi=none %s run: exit 0, want non-zero\n%s", f.Name, b)
		}
		if b, _ := os.ReadFile(log); !strings.Contains(string(b), want) {
			t.Errorf("sbatch of srun --mpi=none %s run: output without %q\n%s", f.Name, want, b)
		}
		checkNothingWritten(t, res)
		c.WaitNoJobs(t)
	})
}

// checkNothingWritten fails t unless the run's output directory is empty:
// no result, no partial file.
func checkNothingWritten(t *testing.T, dir string) {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		t.Errorf("the refused run wrote %s", filepath.Join(dir, e.Name()))
	}
}

func launchLast(s string) string {
	for _, l := range strings.Split(s, "\n") {
		if strings.Contains(l, "did not join") || strings.Contains(strings.ToLower(l), "error") {
			return l
		}
	}
	return s[max(0, len(s)-200):]
}

// TestSlurmTimeoutLeavesNoJob: a mpirun held until killed times out; the
// launcher's SIGTERM makes srun cancel the step, the job ends, and no job
// or rank is left (SIGKILL to srun would leave the job running).
func TestSlurmTimeoutLeavesNoJob(t *testing.T) {
	if testing.Short() {
		t.Skip("integration test: needs mpirun and Slurm")
	}
	c := slurmtest.Shared(t)
	eachFlavor(t, func(t *testing.T, f mpirun.Flavor) {
		bin := reprobench(t, f)
		dir := t.TempDir()
		hold := t.TempDir()
		cmd, out := launchCmd(t, f, bin, slurmEnv(c, holdEnv(hold, 0)...), "--mpiruns", "1", "--np", "2", "--launcher", "srun -n {np} --mpi="+slurmPMI[f.Name],
			"--out", dir, "--run-id", "to", "--timeout", slurmTimeout(), "--grace", "5s", "--", "--calls", "MPI_Allreduce", "--sizes", "8", "--nrep", "200")
		// The ranks are held (they cannot finish), so the timeout must end them.
		var ranks []int
		waitFor(t, 120*time.Second, "both ranks to be held", func() bool { ranks = heldRanks(hold, 0, 2); return ranks != nil })
		if code := waitCmd(t, cmd, out, 120*time.Second); code != 1 {
			t.Fatalf("exit %d, want 1\n%s", code, out)
		}
		m, err := ReadManifest(ManifestPath(dir, "to"))
		if err != nil {
			t.Fatal(err)
		}
		a := m.Runs[0].Attempts[0]
		if m.Runs[0].Status != StatusTimedOut || a.Slurm == nil || a.Slurm.JobID == "" {
			t.Fatalf("attempt: %+v", a)
		}
		checkHeldInTime(t, hold, 0, a)
		c.WaitNoJobs(t)
		for _, p := range ranks {
			if alive(p) {
				t.Errorf("rank %d is still alive", p)
			}
		}
		t.Logf("timed out: %s; job %s %s, cancelled by scancel: %v", a.Error, a.Slurm.JobID, a.Slurm.State, a.Slurm.Cancelled)
	})
}

// TestSlurmBatchCampaign: every mpirun is a batch job of its own (launch
// --batch sbatch). A job cancelled mid-run is recorded as failed and the
// campaign goes on; a resume whose launcher is killed mid-job leaves a job
// running, and the next resume asks Slurm about it, cancels it at the
// timeout and runs the mpirun again: no mpirun lost or run twice.
func TestSlurmBatchCampaign(t *testing.T) {
	if testing.Short() {
		t.Skip("integration test: needs mpirun and Slurm")
	}
	c := slurmtest.Shared(t)
	eachFlavor(t, func(t *testing.T, f mpirun.Flavor) {
		bin := reprobench(t, f)
		dir := t.TempDir()
		mp := ManifestPath(dir, "bj")
		hold := t.TempDir()
		cmd, out := launchCmd(t, f, bin, slurmEnv(c, holdEnv(hold, 1)...), "--batch", "sbatch", "--launcher", "srun -n {np} --mpi="+slurmPMI[f.Name],
			"--mpiruns", "3", "--np", "2", "--out", dir, "--run-id", "bj", "--seed", "5", "--", "--calls", "MPI_Allreduce", "--sizes", "8", "--nrep", "200")
		waitFor(t, 120*time.Second, "mpirun 1 to be held", func() bool { return heldRanks(hold, 1, 2) != nil })
		m, err := ReadManifest(mp)
		if err != nil {
			t.Fatal(err)
		}
		name := m.Runs[1].Attempts[0].Slurm.JobName
		if b, err := c.Command("scancel", "--name", name).CombinedOutput(); err != nil {
			t.Fatalf("scancel: %v %s", err, b)
		}
		if code := waitCmd(t, cmd, out, 180*time.Second); code != 1 {
			t.Fatalf("exit %d, want 1 (mpirun 1 cancelled)\n%s", code, out)
		}
		if m, err = ReadManifest(mp); err != nil {
			t.Fatal(err)
		}
		checkOnlyOneCancelled(t, m, out)
		before := completedData(t, dir, "bj", 3)

		// Resume, held again, and kill that launcher: its job goes on. Then
		// resume without the hold: it finds the job alive, cancels it at the
		// timeout, and runs mpirun 1 once more.
		m, _ = killResumeThenResume(t, c, f, bin, dir, mp)
		r := m.Runs[1]
		if len(r.Attempts) != 3 || r.Attempts[1].Status != StatusAbandoned || r.Attempts[1].Slurm == nil || !r.Attempts[1].Slurm.Cancelled || r.Status != StatusOK {
			t.Fatalf("mpirun 1 attempts: %+v", r.Attempts)
		}
		checkOthersUntouched(t, m, dir, "bj", before)
		c.WaitNoJobs(t)
	})
}

// sallocLaunch runs "salloc -n NP -J name reprobench launch ARGS": launch
// inside an allocation of its own, as a user's salloc or sbatch script
// does. The job name is the test's own, so cleanup cancels only it.
func sallocLaunch(t *testing.T, c *slurmtest.Cluster, f mpirun.Flavor, bin, name string, env []string, args ...string) (*exec.Cmd, *bytes.Buffer) {
	t.Helper()
	cmd := c.Command("salloc", append([]string{"-n", "2", "-J", name, bin, "launch"}, args...)...)
	cmd.Env = append(append(cmd.Env, f.Env...), env...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		cmd.Wait()
		c.Command("scancel", "--name", name).Run()
	})
	return cmd, &out
}

// jobID returns the id of the newest job named name that Slurm remembers.
func jobID(t *testing.T, c *slurmtest.Cluster, name string) string {
	t.Helper()
	out, err := c.Command("squeue", "-h", "-t", "all", "-n", name, "-o", "%i").Output()
	if err != nil {
		t.Fatalf("squeue: %v", err)
	}
	f := strings.Fields(string(out))
	if len(f) == 0 {
		t.Fatalf("no job named %s", name)
	}
	return f[0]
}

// TestSlurmStepsInAllocation: launch inside an allocation (salloc) runs
// each mpirun as a named step of it and records allocation, step id and
// nodes. When a timeout leaves a step alive (here srun escapes the
// launcher's signals: setsid puts it in a session of its own, as a
// wrapper or a hung srun would), the launcher cancels that step only
// (scancel JOBID.STEPID), and Slurm, not the local kill, ends the ranks.
func TestSlurmStepsInAllocation(t *testing.T) {
	if testing.Short() {
		t.Skip("integration test: needs mpirun and Slurm")
	}
	c := slurmtest.Shared(t)
	eachFlavor(t, func(t *testing.T, f mpirun.Flavor) {
		bin := reprobench(t, f)
		dir := t.TempDir()
		pmi := slurmPMI[f.Name]
		alloc := "rbtest-alloc-" + f.Name
		cmd, out := sallocLaunch(t, c, f, bin, alloc, nil, "--mpiruns", "2", "--np", "2", "--launcher", "srun -n {np} --mpi="+pmi,
			"--out", dir, "--run-id", "st", "--timeout", "120s", "--", "--calls", "MPI_Allreduce", "--sizes", "8", "--nrep", "200")
		if code := waitCmd(t, cmd, out, 300*time.Second); code != 0 {
			t.Fatalf("salloc ... launch: exit %d\n%s", code, out)
		}
		job := jobID(t, c, alloc)
		m, err := ReadManifest(ManifestPath(dir, "st"))
		if err != nil {
			t.Fatal(err)
		}
		steps := map[string]bool{}
		for i, r := range m.Runs {
			a := r.Attempts[len(r.Attempts)-1]
			if r.Status != StatusOK || a.Slurm == nil || !a.Slurm.Step || a.Slurm.JobID != job || a.Slurm.StepID == "" || a.Slurm.Nodes == "" || a.Slurm.MPI != pmi {
				t.Fatalf("mpirun %d: status %s, slurm %+v (allocation %s)", i, r.Status, a.Slurm, job)
			}
			var meta struct {
				Environment struct {
					MPIEnv map[string]string `json:"mpi_env"`
				}
			}
			b, err := os.ReadFile(sidecarPath(dir, "st", i))
			if err != nil || json.Unmarshal(b, &meta) != nil {
				t.Fatalf("sidecar: %v", err)
			}
			if e := meta.Environment.MPIEnv; e["SLURM_JOB_ID"] != job || e["SLURM_STEP_ID"] != a.Slurm.StepID {
				t.Errorf("mpirun %d: the ranks saw job %s step %s, the manifest says %s", i, e["SLURM_JOB_ID"], e["SLURM_STEP_ID"], a.Slurm.ID())
			}
			steps[a.Slurm.StepID] = true
			t.Logf("mpirun %d: step %s (%s) on %s", i, a.Slurm.ID(), a.Slurm.JobName, a.Slurm.Nodes)
		}
		if len(steps) != 2 {
			t.Errorf("step ids %v: want two different steps", steps)
		}
		c.WaitNoJobs(t)

		// The timeout, with srun out of the launcher's reach.
		hold := t.TempDir()
		alloc += "-to"
		cmd, out = sallocLaunch(t, c, f, bin, alloc, holdEnv(hold, 0), "--mpiruns", "1", "--np", "2", "--launcher", "setsid -w srun -n {np} --mpi="+pmi,
			"--out", dir, "--run-id", "sto", "--timeout", slurmTimeout(), "--grace", "5s", "--", "--calls", "MPI_Allreduce", "--sizes", "8", "--nrep", "200")
		var ranks []int
		waitFor(t, 120*time.Second, "both ranks to be held", func() bool { ranks = heldRanks(hold, 0, 2); return ranks != nil })
		if code := waitCmd(t, cmd, out, 120*time.Second); code != 1 {
			t.Fatalf("exit %d, want 1\n%s", code, out)
		}
		if m, err = ReadManifest(ManifestPath(dir, "sto")); err != nil {
			t.Fatal(err)
		}
		a := m.Runs[0].Attempts[0]
		if m.Runs[0].Status != StatusTimedOut || a.Slurm == nil || !a.Slurm.Step || a.Slurm.JobID != jobID(t, c, alloc) || a.Slurm.StepID == "" || !a.Slurm.Cancelled || a.Slurm.State != "CANCELLED" {
			t.Fatalf("attempt: %+v, slurm %+v\n%s", a, a.Slurm, out)
		}
		checkHeldInTime(t, hold, 0, a)
		for _, p := range ranks {
			if containsInt(a.KilledStale, p) {
				t.Errorf("rank %d was killed by the launcher's local kill, not by scancel of the step", p)
			}
		}
		c.WaitNoJobs(t)
		for _, p := range ranks {
			if alive(p) {
				t.Errorf("rank %d is still alive", p)
			}
		}
		t.Logf("timed out: %s", a.Error)
	})
}

// TestSlurmBatchTimeout: a batch mpirun (launch --batch sbatch) that hits
// --timeout in a first launch, not a resume: its job is cancelled, no job
// is left, the manifest records it as timed out, and a resume runs it again
// exactly once and nothing else.
func TestSlurmBatchTimeout(t *testing.T) {
	if testing.Short() {
		t.Skip("integration test: needs mpirun and Slurm")
	}
	c := slurmtest.Shared(t)
	eachFlavor(t, func(t *testing.T, f mpirun.Flavor) {
		bin := reprobench(t, f)
		dir := t.TempDir()
		mp := ManifestPath(dir, "bt")
		hold := t.TempDir()
		cmd, out := launchCmd(t, f, bin, slurmEnv(c, holdEnv(hold, 0)...), "--batch", "sbatch", "--launcher", "srun -n {np} --mpi="+slurmPMI[f.Name],
			"--mpiruns", "2", "--np", "2", "--out", dir, "--run-id", "bt", "--timeout", slurmTimeout(), "--grace", "5s", "--", "--calls", "MPI_Allreduce", "--sizes", "8", "--nrep", "200")
		var ranks []int
		waitFor(t, 120*time.Second, "mpirun 0 to be held", func() bool { ranks = heldRanks(hold, 0, 2); return ranks != nil })
		if code := waitCmd(t, cmd, out, 180*time.Second); code != 1 {
			t.Fatalf("exit %d, want 1 (mpirun 0 timed out)\n%s", code, out)
		}
		m, err := ReadManifest(mp)
		if err != nil {
			t.Fatal(err)
		}
		a := m.Runs[0].Attempts[0]
		if m.Runs[0].Status != StatusTimedOut || a.Status != StatusTimedOut || a.Slurm == nil || a.Slurm.JobID == "" || m.Runs[1].Status != StatusOK {
			t.Fatalf("after the timeout: %s %s, mpirun 0's attempt %+v job %+v\n%s", m.Runs[0].Status, m.Runs[1].Status, a, a.Slurm, out)
		}
		c.WaitNoJobs(t)
		for _, p := range ranks {
			if alive(p) {
				t.Errorf("rank %d is still alive", p)
			}
		}
		t.Logf("mpirun 0: %s; job %s %s, cancelled %v", a.Error, a.Slurm.JobID, a.Slurm.State, a.Slurm.Cancelled)
		checkHeldInTime(t, hold, 0, a)
		checkRerunInTime(t, m.Runs[1].Attempts[0]) // mpirun 1 had the same timeout
		before := completedData(t, dir, "bt", 2)

		cmd, out = launchCmd(t, f, bin, slurmEnv(c), "--resume", "--out", dir, "--timeout", "120s")
		if code := waitCmd(t, cmd, out, 300*time.Second); code != 0 {
			t.Fatalf("resume: exit %d\n%s", code, out)
		}
		if m, err = ReadManifest(mp); err != nil {
			t.Fatal(err)
		}
		if r := m.Runs[0]; len(r.Attempts) != 2 || r.Attempts[0].Status != StatusTimedOut || r.Attempts[1].Status != StatusOK || r.Status != StatusOK {
			t.Fatalf("mpirun 0 attempts: %+v", r.Attempts)
		}
		if len(m.Runs[1].Attempts) != 1 {
			t.Error("the complete mpirun 1 was run again")
		}
		for i := range 2 {
			if n := csvRows(t, outputBase(dir, "bt", i)+".csv"); n != 200 {
				t.Errorf("mpirun %d: %d rows, want 200", i, n)
			}
		}
		for name, h := range before {
			if completedData(t, dir, "bt", 2)[name] != h {
				t.Errorf("%s changed", name)
			}
		}
		c.WaitNoJobs(t)
	})
}

// TestSlurmArrayCampaign: launch --batch sbatch --array submits the
// mpiruns as one job array (task i runs mpirun i). A task cancelled
// mid-run is recorded as failed and the other tasks run; a resume whose
// launcher is killed leaves its task running, and the next resume asks
// Slurm about it, follows it (not a second copy), cancels it at the
// timeout, and submits that mpirun again: no mpirun lost or run twice.
func TestSlurmArrayCampaign(t *testing.T) {
	if testing.Short() {
		t.Skip("integration test: needs mpirun and Slurm")
	}
	c := slurmtest.Shared(t)
	eachFlavor(t, func(t *testing.T, f mpirun.Flavor) {
		bin := reprobench(t, f)
		dir := t.TempDir()
		mp := ManifestPath(dir, "ar")
		hold := t.TempDir()
		cmd, out := launchCmd(t, f, bin, slurmEnv(c, holdEnv(hold, 1)...), "--batch", "sbatch", "--array", "--launcher", "srun -n {np} --mpi="+slurmPMI[f.Name],
			"--mpiruns", "3", "--np", "2", "--out", dir, "--run-id", "ar", "--seed", "5", "--", "--calls", "MPI_Allreduce", "--sizes", "8", "--nrep", "200")
		waitFor(t, 120*time.Second, "mpirun 1 to be held", func() bool { return heldRanks(hold, 1, 2) != nil })
		m, err := ReadManifest(mp)
		if err != nil {
			t.Fatal(err)
		}
		task := m.Runs[1].Attempts[0].Slurm
		if task == nil || task.ArrayJobID == "" || task.ArrayTaskID != "1" {
			t.Fatalf("mpirun 1's task: %+v", task)
		}
		if b, err := c.Command("scancel", task.ID()).CombinedOutput(); err != nil {
			t.Fatalf("scancel %s: %v %s", task.ID(), err, b)
		}
		if code := waitCmd(t, cmd, out, 180*time.Second); code != 1 {
			t.Fatalf("exit %d, want 1 (mpirun 1 cancelled)\n%s", code, out)
		}
		if m, err = ReadManifest(mp); err != nil {
			t.Fatal(err)
		}
		checkOnlyOneCancelled(t, m, out)
		for i := range 3 {
			s := m.Runs[i].Attempts[0].Slurm
			if s.ArrayJobID != task.ArrayJobID || s.ArrayTaskID != strconv.Itoa(i) || s.JobID == "" || s.Nodes == "" {
				t.Errorf("mpirun %d: task %+v", i, s)
			}
			if i == 1 {
				continue
			}
			var meta struct {
				Environment struct {
					MPIEnv map[string]string `json:"mpi_env"`
				}
			}
			b, err := os.ReadFile(sidecarPath(dir, "ar", i))
			if err != nil || json.Unmarshal(b, &meta) != nil {
				t.Fatalf("sidecar: %v", err)
			}
			if e := meta.Environment.MPIEnv; e["SLURM_ARRAY_JOB_ID"] != s.ArrayJobID || e["SLURM_ARRAY_TASK_ID"] != s.ArrayTaskID || e["SLURM_JOB_ID"] != s.JobID {
				t.Errorf("mpirun %d: the ranks saw array job %s task %s job %s; the manifest says %+v", i, e["SLURM_ARRAY_JOB_ID"], e["SLURM_ARRAY_TASK_ID"], e["SLURM_JOB_ID"], s)
			}
		}
		before := completedData(t, dir, "ar", 3)

		// Resume, held again, and kill that launcher: its task goes on. Then
		// resume without the hold: it follows the task, cancels it at the
		// timeout, and submits mpirun 1 once more.
		m, out = killResumeThenResume(t, c, f, bin, dir, mp)
		r := m.Runs[1]
		if len(r.Attempts) != 3 || r.Attempts[1].Status != StatusAbandoned || r.Attempts[1].Slurm == nil || !r.Attempts[1].Slurm.Cancelled ||
			r.Attempts[2].Status != StatusOK || r.Status != StatusOK || r.Attempts[2].Slurm.ArrayJobID == r.Attempts[1].Slurm.ArrayJobID {
			t.Fatalf("mpirun 1 attempts: %+v\n%s", r.Attempts, out)
		}
		checkOthersUntouched(t, m, dir, "ar", before)
		t.Logf("mpirun 1's abandoned attempt: %s", r.Attempts[1].Error)
		c.WaitNoJobs(t)
	})
}

// checkHeldInTime checks that attempt a of mpirun i had its 2 ranks held
// (their pid files in hold) before its timeout: a timeout that fired
// before would not test the kill of a running mpirun. It logs the margin.
func checkHeldInTime(t *testing.T, hold string, i int, a Attempt) {
	t.Helper()
	start, err := time.Parse(time.RFC3339Nano, a.Started)
	if err != nil {
		t.Fatalf("attempt start %q: %v", a.Started, err)
	}
	var held time.Time
	for r := range 2 {
		st, err := os.Stat(filepath.Join(hold, fmt.Sprintf("mpirun%03d-rank%d.pid", i, r)))
		if err != nil {
			t.Fatal(err)
		}
		if st.ModTime().After(held) {
			held = st.ModTime()
		}
	}
	after := held.Sub(start).Seconds()
	if after >= a.TimeoutS {
		t.Errorf("mpirun %d was held %.2f s after its start, after its %g s timeout: the test timed out a starting run", i, after, a.TimeoutS)
	}
	t.Logf("mpirun %d held %.2f s after its start, %.1f s before its timeout", i, after, a.TimeoutS-after)
}

// checkRerunInTime checks that attempt a, which must complete within its
// timeout, did, and logs its margin.
func checkRerunInTime(t *testing.T, a Attempt) {
	t.Helper()
	if a.Status != StatusOK {
		t.Errorf("attempt %+v did not complete within its %g s timeout", a, a.TimeoutS)
	}
	t.Logf("completed in %.2f s of its %g s timeout", a.DurationS, a.TimeoutS)
}

// checkOnlyOneCancelled checks a 3-mpirun Slurm campaign after mpirun 1's
// job or array task was scancelled: 0 and 2 ok, 1 failed, its job CANCELLED.
func checkOnlyOneCancelled(t *testing.T, m *Manifest, out *bytes.Buffer) {
	t.Helper()
	a := m.Runs[1].Attempts[0]
	if m.Runs[0].Status != StatusOK || m.Runs[1].Status != StatusFailed || m.Runs[2].Status != StatusOK || a.Slurm.State != "CANCELLED" {
		t.Fatalf("after the cancel: %s %s %s, mpirun 1's job %+v\n%s", m.Runs[0].Status, m.Runs[1].Status, m.Runs[2].Status, a.Slurm, out)
	}
}

// killResumeThenResume resumes the campaign in dir with mpirun 1 held,
// kills that launcher with SIGKILL (its Slurm job must go on, the only one
// running), then resumes without the hold and with --timeout slurmTimeout,
// which must succeed: the held job is cancelled at the timeout, and mpirun
// 1 run again within it (checkRerunInTime). It returns the manifest and that last launcher's output.
func killResumeThenResume(t *testing.T, c *slurmtest.Cluster, f mpirun.Flavor, bin, dir, mp string) (*Manifest, *bytes.Buffer) {
	t.Helper()
	hold := t.TempDir()
	cmd, out := launchCmd(t, f, bin, slurmEnv(c, holdEnv(hold, 1)...), "--resume", "--out", dir)
	waitFor(t, 120*time.Second, "mpirun 1 to be held again", func() bool { return heldRanks(hold, 1, 2) != nil })
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	waitCmd(t, cmd, out, 30*time.Second)
	if jobs := c.Jobs(t, "running"); len(jobs) != 1 {
		t.Fatalf("after killing the launcher, running jobs %v; want mpirun 1's", jobs)
	}
	cmd, out = launchCmd(t, f, bin, slurmEnv(c), "--resume", "--out", dir, "--timeout", slurmTimeout())
	if code := waitCmd(t, cmd, out, 300*time.Second); code != 0 {
		t.Fatalf("resume: exit %d\n%s", code, out)
	}
	m, err := ReadManifest(mp)
	if err != nil {
		t.Fatal(err)
	}
	checkRerunInTime(t, m.Runs[1].Attempts[len(m.Runs[1].Attempts)-1])
	return m, out
}

// checkOthersUntouched checks that a resumed 3-mpirun campaign ran mpiruns
// 0 and 2 once, that every mpirun has its 200 rows, and that the completed
// mpiruns' data are still those hashed in before.
func checkOthersUntouched(t *testing.T, m *Manifest, dir, id string, before map[string][32]byte) {
	t.Helper()
	if len(m.Runs[0].Attempts) != 1 || len(m.Runs[2].Attempts) != 1 {
		t.Error("a complete mpirun was run again")
	}
	for i := range 3 {
		if n := csvRows(t, outputBase(dir, id, i)+".csv"); n != 200 {
			t.Errorf("mpirun %d: %d rows, want 200", i, n)
		}
		a := m.Runs[i].Attempts[len(m.Runs[i].Attempts)-1]
		last := a.Slurm
		// The duration is informative: it shows what the short timeouts
		// leave (slurmTimeout), not a property these tests are about.
		t.Logf("mpirun %d: job %s (%s) on %s, %s in %.2f s", i, last.JobID, last.ID(), last.Nodes, last.State, a.DurationS)
	}
	for name, h := range before {
		if completedData(t, dir, id, 3)[name] != h {
			t.Errorf("%s changed", name)
		}
	}
}
