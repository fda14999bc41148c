package mpitest

import (
	"fmt"
	"time"

	"github.com/reprobench/reprobench/mpi"
	"github.com/reprobench/reprobench/timing"
)

// Progress is the simulated progress model of the non-blocking collectives
// (mpi.CallIbarrier … mpi.CallIscan), which decides how much of their
// communication overlaps the computation between post and wait.
//
// In both models a non-blocking collective exchanges the messages of its
// blocking twin (see Collectives), so its result is the blocking one's,
// and its latency (post, then wait at once) is exactly the blocking call's
// virtual time. They differ in when those messages move:
//
//   - ProgressInWait: nothing happens between post and wait, as with a
//     library that progresses only inside blocking MPI calls and whose
//     MPI_Test does not advance a collective's schedule. The whole
//     collective runs inside MPI_Wait, so the overlapped phase lasts
//     compute + (the collective started late), and the overlap is about
//     0 (exactly 0 when the ranks are in step).
//   - ProgressAsync: an ideal progress engine (a thread or offload that
//     costs the rank nothing) runs the collective from the post on, in
//     virtual time, while the rank computes; MPI_Wait returns at the later
//     of the end of the computation and the collective's completion. With
//     a kernel at least as long as the collective the overlap is about 1.
//
// MPI_Test every k kernel iterations costs no virtual time in either model
// and changes nothing (in ProgressInWait it does not progress; in
// ProgressAsync nothing is left for it to do).
type Progress int

// The progress models.
const (
	ProgressInWait Progress = iota
	ProgressAsync
)

// kernelIterTime is the virtual time of one iteration of the compute
// kernel of the overlap measurement (mpi.Observation.KernelIters).
const kernelIterTime = time.Nanosecond

// osuPassTime is the virtual time of one pass of OSU's kernel, the unit of
// the time-targeted kernel (mpi.Observation.TimedKernel).
const osuPassTime = 250 * time.Nanosecond

// String returns "in_wait" or "async".
func (p Progress) String() string {
	switch p {
	case ProgressInWait:
		return "in_wait"
	case ProgressAsync:
		return "async"
	}
	return fmt.Sprintf("Progress(%d)", int(p))
}

// executeTwin is ModelTwin: the messages of the row's twin (mpi.Op.Twin).
// For a non-blocking collective it is one execution of the latency
// measurement (post, then wait): the blocking twin's messages in either
// progress model.
func (c *comm) executeTwin(o *mpi.Observation) error {
	nb := o.Call
	o.Call = nb.Op().Twin.Call
	err := c.execute(o)
	o.Call = nb
	return err
}

// kernel advances the rank's virtual time by the compute kernel: either
// KernelIters iterations, or, with TimedKernel, OSU's time-targeted loop
// (passes of osuPassTime until their sum, read on clk as in C, reaches
// target ticks, or target/P per probe with TestEvery = P; MPI_Test costs
// no virtual time here).
func (c *comm) kernel(o *mpi.Observation, clk timing.Clock, target timing.Ticks) {
	r := c.r
	if !o.TimedKernel {
		r.now += float64(o.KernelIters) * kernelIterTime.Seconds()
		return
	}
	probes := max(o.TestEvery, 1)
	for range probes {
		for elapsed := timing.Ticks(0); elapsed < target/timing.Ticks(probes); {
			t1 := clk.Now()
			r.now += osuPassTime.Seconds()
			elapsed += clk.Now() - t1
		}
	}
}

// overlapped is one execution of the overlapped phase: post, kernel
// (timed by two reads of clk, as in C), wait. It returns the kernel's
// ticks. target is the time-targeted kernel's aim, in ticks.
func (c *comm) overlapped(o *mpi.Observation, clk timing.Clock, target timing.Ticks) (timing.Ticks, error) {
	r := c.r
	if c.r.w.cfg.Progress == ProgressAsync {
		posted := r.now
		if err := c.executeTwin(o); err != nil {
			return 0, err
		}
		done := r.now
		r.now = posted // the progress engine did that work, not the rank
		k0 := clk.Now()
		c.kernel(o, clk, target)
		k1 := clk.Now()
		r.now = max(r.now, done)
		return k1 - k0, nil
	}
	k0 := clk.Now()
	c.kernel(o, clk, target)
	k1 := clk.Now()
	return k1 - k0, c.executeTwin(o)
}

// syncNBC is the barrier-type wait of the overlap measurement.
func (c *comm) syncNBC(o *mpi.Observation) error {
	switch o.Sync {
	case mpi.SyncBarrier:
		return c.dissemination(tagBarrier, "MPI_Barrier")
	case mpi.SyncDoubleBarrier:
		if err := c.dissemination(tagBarrier, "MPI_Barrier"); err != nil {
			return err
		}
		return c.dissemination(tagBarrier, "MPI_Barrier")
	case mpi.SyncDissemination:
		return c.dissemination(tagDissem, "dissemination barrier")
	}
	return nil
}

// observeOverlap is Observe for the overlap measurement (mpi/nbc.go): the
// same phases as the C path, in virtual time.
func (c *comm) observeOverlap(o *mpi.Observation, clk timing.Clock) error {
	reps := max(o.Reps, 1)
	o.Pure, o.Compute = 0, 0
	if err := c.syncNBC(o); err != nil {
		return err
	}
	barrier := func() error { return c.dissemination(tagBarrier, "MPI_Barrier") }
	if o.TimeEach {
		for i := range reps {
			o.CallIndex = i // each phase rotates from o.Root (root_shift), as rb_nbc_overlap
			t0 := clk.Now()
			err := c.executeTwin(o)
			o.Pure += clk.Now() - t0
			if err == nil {
				err = barrier()
			}
			if err != nil {
				return err
			}
		}
	} else {
		t0 := clk.Now()
		for i := range reps {
			o.CallIndex = i
			if err := c.executeTwin(o); err != nil {
				return err
			}
		}
		o.Pure = clk.Now() - t0
	}
	if err := c.syncNBC(o); err != nil {
		return err
	}
	o.Start = clk.Now()
	var sum timing.Ticks
	target := o.Pure / timing.Ticks(reps) // the time-targeted kernel's aim, as in C
	for i := range reps {
		o.CallIndex = i
		t0 := clk.Now()
		k, err := c.overlapped(o, clk, target)
		t1 := clk.Now()
		o.Compute += k
		if err != nil {
			return err
		}
		if o.TimeEach {
			sum += t1 - t0
			if err := barrier(); err != nil {
				return err
			}
		}
	}
	if o.TimeEach {
		o.End = o.Start + sum
	} else {
		o.End = clk.Now()
	}
	return nil
}
