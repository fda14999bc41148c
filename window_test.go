package reprobench_test

import (
	"encoding/csv"
	"os"
	"slices"
	"strconv"
	"testing"

	"github.com/reprobench/reprobench"
	"github.com/reprobench/reprobench/completion"
	"github.com/reprobench/reprobench/design"
	"github.com/reprobench/reprobench/factor"
	"github.com/reprobench/reprobench/mpi"
	"github.com/reprobench/reprobench/mpi/mpitest"
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
	var res *reprobench.Result
	err = w.Run(func(r *mpitest.Rank) error {
		exps := []reprobench.Experiment{
			{Exp: 0, Call: mpi.CallAllreduce, MsizeBytes: 8, Type: mpi.Float64, Nrep: 20, Sync: window.Config{Method: window.Fixed}},
			{Exp: 1, Call: mpi.CallAllreduce, MsizeBytes: 8, Type: mpi.Float64, Nrep: 20, Sync: window.Config{Method: window.Barrier}},
		}
		rr, err := reprobench.Run(r.Comm(), exps, reprobench.Options{Clock: r.Clock(), Dir: dir, RunID: "win"})
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

// TestAutoRuntime: with the default base, a design row's empty runtime cell
// takes the global completion time under a windowed method and the local
// one under a barrier method (Hunold & Carpen-Amarie 2016, §3.2.2); a
// runtime cell, or a base without AutoRuntime, decides instead.
func TestAutoRuntime(t *testing.T) {
	base := reprobench.DefaultBase()
	fixed := base
	fixed.AutoRuntime, fixed.Runtime = false, completion.Local
	for _, tc := range []struct {
		procsync, runtime string
		base              reprobench.Base
		want              completion.Type
	}{
		{"window", "", base, completion.Global},
		{"adaptive_skampi", "", base, completion.Global},
		{"roundtime", "", base, completion.Global},
		{"barrier", "", base, completion.Local},
		{"dissemination", "", base, completion.Local},
		{"", "", base, completion.Global}, // the base's window (reprobench.DefaultMethod)
		{"window", "local", base, completion.Local},
		{"barrier", "global", base, completion.Global},
		{"window", "", fixed, completion.Local},
	} {
		ex, err := reprobench.FromDesign(design.Experiment{Call: "MPI_Allreduce", MsizeBytes: 8,
			Factors: factor.Values{}.WithText(factor.ProcSync, tc.procsync).WithText(factor.RuntimeType, tc.runtime)}, tc.base, 1, 2)
		if err != nil {
			t.Fatal(err)
		}
		if ex.Runtime != tc.want {
			t.Errorf("procsync %q, runtime cell %q, auto %v: runtime %v, want %v", tc.procsync, tc.runtime, tc.base.AutoRuntime, ex.Runtime, tc.want)
		}
	}
	for _, m := range window.Methods() {
		if got := reprobench.DefaultExperiment(m).Runtime; got != reprobench.DefaultRuntime(m) || (got == completion.Global) != m.Windowed() {
			t.Errorf("DefaultExperiment(%v).Runtime = %v", m, got)
		}
	}
}

// TestPrepareIsSymmetric: Prepare gives every rank the same seed, run id
// and start time, with rank 0's draw, and its traffic — and that of
// ProcessorNames — is net-symmetric: as many messages from rank 0 to rank 1
// as back (no broadcast: one-way messages move hidden per-peer state of an
// MPI library). Bytes are not compared: the simulator builds its allgather
// from a gather and a broadcast, where a 2-rank MPI library exchanges.
func TestPrepareIsSymmetric(t *testing.T) {
	w, err := mpitest.New(mpitest.Config{Ranks: 2, Seed: 3, Log: true})
	if err != nil {
		t.Fatal(err)
	}
	got := make([]reprobench.Options, 2)
	names := make([][]string, 2)
	err = w.Run(func(r *mpitest.Rank) error {
		opt, err := reprobench.Prepare(r.Comm(), reprobench.DefaultOptions())
		if err != nil {
			return err
		}
		got[r.ID()] = opt
		names[r.ID()], err = reprobench.ProcessorNames(r.Comm())
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if got[0].Seed == nil || got[1].Seed == nil || *got[0].Seed != *got[1].Seed || got[0].RunID != got[1].RunID || got[0].RunID == "" {
		t.Errorf("ranks disagree: %+v vs %+v", got[0], got[1])
	}
	if len(names[0]) != 2 || names[0][0] != names[0][1] || names[1] != nil {
		t.Errorf("processor names %v and %v", names[0], names[1])
	}
	var n [2]int
	for _, m := range w.Log() {
		n[m.Src]++
	}
	if n[0] != n[1] || n[0] == 0 {
		t.Errorf("set-up traffic: %d messages 0→1, %d 1→0; want equal", n[0], n[1])
	}
	again, err := reprobench.Prepare(nil, got[0])
	if err == nil || again.Seed != got[0].Seed {
		t.Errorf("Prepare(nil): %v", err)
	}
}
