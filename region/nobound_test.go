package region

import (
	"math"
	"strings"
	"testing"

	"github.com/reprobench/reprobench/clocksync"
	"github.com/reprobench/reprobench/mpi/mpitest"
)

// noBoundWorld records one region on 2 simulated ranks whose rank 1 waits
// for a CPU on every receive (seed 3), synchronized at New and Close with a
// spec that has no worst case under load (HCA's root intercepts), or on a
// quiet world.
func noBoundWorld(t *testing.T, refuse, quiet bool) (*Result, error) {
	t.Helper()
	cfg := mpitest.Config{Ranks: 2, Seed: 3, Deschedule: mpitest.Deschedule{Prob: 1, Ranks: []int{1}}}
	if quiet {
		cfg.Deschedule = mpitest.Deschedule{}
	}
	w, err := mpitest.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	sp, err := clocksync.ParseSpec("hca:fitpts=20,exchanges=5")
	if err != nil {
		t.Fatal(err)
	}
	alg, err := sp.New()
	if err != nil {
		t.Fatal(err)
	}
	var res *Result
	var rerr error
	err = w.Run(func(r *mpitest.Rank) error {
		rec, err := New(r.Comm(), r.Clock(), Options{Capacity: 8, Sync: alg, RefuseNoBound: refuse})
		if err != nil {
			return err
		}
		rec.Begin("work")
		r.Sleep(1000)
		rec.End("work")
		out, err := rec.Close(Output{})
		if r.ID() == 0 {
			res, rerr = out, err
			return nil
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return res, rerr
}

// A recording whose synchronizations stated no bound (ranks descheduled)
// falls back to the local completion time: the global columns are NaN and
// the record says why; with RefuseNoBound Close fails on rank 0; a quiet
// world keeps its global columns.
func TestCloseNoBound(t *testing.T) {
	res, err := noBoundWorld(t, false, false)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(res.Record.NoBound, "ranks [1]") || len(res.Rows) != 1 {
		t.Fatalf("record no_bound %q, %d rows", res.Record.NoBound, len(res.Rows))
	}
	if row := res.Rows[0]; !math.IsNaN(row.GlobalRuntimeS) || !math.IsNaN(row.EntrySpreadS) || !(row.RuntimeS > 0) {
		t.Errorf("row %+v: want global columns NaN and runtime_s kept", row)
	}
	if _, err := noBoundWorld(t, true, false); err == nil || !strings.Contains(err.Error(), "no bound") {
		t.Errorf("RefuseNoBound: %v, want a refusal", err)
	}
	res, err = noBoundWorld(t, false, true)
	if err != nil {
		t.Fatal(err)
	}
	if res.Record.NoBound != "" || math.IsNaN(res.Rows[0].GlobalRuntimeS) {
		t.Errorf("quiet: no_bound %q, global runtime %v", res.Record.NoBound, res.Rows[0].GlobalRuntimeS)
	}
}
