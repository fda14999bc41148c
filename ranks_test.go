package reprobench_test

import (
	"slices"
	"testing"
	"time"

	"github.com/reprobench/reprobench"
	"github.com/reprobench/reprobench/clocksync"
	"github.com/reprobench/reprobench/completion"
	"github.com/reprobench/reprobench/mpi/mpitest"
	"github.com/reprobench/reprobench/window"
)

// TestClockAccuracy: the default target of a run is the smallest late
// tolerance (at most a tenth of a window) of the experiments that
// synchronize clocks, at the longest expected experiment (whole seconds, at
// least 1 s); none without such experiments.
func TestClockAccuracy(t *testing.T) {
	win := func(m window.Method, w, tol time.Duration, nrep int) reprobench.Experiment {
		return reprobench.Experiment{ClockSync: "hca3", Nrep: nrep, Warmup: 100,
			Sync: window.Config{Method: m, Window: w, LateTolerance: tol}}
	}
	for _, c := range []struct {
		name string
		exps []reprobench.Experiment
		want clocksync.Accuracy
	}{
		{"window", []reprobench.Experiment{win(window.Fixed, 100*time.Microsecond, time.Microsecond, 1000)}, clocksync.Accuracy{Error: time.Microsecond, Horizon: time.Second}},
		{"default tolerance", []reprobench.Experiment{win(window.Fixed, 0, 0, 1000)}, clocksync.Accuracy{Error: time.Microsecond, Horizon: time.Second}},
		{"small window", []reprobench.Experiment{win(window.Fixed, 5*time.Microsecond, time.Microsecond, 1000)}, clocksync.Accuracy{Error: 500 * time.Nanosecond, Horizon: time.Second}},
		{"long experiment", []reprobench.Experiment{win(window.Fixed, 100*time.Microsecond, time.Microsecond, 100000)}, clocksync.Accuracy{Error: time.Microsecond, Horizon: 11 * time.Second}},
		{"round-time budget", []reprobench.Experiment{win(window.RoundTime, 0, 2*time.Microsecond, 100)}, clocksync.Accuracy{Error: 2 * time.Microsecond, Horizon: 10 * time.Second}},
		{"global runtime", []reprobench.Experiment{{ClockSync: "hca3", Runtime: completion.Global, Sync: window.Config{LateTolerance: 3 * time.Microsecond}}}, clocksync.Accuracy{Error: 3 * time.Microsecond, Horizon: time.Second}},
		{"smallest error, longest horizon", []reprobench.Experiment{win(window.Fixed, 100*time.Microsecond, 2*time.Microsecond, 30000),
			win(window.AdaptiveSKaMPI, 100*time.Microsecond, 500*time.Nanosecond, 1000)}, clocksync.Accuracy{Error: 500 * time.Nanosecond, Horizon: 4 * time.Second}},
		{"no clock sync", []reprobench.Experiment{{ClockSync: "none"}}, clocksync.Accuracy{}},
	} {
		got, why := reprobench.ClockAccuracy(c.exps)
		if got != c.want || (why == "") != got.IsZero() {
			t.Errorf("%s: %v (%q), want %v", c.name, got, why, c.want)
		}
	}
}

