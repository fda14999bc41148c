package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/reprobench/reprobench/internal/mpirun"
	"github.com/reprobench/reprobench/rawdata"
	"github.com/reprobench/reprobench/region"
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

// TestSIGKILLRecover kills rank 1 of a real 2-rank run with SIGKILL at the
// start of iteration 300 of 600 (spilling every 50 records) and reads the
// spill files back with region.Recover: every record older than one spill
// interval is there (each rank holds at least 2·300 − 50 − 2 of them:
// rank 0 may be in iteration 300's halo, waiting), marked incomplete.
func TestSIGKILLRecover(t *testing.T) {
	if testing.Short() {
		t.Skip("integration test: needs mpirun")
	}
	const iters, killAt, every = 600, 300, 50
	for _, f := range mpirun.Flavors(t) {
		t.Run(f.Name, func(t *testing.T) {
			bin := mpirun.Build(t, f, ".", ".")
			dir := t.TempDir()
			r := mpirun.Run(f, 2, 60*time.Second, nil, bin, "-iters", strconv.Itoa(iters), "-out", dir,
				"-spill-every", strconv.Itoa(every), "-kill-at", strconv.Itoa(killAt))
			if r.TimedOut || r.Err == nil {
				t.Fatalf("the killed run: timed out %v, error %v\n%s\n%s", r.TimedOut, r.Err, r.Stdout, r.Stderr)
			}
			if _, err := os.Stat(filepath.Join(dir, "stencil-mpirun000.json")); err == nil {
				t.Fatal("the killed run wrote its sidecar")
			}
			res, err := region.Recover(region.Output{Dir: dir, RunID: "stencil", PerRank: true})
			if err != nil {
				t.Fatal(err)
			}
			perRank := make([]int, 2)
			for _, row := range res.Rows {
				for k, s := range row.PerRank {
					if s.Rank >= 0 {
						perRank[k]++
					}
				}
			}
			bound := "none"
			if b := res.Record.BoundS; b != nil {
				bound = fmt.Sprintf("%.3g s", *b)
			}
			t.Logf("records read back per rank: %v (rank 1 killed at iteration %d, spill every %d); clock bound %s, largest spill time %.3g s",
				perRank, killAt, every, bound, res.Record.SpillMaxS)
			if !res.Record.Incomplete {
				t.Error("not marked incomplete")
			}
			for k, n := range perRank {
				if n < 2*killAt-every-2 || n > 2*killAt+2 {
					t.Errorf("rank %d: %d records read back, want %d to %d", k, n, 2*killAt-every-2, 2*killAt+2)
				}
			}
			m, err := rawdata.ReadMetadata(filepath.Join(dir, "stencil-mpirun000.json"))
			if err != nil || !strings.Contains(string(m.Regions), `"incomplete": true`) {
				t.Errorf("sidecar: %v", err)
			}
		})
	}
}
