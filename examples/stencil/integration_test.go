package main

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/reprobench/reprobench/internal/mpirun"
)

// TestMpirun builds the stencil for every installed MPI library, runs it
// under a real mpirun with 2 ranks (clocks synchronized with hca3 at the
// start and the end), and feeds its output to reprobench analyze, compare
// --by region and report, which must accept it.
func TestMpirun(t *testing.T) {
	if testing.Short() {
		t.Skip("integration test: needs mpirun")
	}
	for _, f := range mpirun.Flavors(t) {
		t.Run(f.Name, func(t *testing.T) {
			bin := mpirun.Build(t, f, ".", ".")
			rb := mpirun.Build(t, f, "../..", "./cmd/reprobench")
			dir := t.TempDir()
			out := mpirun.MustRun(t, f, 2, 120*time.Second, nil, bin, "-iters", "200", "-out", dir)
			t.Logf("\n%s", out)
			if !strings.Contains(out, "halo") || !strings.Contains(out, "compute") || !strings.Contains(out, "rank 1: 400 records, 0 dropped") {
				t.Fatalf("output:\n%s", out)
			}
			raw := filepath.Join(dir, "stencil-mpirun000.csv")
			for _, args := range [][]string{
				{"analyze", raw, filepath.Join(dir, "stencil-mpirun000.ranks.csv")},
				{"compare", "--by", "region", raw},
				{"report", "-o", filepath.Join(dir, "report.html"), raw},
			} {
				b, err := exec.Command(rb, args...).CombinedOutput()
				if err != nil {
					t.Fatalf("reprobench %s: %v\n%s", strings.Join(args, " "), err, b)
				}
				if args[0] == "compare" && !strings.Contains(string(b), "A: compute   B: halo") {
					t.Errorf("compare --by region:\n%s", b)
				}
			}
		})
	}
}
