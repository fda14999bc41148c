package reprobench_test

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/reprobench/reprobench"
	"github.com/reprobench/reprobench/cache"
	"github.com/reprobench/reprobench/clocksync"
	"github.com/reprobench/reprobench/completion"
	"github.com/reprobench/reprobench/factor"
	"github.com/reprobench/reprobench/mpi"
	"github.com/reprobench/reprobench/mpi/mpitest"
	"github.com/reprobench/reprobench/timing"
	"github.com/reprobench/reprobench/window"
)

// TestFuncExperiment measures a user's function — rank r computes for
// (r+1) µs — as experiments of the engine, and checks the rows against
// ground truth: the local completion time is the slowest rank's work plus
// the one clock read between its timestamps; the global one is the true
// span from the earliest start to the latest end.
func TestFuncExperiment(t *testing.T) {
	const ranks, nrep = 4, 30
	w, err := mpitest.New(mpitest.Config{Ranks: ranks, Seed: 7})
	if err != nil {
		t.Fatal(err)
	}
	sink := &memSink{}
	err = w.Run(func(r *mpitest.Rank) error {
		c, clk := r.Comm(), r.Clock()
		g := clocksync.NewGlobalClock(clk)
		sp, err := clocksync.ParseSpec("hca3:fitpts=50,exchanges=10")
		if err != nil {
			return err
		}
		alg, err := sp.New()
		if err != nil {
			return err
		}
		work := func() error { r.Sleep(time.Duration(r.ID()+1) * time.Microsecond); return nil }
		exps := []reprobench.Experiment{
			{Exp: 0, Func: work, Name: "compute", MsizeBytes: 64, Type: mpi.Float64, Nrep: nrep, Warmup: 5,
				Sync: window.Config{Method: window.Barrier}, Runtime: completion.Local},
			{Exp: 1, Func: work, Name: "compute", MsizeBytes: 64, Type: mpi.Float64, Nrep: nrep,
				Sync: window.Config{Method: window.Fixed, Window: 20 * time.Microsecond}, Runtime: completion.Global},
		}
		e := &reprobench.Engine{Comm: c, Clock: clk, Global: g, PerRank: true,
			Resync: func(*reprobench.Experiment) error { _, err := alg.Sync(c, g); return err }}
		var s reprobench.Sink
		if c.Rank() == 0 {
			s = sink
		}
		_, err = e.Run(exps, s)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(sink.rows) != 2*nrep || len(sink.ranks) != 2*nrep*ranks || len(sink.sums) != 2 {
		t.Fatalf("%d rows, %d per-rank rows, %d summaries", len(sink.rows), len(sink.ranks), len(sink.sums))
	}
	read := mpitest.DefaultOverhead.Seconds()
	for _, row := range sink.rows {
		if row.Call != "compute" || row.Datatype != "float64" || row.MsizeBytes != 64 || row.Count != 8 || row.Np != ranks || row.ErrorCode != 0 {
			t.Fatalf("row %+v", row)
		}
		switch row.Exp {
		case 0: // the slowest rank: 4 µs and one read
			if want := ranks*1e-6 + read; math.Abs(row.RuntimeS-want) > 2e-9 {
				t.Errorf("local rep %d: %g s, want %g s", row.Rep, row.RuntimeS, want)
			}
		case 1:
			lo, hi := math.Inf(1), math.Inf(-1)
			for _, rr := range sink.ranks {
				if rr.Exp == 1 && rr.Rep == row.Rep {
					lo = min(lo, w.TrueTime(rr.Rank, timing.Ticks(math.Round(rr.LocalStartS*1e9))))
					hi = max(hi, w.TrueTime(rr.Rank, timing.Ticks(math.Round(rr.LocalEndS*1e9))))
				}
			}
			if math.Abs(row.RuntimeS-(hi-lo)) > 100e-9 || row.RuntimeS < ranks*1e-6 {
				t.Errorf("global rep %d: %g s, true span %g s", row.Rep, row.RuntimeS, hi-lo)
			}
		}
	}
	if s := sink.sums[1]; s.Call != "compute" || s.Method != "window" || s.RuntimeType != "global" || s.Rows != nrep {
		t.Errorf("summary %+v", s)
	}
}

// TestFuncExperimentRefused: a function's experiment refuses a built-in
// call's name, a looping runtime type, a cache mode and an empty name.
func TestFuncExperimentRefused(t *testing.T) {
	work := func() error { return nil }
	for _, c := range []struct {
		ex   reprobench.Experiment
		want string
	}{
		{reprobench.Experiment{Func: work, Name: "MPI_Allreduce", Nrep: 1}, "built-in"},
		{reprobench.Experiment{Func: work, Name: "f", Nrep: 1, Runtime: completion.Loop}, "runtime type"},
		{reprobench.Experiment{Func: work, Name: "f", Nrep: 1, Cache: cache.Cold}, "cache"},
		{reprobench.Experiment{Func: work, Name: "", Nrep: 1}, "name"},
		{reprobench.Experiment{Func: work, Name: "a,b", Nrep: 1}, "comma"},
		{reprobench.Experiment{Func: work, Name: "f", Nrep: 0}, "nrep"},
	} {
		if err := c.ex.Check(2); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: err %v, want one saying %q", c.ex, err, c.want)
		}
	}
	ex := reprobench.Experiment{Func: work, Name: "halo", Type: mpi.Float64, MsizeBytes: 16, Nrep: 1}
	if err := ex.Check(2); err != nil || ex.CallName() != "halo" || ex.Raw().Factors.Text(factor.RuntimeType) != "local" {
		t.Errorf("valid function experiment: %v, name %q, raw %+v", err, ex.CallName(), ex.Raw())
	}
}
