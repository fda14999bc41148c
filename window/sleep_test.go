package window_test

import (
	"testing"
	"time"

	"github.com/reprobench/reprobench/mpi"
	"github.com/reprobench/reprobench/mpi/mpitest"
	"github.com/reprobench/reprobench/window"
)

// TestSleepGuardSimulatedWithoutSleep: with a sleep guard and no Sync.Sleep,
// ranks of a simulated world wait for one-second windows in virtual time
// (the clock is a timing.Sleeper), not in real time.
func TestSleepGuardSimulatedWithoutSleep(t *testing.T) {
	w := newWorld(t, 2, 5)
	cfg := window.Config{Method: window.Fixed, Window: time.Second, SleepGuard: time.Millisecond}
	const n = 10
	start := time.Now()
	var trueEnd float64
	err := w.Run(func(r *mpitest.Rank) error {
		c := r.Comm()
		s, err := window.New(c, r.Clock(), truth{w, c.Rank()}, cfg)
		if err != nil {
			return err
		}
		o := &mpi.Observation{Call: mpi.CallBarrier}
		rec := window.NewRecord(cfg.Capacity(n))
		if err := s.Run(o, n, rec, false); err != nil {
			return err
		}
		if c.Rank() == 0 {
			trueEnd = r.TrueNow()
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	// Sleeping for real through the windows takes at least n-1 seconds under
	// any load; the simulated run takes milliseconds of CPU.
	if real := time.Since(start); trueEnd < n-1 || real > (n-2)*time.Second {
		t.Errorf("%d one-second windows ended at virtual %.1f s after %v of real time", n, trueEnd, real)
	}
}
