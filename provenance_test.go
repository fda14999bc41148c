package reprobench_test

import (
	"encoding/json"
	"fmt"
	"slices"
	"testing"

	"github.com/reprobench/reprobench"
	"github.com/reprobench/reprobench/analysis"
	"github.com/reprobench/reprobench/mpi"
	"github.com/reprobench/reprobench/mpi/mpitest"
	"github.com/reprobench/reprobench/provenance"
	"github.com/reprobench/reprobench/window"
)

// A simulated run's sidecar carries the provenance record with the
// simulator's fake values, every rank's CPU sampled at the start, before
// and after each batch of measured observations (one per experiment here)
// and at the end (1 + 2 batches × 2 + 1 = 6 samples), and no binding note
// (each simulated rank has its own CPU).
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
	if !rec.Simulated || rec.Library != "simulated" || len(rec.Ranks) != 2 || rec.BindingSamples != reprobench.BindingSamplesForTest {
		t.Errorf("provenance %s", res.Metadata.Provenance)
	}
	for i, k := range rec.Ranks {
		if k.Samples != 6 || k.Batches != 2 || k.MovedBatches != 0 || k.Migrations != 0 || k.MaskStart != k.MaskEnd || len(k.CPUs) != 1 || k.CPUs[0] != i {
			t.Errorf("rank %d: %+v, want 6 samples on CPU %d", i, k, i)
		}
	}
	if slicesContain(notes, "binding") {
		t.Errorf("notes %q", notes)
	}
}

// The CPU is read before and after every batch of measured observations,
// not once per experiment: with fake readings in which rank 1 changes CPU
// at every reading (2, 3, 2, 3, …) and rank 0 stays on CPU 0, a fixed
// experiment (one batch) and an adaptive one whose stop rule cannot be met
// (one batch per look, Looks of them) leave each rank 2 + 2·batches
// samples; every one of rank 1's batches ended on another CPU than it
// began on, and the run notes rank 1's migrations with them. The warm-up
// is no batch.
func TestRunSamplesCPUPerBatch(t *testing.T) {
	defer reprobench.SetCPUReader(func(rank int) func() (int, string) {
		k := 0
		return func() (int, string) {
			k++
			if rank == 0 {
				return 0, "fake"
			}
			return 2 + k%2, "fake"
		}
	})()
	w, err := mpitest.New(mpitest.Config{Ranks: 2, Seed: 7})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	var res *reprobench.Result
	var notes []string
	err = w.Run(func(r *mpitest.Rank) error {
		exps := []reprobench.Experiment{
			{Exp: 0, Call: mpi.CallAllreduce, MsizeBytes: 8, Type: mpi.Float64, Nrep: 10, Warmup: 3, Sync: window.Config{Method: window.Barrier}},
			{Exp: 1, Call: mpi.CallBarrier, Sync: window.Config{Method: window.Barrier},
				Stop: &analysis.StopRule{Width: 1e-12, Min: 10, Max: 40}},
		}
		rr, err := reprobench.Run(r.Comm(), exps, reprobench.Options{Clock: r.Clock(), Dir: dir, RunID: "batches", NoClockSync: true,
			Note: func(m string) { notes = append(notes, m) }})
		if r.Comm().Rank() == 0 {
			res = rr
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	st := res.Metadata.Experiments[1].Stop
	if st == nil || st.Met || st.Looks < 2 {
		t.Fatalf("stop record %+v: want an unmet rule with several looks", st)
	}
	batches := 1 + st.Looks
	var rec provenance.Record
	if err := json.Unmarshal(res.Metadata.Provenance, &rec); err != nil {
		t.Fatal(err)
	}
	if rec.BindingSamples != reprobench.BindingSamplesForTest || len(rec.Ranks) != 2 {
		t.Fatalf("provenance %s", res.Metadata.Provenance)
	}
	samples := 2 + 2*batches
	r0, r1 := rec.Ranks[0], rec.Ranks[1]
	if r0.Samples != samples || r0.Batches != batches || r0.MovedBatches != 0 || r0.Migrations != 0 || !slices.Equal(r0.CPUs, []int{0}) {
		t.Errorf("rank 0: %+v, want %d samples and %d batches on CPU 0", r0, samples, batches)
	}
	if r1.Samples != samples || r1.Batches != batches || r1.MovedBatches != batches || r1.Migrations != samples-1 ||
		!slices.Equal(r1.CPUs, []int{2, 3}) || r1.CPUSource != "fake" {
		t.Errorf("rank 1: %+v, want %d samples, %d migrations, %d batches all moved, on CPUs 2 and 3", r1, samples, samples-1, batches)
	}
	want := fmt.Sprintf("NOTE: binding: rank 1 moved between CPUs 2 and 3 (%d migrations in %d samples; %d of %d batches moved)",
		samples-1, samples, batches, batches)
	if !slices.Contains(notes, want) {
		t.Errorf("notes %q, want %q", notes, want)
	}
}
