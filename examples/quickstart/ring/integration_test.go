package main

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/reprobench/reprobench/internal/mpirun"
)

// TestMpirunThenAnalyze is the quick start's first workflow for real: the
// program under mpirun with 2 ranks for every installed MPI library, then
// "reprobench analyze" on what it wrote.
func TestMpirunThenAnalyze(t *testing.T) {
	if testing.Short() {
		t.Skip("integration test: needs mpirun")
	}
	for _, f := range mpirun.Flavors(t) {
		t.Run(f.Name, func(t *testing.T) {
			bin := mpirun.Build(t, f, ".", ".")
			rb := mpirun.Build(t, f, "../../..", "./cmd/reprobench")
			dir := t.TempDir()
			// The program writes ./out: run it in dir.
			mpirun.MustRun(t, f, 2, 120*time.Second, nil, "/bin/sh", "-c", `cd "$0" && exec "$1"`, dir, bin)
			out, err := exec.Command(rb, "analyze", "--format", "csv", filepath.Join(dir, "out", "ring-mpirun000.csv")).CombinedOutput()
			if err != nil {
				t.Fatalf("analyze: %v\n%s", err, out)
			}
			if !strings.Contains(string(out), "ring_shift,8192,2,float64") {
				t.Errorf("no ring_shift group of 8192 bytes on 2 ranks:\n%s", out)
			}
		})
	}
}
