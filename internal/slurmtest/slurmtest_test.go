package slurmtest

import (
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
