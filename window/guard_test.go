package window_test

import (
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/reprobench/reprobench/mpi"
	"github.com/reprobench/reprobench/mpi/mpitest"
	"github.com/reprobench/reprobench/noiseguard"
	"github.com/reprobench/reprobench/window"
)

// runGuarded runs n observations of an 8-byte allreduce under cfg with the
// noise guard on, one NoiseGuard per rank with the world's nodes, and
// returns rank 0's Record and guard.
func runGuarded(t *testing.T, w *mpitest.World, cfg window.Config, n int) (*window.Record, *window.NoiseGuard) {
	t.Helper()
	cfg.NoiseGuard = true
	nodes := make([]int, w.Size())
	for r := range nodes {
		nodes[r] = w.Node(r)
	}
	var rec0 *window.Record
	var g0 *window.NoiseGuard
	err := w.Run(func(r *mpitest.Rank) error {
		c := r.Comm()
		s, err := window.New(c, r.Clock(), truth{w, c.Rank()}, cfg)
		if err != nil {
			return err
		}
		if s.Guard, err = window.NewNoiseGuard(nodes, noiseguard.Config{}); err != nil {
			return err
		}
		o := &mpi.Observation{Call: mpi.CallAllreduce, Send: make([]byte, 8), Recv: make([]byte, 8), Count: 1, Type: mpi.Float64}
		rec := window.NewRecord(cfg.Capacity(n))
		if err := s.Run(o, n, rec, false); err != nil {
			return err
		}
		if c.Rank() == 0 {
			rec0, g0 = rec, s.Guard
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return rec0, g0
}

// lateAfter is the late share of the observations from index from on.
func lateAfter(rec *window.Record, from int) float64 {
	late := 0
	for i := from; i < rec.N; i++ {
		if rec.Code[i]&window.CodeLate != 0 {
			late++
		}
	}
	return float64(late) / float64(rec.N-from)
}

// checkLearned compares rank 0's sources of node with the true detours of
// the last 10 ms of the run: each true detour must lie inside a predicted
// one widened by 10 µs. (A prediction off by less than the guard before a
// start, 5 µs, keeps every start out of the true detour; one off by more
// lets a few starts in at its edge, whose late events then correct it. A
// period fitted to 0.2 s of events may be off by a few ns, which adds up to
// several µs over the seconds in which the guard leaves no late events.)
func checkLearned(t *testing.T, w *mpitest.World, g *window.NoiseGuard, node int, at float64) {
	t.Helper()
	src := g.Sources()[node]
	for _, d := range w.Detours(node, at-10e-3, at) {
		ok := false
		for _, s := range src {
			k := math.Round((d[1] - s.EndS) / s.PeriodS)
			end := s.EndS + k*s.PeriodS
			if d[1] <= end+10e-6 && d[0] >= end-s.DurationS-10e-6 {
				ok = true
			}
		}
		if !ok {
			t.Errorf("node %d: true detour [%.6f, %.6f] is not predicted by %+v", node, d[0], d[1], src)
			return
		}
	}
}

func TestNoiseGuardAvoidsTheTick(t *testing.T) {
	w := noisyWorld(t, 2, 0, 3, func(int) []mpitest.PeriodicNoise { return []mpitest.PeriodicNoise{tick} })
	cfg := window.Config{Method: window.Fixed, Window: 100 * time.Microsecond}
	const n = 20000
	rec, g := runGuarded(t, w, cfg, n)
	_, from, to := lateShare(w, rec)
	truthShare := w.LateShare(from, to, 1e-6)
	all, tail := lateAfter(rec, 0), lateAfter(rec, n/4)
	slots, skipped := g.Slots()
	t.Logf("late share %.4f (after the first quarter %.4f), unguarded ground truth %.4f; %d of %d slots skipped; sources %+v",
		all, tail, truthShare, skipped, slots, g.Sources())
	if rec.N != n {
		t.Errorf("%d observations, want %d (a skipped slot must cost time, not observations)", rec.N, n)
	}
	if tail > 0.001 || all > truthShare/4 {
		t.Errorf("late share %.4f overall, %.4f after learning; without the guard %.4f", all, tail, truthShare)
	}
	if share := float64(skipped) / float64(slots); share > 0.1 || share < 0.02 {
		t.Errorf("%.3f of the slots skipped, want about (35+5+2 µs)/1 ms", share)
	}
	checkLearned(t, w, g, 0, to)
}

// The second source of the issue: its phase moves 50 µs every 2 s. The
// guard follows it over 4 s.
func TestNoiseGuardFollowsADriftingPhase(t *testing.T) {
	drifting := mpitest.PeriodicNoise{Period: time.Millisecond, Phase: 800 * time.Microsecond,
		Duration: 30 * time.Microsecond, Drift: 25e-6}
	w := noisyWorld(t, 2, 0, 4, func(int) []mpitest.PeriodicNoise { return []mpitest.PeriodicNoise{drifting} })
	cfg := window.Config{Method: window.Fixed, Window: 100 * time.Microsecond}
	const n = 40000
	rec, g := runGuarded(t, w, cfg, n)
	_, from, to := lateShare(w, rec)
	truthShare := w.LateShare(from, to, 1e-6)
	tail := lateAfter(rec, n/4)
	t.Logf("late share after the first quarter %.4f, unguarded ground truth %.4f, over %.2f s; sources %+v",
		tail, truthShare, to-from, g.Sources())
	if to-from < 4 {
		t.Fatalf("the run lasted %.2f s, want 4 s or more to see the phase move 100 µs", to-from)
	}
	if tail > 0.002 {
		t.Errorf("late share %.4f after learning; without the guard %.4f", tail, truthShare)
	}
	checkLearned(t, w, g, 0, to)
}

// Two nodes with different noise, one of them with two sources at once.
func TestNoiseGuardTwoSourcesTwoNodes(t *testing.T) {
	w := noisyWorld(t, 4, 2, 5, func(node int) []mpitest.PeriodicNoise {
		if node == 0 {
			return []mpitest.PeriodicNoise{tick, {Period: 1700 * time.Microsecond, Phase: 300 * time.Microsecond,
				Duration: 20 * time.Microsecond, Prob: 0.7}}
		}
		return []mpitest.PeriodicNoise{{Period: 4 * time.Millisecond, Phase: 2 * time.Millisecond, Duration: 60 * time.Microsecond}}
	})
	cfg := window.Config{Method: window.Fixed, Window: 100 * time.Microsecond}
	const n = 30000
	rec, g := runGuarded(t, w, cfg, n)
	_, from, to := lateShare(w, rec)
	truthShare := w.LateShare(from, to, 1e-6)
	tail := lateAfter(rec, n/3)
	t.Logf("late share after the first third %.4f, unguarded ground truth %.4f; sources %+v", tail, truthShare, g.Sources())
	if tail > 0.002 {
		t.Errorf("late share %.4f after learning; without the guard %.4f", tail, truthShare)
	}
	checkLearned(t, w, g, 0, to)
	checkLearned(t, w, g, 1, to)
}

// Every windowed method uses the guard: the adaptive policies and
// round-time too.
func TestNoiseGuardEveryWindowedMethod(t *testing.T) {
	for _, m := range []window.Method{window.AdaptiveSKaMPI, window.AdaptiveNBCBench, window.RoundTime} {
		t.Run(m.String(), func(t *testing.T) {
			w := noisyWorld(t, 2, 0, 6, func(int) []mpitest.PeriodicNoise { return []mpitest.PeriodicNoise{tick} })
			cfg := window.Config{Method: m, Window: 100 * time.Microsecond}
			const n = 8000
			rec, g := runGuarded(t, w, cfg, n)
			_, from, to := lateShare(w, rec)
			truthShare := w.LateShare(from, to, 1e-6)
			tail := lateAfter(rec, rec.N/2)
			slots, skipped := g.Slots()
			t.Logf("%d attempts, late share of the second half %.4f, unguarded ground truth %.4f; %d of %d slots skipped",
				rec.N, tail, truthShare, skipped, slots)
			if tail > 0.002 || truthShare < 0.02 {
				t.Errorf("late share %.4f after learning; without the guard %.4f", tail, truthShare)
			}
			if skipped == 0 {
				t.Error("no slot skipped")
			}
		})
	}
}

// Seeded with the tick (as from "reprobench noise --json"), the guard
// avoids it from the first batch on.
func TestNoiseGuardSeeded(t *testing.T) {
	w := noisyWorld(t, 2, 0, 7, func(int) []mpitest.PeriodicNoise { return []mpitest.PeriodicNoise{tick} })
	cfg := window.Config{Method: window.Fixed, Window: 100 * time.Microsecond, NoiseGuard: true}
	const n = 5000
	var rec0 *window.Record
	err := w.Run(func(r *mpitest.Rank) error {
		c := r.Comm()
		s, err := window.New(c, r.Clock(), truth{w, c.Rank()}, cfg)
		if err != nil {
			return err
		}
		// The tick in true (= global) time: detours end at 1005 µs past
		// each millisecond.
		if err := s.Guard.Seed(0, []noiseguard.Source{{PeriodS: 1e-3, DurationS: 36.5e-6, EndS: 1.005e-3}}); err != nil {
			return err
		}
		if err := s.Guard.Seed(1, nil); err == nil {
			return fmt.Errorf("node 1 of a one-node guard accepted")
		}
		o := &mpi.Observation{Call: mpi.CallAllreduce, Send: make([]byte, 8), Recv: make([]byte, 8), Count: 1, Type: mpi.Float64}
		rec := window.NewRecord(n)
		if err := s.Run(o, n, rec, false); err != nil {
			return err
		}
		if c.Rank() == 0 {
			rec0 = rec
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if first := lateAfter(&window.Record{N: 500, Code: rec0.Code}, 0); first > 0 {
		t.Errorf("late share of the first 500 observations %.4f, want 0 with the seeded tick", first)
	}
	if all := lateAfter(rec0, 0); all > 0.001 {
		t.Errorf("late share %.4f", all)
	}
}
