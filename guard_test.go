package reprobench_test

import (
	"math"
	"testing"
	"time"

	"github.com/reprobench/reprobench"
	"github.com/reprobench/reprobench/clocksync"
	"github.com/reprobench/reprobench/factor"
	"github.com/reprobench/reprobench/mpi"
	"github.com/reprobench/reprobench/mpi/mpitest"
	"github.com/reprobench/reprobench/window"
)

// On a world with a 1 ms tick, the guarded window experiment loses far
// fewer observations than the unguarded one, its summary records the tick
// and the slots it skipped, and its raw factor is "on".
func TestNoiseGuardExperiment(t *testing.T) {
	w, err := mpitest.New(mpitest.Config{Ranks: 2, Seed: 3, Latency: mpitest.Latency{SpikeProb: -1},
		NodeNoise: func(int) []mpitest.PeriodicNoise {
			return []mpitest.PeriodicNoise{{Period: time.Millisecond, Phase: 970 * time.Microsecond, Duration: 35 * time.Microsecond}}
		}})
	if err != nil {
		t.Fatal(err)
	}
	mk := func(exp int, guard bool) reprobench.Experiment {
		return reprobench.Experiment{Exp: exp, Call: mpi.CallAllreduce, MsizeBytes: 8, Type: mpi.Float64, Nrep: 5000, Warmup: 1000,
			Sync: window.Config{Method: window.Fixed, Window: 100 * time.Microsecond, NoiseGuard: guard}}
	}
	exps := []reprobench.Experiment{mk(0, false), mk(1, true), mk(2, true)}
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
		e := &reprobench.Engine{Comm: c, Clock: clk, Global: g, Resync: func(*reprobench.Experiment) error { _, err := alg.Sync(c, g); return err }}
		var s reprobench.Sink
		if c.Rank() == 0 {
			s = sink
		}
		_, err = e.Run(append([]reprobench.Experiment(nil), exps...), s)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	off, on, again := sink.sums[0], sink.sums[1], sink.sums[2]
	t.Logf("invalid: unguarded %d, guarded %d then %d of 5000; guard %+v", off.Invalid, on.Invalid, again.Invalid, *again.NoiseGuard)
	if off.NoiseGuard != nil || on.NoiseGuard == nil || again.NoiseGuard == nil {
		t.Fatalf("noise guard records %v %v %v, want nil for the unguarded experiment only", off.NoiseGuard, on.NoiseGuard, again.NoiseGuard)
	}
	if off.Invalid < 100 || on.Invalid > off.Invalid/5 || again.Invalid > 25 {
		t.Errorf("invalid: unguarded %d, guarded %d and %d of 5000", off.Invalid, on.Invalid, again.Invalid)
	}
	g := again.NoiseGuard
	if len(g.Sources) == 0 || math.Abs(g.Sources[0].PeriodS-1e-3) > 1e-7 || math.Abs(g.Sources[0].DurationS-35e-6) > 4e-6 {
		t.Errorf("learned %+v, want the 1 ms tick of 35 µs", g.Sources)
	}
	if g.Slots < 5000 || g.SkippedSlots == 0 || math.Abs(g.SkippedShare-float64(g.SkippedSlots)/float64(g.Slots)) > 1e-12 {
		t.Errorf("slots %d, skipped %d (share %v)", g.Slots, g.SkippedSlots, g.SkippedShare)
	}
	for i, want := range []string{"off", "on", "on"} {
		if f := exps[i].Raw().Factors.Cell(factor.NoiseGuard); f != want {
			t.Errorf("experiment %d: raw factor noise_guard %q, want %q", i, f, want)
		}
	}
}
