package reprobench_test

import (
	"encoding/json"
	"testing"

	"github.com/reprobench/reprobench"
	"github.com/reprobench/reprobench/mpi"
	"github.com/reprobench/reprobench/mpi/mpitest"
	"github.com/reprobench/reprobench/provenance"
	"github.com/reprobench/reprobench/window"
)

// A simulated run's sidecar carries the provenance record with the
// simulator's fake values, every rank's CPU sampled at the start, before
// and after each experiment's measured observations and at the end (1 + 2
// experiments × 2 + 1 = 6 samples), and no binding note (each simulated
// rank has its own CPU).
func TestRunRecordsProvenance(t *testing.T) {
	w, err := mpitest.New(mpitest.Config{Ranks: 2, Seed: 5})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	var res *reprobench.Result
	var notes []string
	err = w.Run(func(r *mpitest.Rank) error {
		exps := []reprobench.Experiment{
			{Exp: 0, Call: mpi.CallAllreduce, MsizeBytes: 8, Type: mpi.Float64, Nrep: 10, Sync: window.Config{Method: window.Barrier}},
			{Exp: 1, Call: mpi.CallBarrier, Nrep: 10, Sync: window.Config{Method: window.Barrier}},
		}
		rr, err := reprobench.Run(r.Comm(), exps, reprobench.Options{Clock: r.Clock(), Dir: dir, RunID: "prov", NoClockSync: true,
			Note: func(m string) { notes = append(notes, m) }})
		if r.Comm().Rank() == 0 {
			res = rr
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	var rec provenance.Record
	if err := json.Unmarshal(res.Metadata.Provenance, &rec); err != nil {
		t.Fatal(err)
	}
	if !rec.Simulated || rec.Library != "simulated" || len(rec.Ranks) != 2 || rec.BindingSamples != reprobench.BindingSamples {
		t.Errorf("provenance %s", res.Metadata.Provenance)
	}
	for i, k := range rec.Ranks {
		if k.Samples != 6 || k.Migrations != 0 || k.MaskStart != k.MaskEnd || len(k.CPUs) != 1 || k.CPUs[0] != i {
			t.Errorf("rank %d: %+v, want 6 samples on CPU %d", i, k, i)
		}
	}
	if slicesContain(notes, "binding") {
		t.Errorf("notes %q", notes)
	}
}
