package slurmtest

import (
	"fmt"
	"os"
	"strings"
	"testing"
)

// The fixture runs a 2-task job step and stops every daemon it started.
func TestClusterRunsAStepAndStops(t *testing.T) {
	var c *Cluster
	t.Run("up", func(t *testing.T) {
		c = Start(t)
		out, err := c.Command("srun", "-n", "2", "printenv", "SLURM_PROCID").CombinedOutput()
		if err != nil {
			t.Fatalf("srun: %v\n%s", err, out)
		}
		if got := strings.Fields(string(out)); len(got) != 2 || got[0] == got[1] {
			t.Errorf("srun -n 2 printenv SLURM_PROCID: %q, want 0 and 1", got)
		}
		c.WaitNoJobs(t)
		if jobs := c.Jobs(t, "all"); len(jobs) != 1 || !strings.Contains(jobs[0], "COMPLETED") {
			t.Errorf("finished jobs remembered: %v, want one COMPLETED", jobs)
		}
	})
	if c == nil {
		return // skipped
	}
	// After the subtest's cleanup every daemon is gone, by its pid.
	if _, err := os.Stat(c.Dir); !os.IsNotExist(err) {
		t.Errorf("%s still exists after the stop: %v", c.Dir, err)
	}
}

// Shared hands out one cluster per test binary, and an empty one: a job
// that an earlier (failed) test left running is cancelled first.
func TestSharedStartsEmpty(t *testing.T) {
	c := Shared(t)
	if out, err := c.Command("sbatch", "-J", "rbtest-left", "-o", "/dev/null", "--wrap", "sleep 300").CombinedOutput(); err != nil {
		t.Fatalf("sbatch: %v %s", err, out)
	}
	if jobs := c.Jobs(t, "running,pending"); len(jobs) != 1 {
		t.Fatalf("jobs after sbatch: %v", jobs)
	}
	c2 := Shared(t)
	if c2 != c {
		t.Errorf("Shared started a second cluster: %s and %s", c.Dir, c2.Dir)
	}
	if jobs := c.Jobs(t, "running,pending,completing"); len(jobs) != 0 {
		t.Errorf("Shared handed out a cluster with jobs %v", jobs)
	}
}

func TestMain(m *testing.M) {
	code := m.Run()
	if err := StopShared(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		code = max(code, 1)
	}
	os.Exit(code)
}
