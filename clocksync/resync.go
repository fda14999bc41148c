package clocksync

import (
	"fmt"
	"time"

	"github.com/reprobench/reprobench/mpi"
	"github.com/reprobench/reprobench/timing"
)

// Resyncer decides when to re-synchronize by the predicted bound: before an experiment it asks whether the last synchronization's
// bound, at the moment the experiment is expected to end, would exceed the
// target. The expected duration is the time since the previous call (the
// previous experiment's duration), at least MinExpected. Rank 0 decides and
// broadcasts, so every rank agrees. Elapsed times are read on Clock (the
// wall clock when nil), so that on a simulated world, whose clock is
// virtual, the decisions are as deterministic as the world.
//
// A synchronization whose bound is unknown (offset-only algorithms, ranks
// descheduled during it) is always renewed.
type Resyncer struct {
	Target Accuracy
	// MinExpected is the shortest duration assumed for an experiment
	// (default 0).
	MinExpected time.Duration
	// Clock measures the time between calls: the rank's local clock (the
	// base of the global clock being synchronized); nil is the wall clock.
	Clock timing.Clock

	last     *Result
	lastEnd  time.Duration
	prevCall time.Duration
	called   bool
}

// wallEpoch is the origin of the elapsed times read without a Clock.
var wallEpoch = time.Now()

// now returns the time elapsed on r.Clock since its epoch (or on the wall
// clock since the package's start).
func (r *Resyncer) now() time.Duration {
	if r.Clock == nil {
		return time.Since(wallEpoch)
	}
	return r.Clock.Freq().Duration(r.Clock.Now())
}

// Due reports collectively on c whether a re-synchronization is due now,
// and why (for the metadata). Call it before every experiment; call Synced
// after each synchronization.
func (r *Resyncer) Due(c mpi.Comm) (bool, string, error) {
	now := r.now()
	due, reason := true, "first synchronization"
	if c.Rank() == 0 {
		expected := r.MinExpected
		if r.called {
			expected = max(expected, now-r.prevCall)
		}
		if r.last != nil {
			h := now - r.lastEnd + expected
			b := r.last.Bound.At(h.Seconds())
			switch {
			case r.last.Bound.Unknown:
				reason = "the last synchronization has no bound (" + r.last.Bound.Why + ")"
			case b > r.Target.Error.Seconds():
				reason = fmt.Sprintf("predicted bound %s at the expected end of the experiment (%s after the last sync) exceeds the target %s",
					fmtDur(b), h.Round(time.Millisecond), r.Target.Error)
			default:
				due, reason = false, ""
			}
		}
	}
	r.prevCall, r.called = now, true
	v := []float64{0}
	if due {
		v[0] = 1
	}
	if err := mpi.Bcast(c, v, 0); err != nil {
		return false, "", err
	}
	return v[0] != 0, reason, nil
}

// Synced records a synchronization that just ended (its Result on rank 0;
// other ranks may pass theirs). It reads Clock once.
func (r *Resyncer) Synced(res *Result) {
	r.last, r.lastEnd = res, r.now()
}
