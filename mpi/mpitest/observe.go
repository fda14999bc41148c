package mpitest

import (
	"fmt"
	"math"

	"github.com/reprobench/reprobench/mpi"
	"github.com/reprobench/reprobench/timing"
)

// Observe executes one timed observation in virtual time: the wait selected
// by o.Sync, o.Start = clk.Now(), max(o.Reps, 1) executions of o.Call
// (none with o.NoCall), and o.End = clk.Now(); with o.TimeEach, each execution is timed on its own
// and followed by a barrier when o.Call.EachBarrier(), and o.End = o.Start
// + the sum of the executions' durations (OSU's loops). clk should be the rank's clock or a clock derived from
// it (such as a synchronized global clock); a clock unrelated to the rank's
// virtual time makes SyncDeadline wait in real time.
//
// SyncDeadline behaves as the busy-wait loop `for clk.Now() < o.Deadline {}`
// would: the first timestamp is taken at the first read of that loop at or
// after the deadline, but the loop's reads are skipped in bulk rather than
// performed one by one.
//
// Every call runs as the binding runs it (mpi.Ops gives each row's
// semantics): Bcast broadcasts the root's o.Send into the other ranks'
// o.Recv; a ping-pong sends Count elements from o.Send of rank Root to rank
// Peer, which receives them into o.Recv and sends its own o.Send back; the
// other ranks only take the two timestamps.
func (c *comm) Observe(o *mpi.Observation, clk timing.Clock) error {
	const fn = "Observe"
	if err := c.check(fn); err != nil {
		return err
	}
	if clk == nil {
		return &mpi.Error{Func: fn, Code: -1, Msg: "nil clock"}
	}
	if err := o.Validate(c.size); err != nil {
		return &mpi.Error{Func: fn, Code: -1, Msg: err.Error()}
	}
	if err := checkBufOffset(o); err != nil {
		return &mpi.Error{Func: fn, Code: -1, Msg: err.Error()}
	}
	if o.Overlap { // nbc
		return c.observeOverlap(o, clk)
	}
	var err error
	switch o.Sync {
	case mpi.SyncBarrier:
		err = c.dissemination(tagBarrier, "MPI_Barrier")
	case mpi.SyncDoubleBarrier:
		if err = c.dissemination(tagBarrier, "MPI_Barrier"); err == nil {
			err = c.dissemination(tagBarrier, "MPI_Barrier")
		}
	case mpi.SyncDissemination:
		err = c.dissemination(tagDissem, "dissemination barrier")
	case mpi.SyncDeadline:
		if !c.r.waitUntil(clk, o.Deadline) {
			return &mpi.Error{Func: fn, Code: -1, Msg: fmt.Sprintf(
				"clock %q does not advance with the rank's virtual time; cannot wait for deadline %d", clk.Name(), o.Deadline)}
		}
	}
	if err != nil {
		return err
	}
	o.Start = clk.Now()
	if o.NoCall {
		o.End = clk.Now()
		return nil
	}
	reps := max(o.Reps, 1)
	if o.TimeEach {
		var sum timing.Ticks
		for i := range reps {
			o.CallIndex = i // the root of root_shift (mpi.Observation.RootOf)
			t0 := clk.Now()
			err := c.execute(o)
			sum += clk.Now() - t0
			if err == nil && o.Call.EachBarrier() {
				err = c.dissemination(tagBarrier, "MPI_Barrier")
			}
			if err != nil {
				o.End = o.Start + sum
				return err
			}
		}
		o.End = o.Start + sum
		return nil
	}
	for i := range reps {
		o.CallIndex = i
		if err := c.execute(o); err != nil {
			return err
		}
	}
	o.End = clk.Now()
	return nil
}

// execute runs o.Call once: the model its row names (models.go).
func (c *comm) execute(o *mpi.Observation) error {
	m, err := modelOf(o)
	if err != nil {
		return err
	}
	c.callDelay(o) // guide: Config.CallDelay
	if err := m.run(c, o); err != nil {
		return err
	}
	c.corruptResult(o)
	return nil
}

// corruptResult applies Config.CorruptResult after an execution of o.
func (c *comm) corruptResult(o *mpi.Observation) {
	f := c.r.w.cfg.CorruptResult
	if f == nil {
		return
	}
	c.r.execs++
	if f(c.r.id, o.Call, c.r.execs) && len(o.Recv) > 0 {
		o.Recv[0] ^= 0x10
	}
}

// waitUntil advances the rank's true time as the loop
// `for clk.Now() < deadline {}` would, skipping reads in bulk: each skip is
// a whole number of read overheads and at most 90% of the remaining gap, so
// no read that would have returned ≥ deadline is skipped as long as clk runs
// less than 11% fast against true time.
//
// It returns false if clk stood still for a million reads in a row.
func (r *Rank) waitUntil(clk timing.Clock, deadline timing.Ticks) bool {
	ov := r.clk.ovS
	last, still := timing.Ticks(math.MinInt64), 0
	for {
		now := clk.Now()
		if now >= deadline {
			// The loop's last read returned ≥ deadline; the caller's
			// own read follows, as in the real loop.
			return true
		}
		if now <= last {
			if still++; still >= 1_000_000 {
				return false
			}
		} else {
			still = 0
		}
		last = now
		gap := clk.Freq().Seconds(deadline-now) * 0.9
		if k := int64(gap/ov) - 1; k > 0 {
			r.now += float64(k) * ov
		}
	}
}