// TestNewResyncDefault: a spec without fixed counts learns to the run's
// default target and is re-synchronized when its bound says so; a
// fixed-count spec before every experiment; a change of spec always
// re-synchronizes, so every experiment runs on its own algorithm.
func TestNewResyncDefault(t *testing.T) {
	w, err := mpitest.New(mpitest.Config{Ranks: 2, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	specs := []string{"hca3", "hca3", "hca3:accuracy=none", "hca3:fitpts=50,exchanges=10", "hca3:fitpts=50,exchanges=10", "hca3"}
	type sync struct {
		exp            int
		target, reason string
	}
	var got []sync
	err = w.Run(func(r *mpitest.Rank) error {
		g := clocksync.NewGlobalClock(r.Clock())
		resync, err := reprobench.NewResync(r.Comm(), g, reprobench.ResyncOptions{Default: clocksync.Accuracy{Error: time.Microsecond, Horizon: time.Second},
			Record: func(ex *reprobench.Experiment, res *clocksync.Result, reason string) {
				if r.ID() == 0 {
					got = append(got, sync{ex.Exp, res.Target, reason})
				}
			}})
		if err != nil {
			return err
		}
		for i, s := range specs {
			if err := resync(&reprobench.Experiment{Exp: i, ClockSync: s}); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	want := []sync{{0, "1µs@1s", "first synchronization"}, {2, "", "the experiment's clock sync differs from the last one"},
		{3, "", "the experiment's clock sync differs from the last one"}, {4, "", "before every experiment (fixed counts)"},
		{5, "1µs@1s", "the experiment's clock sync differs from the last one"}}
	if !slices.Equal(got, want) {
		t.Errorf("syncs %v, want %v", got, want)
	}
	if _, err := reprobench.NewResync(nil, nil, reprobench.ResyncOptions{Accuracy: "1us"}); err == nil {
		t.Error("a malformed --clock-accuracy was accepted")
	}
}

// TestNewResyncOnSimulatedTime: the resync reads elapsed time on the ranks'
// clock, so on a simulated world (virtual time) its decisions follow the
// simulated time and repeat exactly. Every: with 0.6 s of simulated time
// between experiments and a 1 s period, rank 0 decides and every other
// experiment synchronizes, although rank 1's sleeps differ (all ranks take
// rank 0's word). Learned target: a bound that runs out after the simulated
// sleeps is renewed; wall-clock time (microseconds here) would never renew it.
func TestNewResyncOnSimulatedTime(t *testing.T) {
	run := func(opt reprobench.ResyncOptions, spec string, sleep time.Duration) []int {
		w, err := mpitest.New(mpitest.Config{Ranks: 2, Seed: 5})
		if err != nil {
			t.Fatal(err)
		}
		var got []int
		opt.Record = nil
		err = w.Run(func(r *mpitest.Rank) error {
			g := clocksync.NewGlobalClock(r.Clock())
			o := opt
			o.Record = func(ex *reprobench.Experiment, _ *clocksync.Result, _ string) {
				if r.ID() == 0 {
					got = append(got, ex.Exp)
				}
			}
			resync, err := reprobench.NewResync(r.Comm(), g, o)
			if err != nil {
				return err
			}
			for i := range 6 {
				if err := resync(&reprobench.Experiment{Exp: i, ClockSync: spec}); err != nil {
					return err
				}
				r.Sleep(sleep + time.Duration(r.ID())*sleep/2)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		return got
	}
	every := reprobench.ResyncOptions{Every: time.Second}
	fixed := "hca3:fitpts=20,exchanges=5"
	if got, want := run(every, fixed, 600*time.Millisecond), []int{0, 2, 4}; !slices.Equal(got, want) {
		t.Errorf("every 1 s, 0.6 s apart: synchronized before %v, want %v", got, want)
	}
	if got := run(every, fixed, time.Millisecond); !slices.Equal(got, []int{0}) {
		t.Errorf("every 1 s, 1 ms apart: synchronized before %v, want [0]", got)
	}
	learned := reprobench.ResyncOptions{Default: clocksync.Accuracy{Error: time.Microsecond, Horizon: time.Second}}
	if got, want := run(learned, "hca3", 30*time.Second), []int{0, 1, 2, 3, 4, 5}; !slices.Equal(got, want) {
		t.Errorf("learned 1µs@1s, 30 s apart: synchronized before %v, want %v", got, want)
	}
	if a, b := run(learned, "hca3", 50*time.Millisecond), run(learned, "hca3", 50*time.Millisecond); !slices.Equal(a, b) {
		t.Errorf("learned 1µs@1s, 50 ms apart: the same world synchronized before %v and before %v", a, b)
	}
}
