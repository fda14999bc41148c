//go:build cgo && !nompi

package main

import (
	"testing"
	"time"

	"github.com/reprobench/reprobench/internal/mpirun"
	"github.com/reprobench/reprobench/region"
)

// TestSIGKILLLeavesSpill runs testdata/killed.c at np 2 under every
// installed MPI library; its last rank kills itself with SIGKILL at the
// start of iteration 3000 (two regions per iteration), so no rank reaches
// rbr_stop. The C side's spill files must hold every record older than
// one spill interval: region.Recover reads them as an incomplete run with
// at least 2·3000 − DefaultSpillEvery records of the killed rank (and at
// most its 6000), and the surviving rank, blocked in the iteration's
// MPI_Allreduce, at least as many.
func TestSIGKILLLeavesSpill(t *testing.T) {
	if testing.Short() {
		t.Skip("integration test: needs mpirun and mpicc")
	}
	const killAt = 3000
	for _, f := range mpirun.Flavors(t) {
		t.Run(f.Name, func(t *testing.T) {
			prog := buildTestdata(t, f, "mpicc", "testdata/killed.c")
			dir := t.TempDir()
			r := mpirun.Run(f, 2, 120*time.Second, nil, prog, dir, "3000")
			if r.TimedOut {
				t.Fatalf("the killed run hung past 120 s:\n%s", r.Stderr)
			}
			if r.Err == nil {
				t.Fatalf("the killed run exited 0; want the launcher to report the SIGKILL")
			}
			res, err := region.Recover(region.Output{Dir: dir, RunID: "killed", PerRank: true})
			if err != nil {
				t.Fatal(err)
			}
			if !res.Record.Incomplete || len(res.Record.PerRank) != 2 {
				t.Fatalf("recovered record: incomplete %v, %d ranks; want true, 2", res.Record.Incomplete, len(res.Record.PerRank))
			}
			for _, l := range res.Record.PerRank {
				t.Logf("rank %d: %d records read back, %d spills, %.3g s spilling", l.Rank, l.Records, l.Spills, l.SpillS)
				if l.Records < 2*killAt-region.DefaultSpillEvery {
					t.Errorf("rank %d: %d records; want at least %d (every record older than one spill interval)", l.Rank, l.Records, 2*killAt-region.DefaultSpillEvery)
				}
				if l.Rank == 1 && l.Records > 2*killAt {
					t.Errorf("rank 1: %d records; it made %d before it was killed", l.Records, 2*killAt)
				}
			}
		})
	}
}
