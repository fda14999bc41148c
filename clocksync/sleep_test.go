package clocksync_test

import (
	"testing"
	"time"

	"github.com/reprobench/reprobench/clocksync"
	"github.com/reprobench/reprobench/mpi/mpitest"
)

// TestSimulationWaitsInVirtualTime: a Spread learner spacing its fit points
// over seconds and a Harness checking an hour later, both without a Sleep
// option, wait in the simulation's virtual time (forgetting
// SyncOptions{Sleep: r.Sleep} sleeps in real time).
func TestSimulationWaitsInVirtualTime(t *testing.T) {
	sp, err := clocksync.ParseSpec("hca3", clocksync.TargetText("1us@10s"))
	if err != nil {
		t.Fatal(err)
	}
	alg, err := sp.New()
	if err != nil {
		t.Fatal(err)
	}
	w, err := mpitest.New(mpitest.Config{Ranks: 4, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	var checkedAt float64
	err = w.Run(func(r *mpitest.Rank) error {
		g := clocksync.NewGlobalClock(r.Clock())
		res, err := alg.Sync(r.Comm(), g)
		if err != nil {
			return err
		}
		h := &clocksync.Harness{After: []time.Duration{time.Hour}, TrueNow: r.TrueNow, ClockAt: w.ClockAt, Models: res.Models()}
		if _, err := h.Run(r.Comm(), g); err != nil {
			return err
		}
		if r.ID() == 0 {
			checkedAt = r.TrueNow()
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if real := time.Since(start); real > 30*time.Second || checkedAt < 3600 {
		t.Errorf("checked at virtual %.0f s after %v of real time; want ≥ 3600 s virtual in far less real time", checkedAt, real)
	}
}
