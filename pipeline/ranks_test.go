package pipeline_test

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/reprobench/reprobench/clocksync"
	"github.com/reprobench/reprobench/completion"
	"github.com/reprobench/reprobench/engine"
	"github.com/reprobench/reprobench/mpi/mpitest"
	"github.com/reprobench/reprobench/pipeline"
	"github.com/reprobench/reprobench/window"
)

// TestAgree: when any rank fails, every rank returns an error carrying the
// lowest failing rank's message; when none does, every rank returns nil.
func TestAgree(t *testing.T) {
	for _, failing := range [][]int{nil, {2}, {1, 3}, {0}} {
		w, err := mpitest.New(mpitest.Config{Ranks: 4, Seed: 1})
		if err != nil {
			t.Fatal(err)
		}
		got := make([]error, 4)
		err = w.Run(func(r *mpitest.Rank) error {
			var mine error
			for _, f := range failing {
				if f == r.ID() {
					mine = errors.New("disk full on " + string(rune('0'+r.ID())))
				}
			}
			got[r.ID()] = pipeline.Agree(r.Comm(), mine)
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		for rank, e := range got {
			switch {
			case len(failing) == 0 && e != nil:
				t.Errorf("no failure: rank %d got %v", rank, e)
			case len(failing) > 0 && (e == nil || !strings.Contains(e.Error(), "disk full on "+string(rune('0'+failing[0])))):
				t.Errorf("failing %v: rank %d got %v", failing, rank, e)
			}
		}
	}
}

// TestClockAccuracy: the default target of a run is the smallest late
// tolerance (at most a tenth of a window) of the experiments that
// synchronize clocks, at the longest expected experiment (whole seconds, at
// least 1 s); none without such experiments.
func TestClockAccuracy(t *testing.T) {
	win := func(m window.Method, w, tol time.Duration, nrep int) engine.Experiment {
		return engine.Experiment{ClockSync: "hca3", Nrep: nrep, Warmup: 100,
			Sync: window.Config{Method: m, Window: w, LateTolerance: tol}}
	}
	for _, c := range []struct {
		name string
		exps []engine.Experiment
		want clocksync.Accuracy
	}{
		{"window", []engine.Experiment{win(window.Fixed, 100*time.Microsecond, time.Microsecond, 1000)}, clocksync.Accuracy{Error: time.Microsecond, Horizon: time.Second}},
		{"default tolerance", []engine.Experiment{win(window.Fixed, 0, 0, 1000)}, clocksync.Accuracy{Error: time.Microsecond, Horizon: time.Second}},
		{"small window", []engine.Experiment{win(window.Fixed, 5*time.Microsecond, time.Microsecond, 1000)}, clocksync.Accuracy{Error: 500 * time.Nanosecond, Horizon: time.Second}},
		{"long experiment", []engine.Experiment{win(window.Fixed, 100*time.Microsecond, time.Microsecond, 100000)}, clocksync.Accuracy{Error: time.Microsecond, Horizon: 11 * time.Second}},
		{"round-time budget", []engine.Experiment{win(window.RoundTime, 0, 2*time.Microsecond, 100)}, clocksync.Accuracy{Error: 2 * time.Microsecond, Horizon: 10 * time.Second}},
		{"global runtime", []engine.Experiment{{ClockSync: "hca3", Runtime: completion.Global, Sync: window.Config{LateTolerance: 3 * time.Microsecond}}}, clocksync.Accuracy{Error: 3 * time.Microsecond, Horizon: time.Second}},
		{"smallest error, longest horizon", []engine.Experiment{win(window.Fixed, 100*time.Microsecond, 2*time.Microsecond, 30000),
			win(window.AdaptiveSKaMPI, 100*time.Microsecond, 500*time.Nanosecond, 1000)}, clocksync.Accuracy{Error: 500 * time.Nanosecond, Horizon: 4 * time.Second}},
		{"no clock sync", []engine.Experiment{{ClockSync: "none"}}, clocksync.Accuracy{}},
	} {
		got, why := pipeline.ClockAccuracy(c.exps)
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
		resync, err := pipeline.NewResync(r.Comm(), g, pipeline.ResyncOptions{Default: clocksync.Accuracy{Error: time.Microsecond, Horizon: time.Second},
			Record: func(ex *engine.Experiment, res *clocksync.Result, reason string) {
				if r.ID() == 0 {
					got = append(got, sync{ex.Exp, res.Target, reason})
				}
			}})
		if err != nil {
			return err
		}
		for i, s := range specs {
			if err := resync(&engine.Experiment{Exp: i, ClockSync: s}); err != nil {
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
	if _, err := pipeline.NewResync(nil, nil, pipeline.ResyncOptions{Accuracy: "1us"}); err == nil {
		t.Error("a malformed --clock-accuracy was accepted")
	}
}

// TestCheckLaunch: every rank stops when the launcher declared another
// size than the communicator's, also when only one rank's environment
// says so (the ranks agree), and the node-local counts are compared with
// the ranks of this node (mpitest's RanksPerNode).
func TestCheckLaunch(t *testing.T) {
	for _, c := range []struct {
		name string
		env  func(rank int) map[string]string
		bad  bool
	}{
		{"none declared", func(int) map[string]string { return nil }, false},
		{"mpirun 4", func(int) map[string]string {
			return map[string]string{"OMPI_COMM_WORLD_SIZE": "4", "OMPI_COMM_WORLD_LOCAL_SIZE": "2"}
		}, false},
		{"hydra 8", func(int) map[string]string { return map[string]string{"PMI_SIZE": "8", "MPI_LOCALNRANKS": "2"} }, true},
		{"node count wrong", func(int) map[string]string { return map[string]string{"PMI_SIZE": "4", "MPI_LOCALNRANKS": "4"} }, true},
		{"rank 3 only", func(r int) map[string]string {
			if r == 3 {
				return map[string]string{"RB_EXPECT_NP": "2"}
			}
			return nil
		}, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			w, err := mpitest.New(mpitest.Config{Ranks: 4, RanksPerNode: 2, Seed: 1})
			if err != nil {
				t.Fatal(err)
			}
			got := make([]error, 4)
			err = w.Run(func(r *mpitest.Rank) error {
				env := c.env(r.ID())
				got[r.ID()] = pipeline.CheckLaunch(r.Comm(), func(k string) string { return env[k] })
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			for rank, e := range got {
				if (e != nil) != c.bad || (e != nil && !strings.Contains(e.Error(), "did not join one MPI job")) {
					t.Errorf("rank %d: %v, want refused %v", rank, e, c.bad)
				}
			}
		})
	}
}
