package pipeline_test

import (
	"encoding/csv"
	"os"
	"slices"
	"strconv"
	"testing"

	"github.com/reprobench/reprobench/engine"
	"github.com/reprobench/reprobench/mpi"
	"github.com/reprobench/reprobench/mpi/mpitest"
	"github.com/reprobench/reprobench/pipeline"
	"github.com/reprobench/reprobench/window"
)

// TestRawWindowIsTheWindowThatRan: an experiment whose window is left at
// zero runs at window's default, and its raw rows and summary say so
// (window_s 100 µs, not 0); a barrier experiment has no window.
func TestRawWindowIsTheWindowThatRan(t *testing.T) {
	dir := t.TempDir()
	w, err := mpitest.New(mpitest.Config{Ranks: 2, Seed: 5})
	if err != nil {
		t.Fatal(err)
	}
	var res *pipeline.Result
	err = w.Run(func(r *mpitest.Rank) error {
		exps := []engine.Experiment{
			{Exp: 0, Call: mpi.CallAllreduce, MsizeBytes: 8, Type: mpi.Float64, Nrep: 20, Sync: window.Config{Method: window.Fixed}},
			{Exp: 1, Call: mpi.CallAllreduce, MsizeBytes: 8, Type: mpi.Float64, Nrep: 20, Sync: window.Config{Method: window.Barrier}},
		}
		rr, err := pipeline.Run(r.Comm(), r.Clock(), exps, pipeline.Output{Dir: dir, RunID: "win"})
		if r.Comm().Rank() == 0 {
			res = rr
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	ran := window.Config{}.WithDefaults().Window.Seconds()
	if got := res.Summaries[0].InitialWindow; got != ran {
		t.Errorf("summary initial window %v s, want %v s", got, ran)
	}
	f, err := os.Open(res.Files.CSV)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	col, exp := slices.Index(recs[0], "window_s"), slices.Index(recs[0], "exp")
	if col < 0 || exp < 0 {
		t.Fatalf("no window_s or exp column in %v", recs[0])
	}
	for _, rec := range recs[1:] {
		want := ran
		if rec[exp] == "1" {
			want = 0
		}
		if got, err := strconv.ParseFloat(rec[col], 64); err != nil || got != want {
			t.Fatalf("exp %s: window_s %q, want %v", rec[exp], rec[col], want)
		}
	}
}
