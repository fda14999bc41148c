package window_test

import (
	"errors"
	"testing"

	"github.com/reprobench/reprobench/clocksync"
	"github.com/reprobench/reprobench/mpi/mpitest"
	"github.com/reprobench/reprobench/window"
)

// TestNilGlobalClockPointer: a nil *clocksync.GlobalClock passed as the
// GlobalClock interface means "no global clock" everywhere (it used to
// panic inside ToGlobal).
func TestNilGlobalClockPointer(t *testing.T) {
	var g *clocksync.GlobalClock
	if !window.Absent(g) || !window.Absent(nil) || window.Absent(window.Identity{}) {
		t.Fatal("Absent")
	}
	w, err := mpitest.New(mpitest.Config{Ranks: 2, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	err = w.Run(func(r *mpitest.Rank) error {
		if _, err := window.New(r.Comm(), r.Clock(), g, window.Config{Method: window.Fixed}); !errors.Is(err, window.ErrNoGlobalClock) {
			t.Errorf("New with a nil *GlobalClock: %v, want ErrNoGlobalClock", err)
		}
		skew, err := window.BarrierExitSkew(r.Comm(), r.Clock(), g, window.Barrier, 3)
		if err != nil {
			return err
		}
		if r.ID() == 0 && len(skew) != 3 {
			t.Errorf("skews %v", skew)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
