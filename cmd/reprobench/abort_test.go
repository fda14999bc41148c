package main

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/reprobench/reprobench/internal/mpirun"
)

// TestRunAbortsWhenDiskFull: rank 0 cannot write its raw
// data (a 200 KiB tmpfs fills up) while rank 1 is already in the next
// experiment's collective. The job must end within seconds with the cause
// on stderr and exit status exitAborted (MPI_Abort), for every installed
// MPI library, instead of hanging forever. Needs root to mount the tmpfs.
func TestRunAbortsWhenDiskFull(t *testing.T) {
	if testing.Short() {
		t.Skip("integration test: needs mpirun")
	}
	if os.Geteuid() != 0 {
		t.Skip("needs root to mount a small tmpfs (a full filesystem under --out)")
	}
	for _, f := range mpirun.Flavors(t) {
		t.Run(f.Name, func(t *testing.T) {
			small := t.TempDir()
			if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size=200k", "tmpfs", small).CombinedOutput(); err != nil {
				t.Skipf("cannot mount a tmpfs here (%v: %s)", err, out)
			}
			t.Cleanup(func() { _ = exec.Command("umount", small).Run() })
			bin := mpirun.BuildShared(t, f, ".", ".")
			start := time.Now()
			r := mpirun.Run(f, 2, 120*time.Second, nil, bin, "run", "--calls", "MPI_Bcast,MPI_Allreduce,MPI_Reduce,MPI_Barrier",
				"--sizes", "8,64,512,4096", "--nrep", "200", "--per-rank", "--clock-sync", "none", "--seed", "1", "--run-id", "full", "--out", small)
			took := time.Since(start)
			t.Logf("exited after %v: %v\nstderr:\n%s", took.Round(time.Millisecond), r.Err, r.Stderr)
			if r.TimedOut {
				t.Fatalf("the job hung until the %v timeout", r.Timeout)
			}
			var ee *exec.ExitError
			if !errors.As(r.Err, &ee) || ee.ExitCode() != exitAborted {
				t.Errorf("exit: %v, want exit status %d", r.Err, exitAborted)
			}
			if !strings.Contains(r.Stderr, "no space left on device") || !strings.Contains(r.Stderr, "aborting the job") {
				t.Errorf("stderr does not give the cause and the abort:\n%s", r.Stderr)
			}
			// A few seconds on a quiet machine; the bound is stretched with
			// the load, and still catches a job that waits for a
			// collective's own timeout instead of aborting.
			if limit := mpirun.Deadline(30 * time.Second); took > limit {
				t.Errorf("took %v, want a few seconds (at most %v at this load)", took, limit)
			}
			partial := filepath.Join(small, "full-mpirun000.csv.partial")
			before, err := os.ReadFile(partial)
			if err != nil {
				t.Fatalf("the partial raw file was not kept for inspection: %v", err)
			}
			// Running again with the same names must not
			// overwrite what the failed run left for inspection.
			r = mpirun.Run(f, 2, 60*time.Second, nil, bin, "run", "--calls", "MPI_Bcast", "--sizes", "8", "--nrep", "5",
				"--clock-sync", "none", "--run-id", "full", "--out", small)
			if r.Err == nil || !strings.Contains(r.Stderr, ".partial exists, left by an earlier run") {
				t.Errorf("second run over the .partial files: %v\n%s", r.Err, r.Stderr)
			}
			if after, _ := os.ReadFile(partial); string(after) != string(before) {
				t.Error("the .partial file left for inspection was overwritten")
			}
		})
	}
}
