package mpitest

import (
	"github.com/reprobench/reprobench/mpi"
)

// callDelay applies Config.CallDelay before one execution of o.Call.
func (c *comm) callDelay(o *mpi.Observation) {
	f := c.r.w.cfg.CallDelay
	if f == nil {
		return
	}
	if d := f(o.Call, o.Count, o.Type); d > 0 {
		c.r.now += d.Seconds()
	}
}

// executeGuide runs the mock-up of a performance guideline once, composed
// of this package's collectives exactly as rbmpi_guide.h composes MPI's
// (see mpi/guide.go for the buffers and where the result lands).
func (c *comm) executeGuide(o *mpi.Observation) error {
	const fn = "Observe"
	n, dt, root, p, rank := o.Count, o.Type, o.Root, c.size, c.rank
	es := dt.Size()
	switch o.Call {
	case mpi.CallReduceBcast:
		if err := c.Reduce(o.Send, o.Recv, n, dt, o.Op, root); err != nil {
			return err
		}
		return c.Bcast(o.Recv, n, dt, root)
	case mpi.CallReduceScatterBlockAllgather:
		m := mpi.GuideBlock(n, p)
		blk := make([]byte, m*es) // not scratch(2): ReduceScatterBlock uses it
		if err := c.ReduceScatterBlock(o.Send, blk, m, dt, o.Op); err != nil {
			return err
		}
		return c.Allgather(blk, o.Recv, m, dt)
	case mpi.CallScatterAllgather:
		m := mpi.GuideBlock(n, p)
		blk := make([]byte, m*es) // not scratch(2): ReduceScatterBlock uses it
		if err := c.Scatter(o.Send, blk, m, dt, root); err != nil {
			return err
		}
		return c.Allgather(blk, o.Recv, m, dt)
	case mpi.CallGatherBcast:
		if err := c.Gather(o.Send, o.Recv, n, dt, root); err != nil {
			return err
		}
		return c.Bcast(o.Recv, n*p, dt, root)
	case mpi.CallExscanReduceLocal:
		if err := c.Exscan(o.Send, o.Recv, n, dt, o.Op); err != nil {
			return err
		}
		if rank == 0 {
			copy(o.Recv[:n*es], o.Send[:n*es])
			return nil
		}
		mpi.ReduceLocal(o.Send, o.Recv, n, dt, o.Op)
		return nil
	case mpi.CallReducePlusScatter:
		if err := c.Reduce(o.Send, o.Recv, n*p, dt, o.Op, root); err != nil {
			return err
		}
		blk := make([]byte, n*es)
		if err := c.Scatter(o.Recv, blk, n, dt, root); err != nil {
			return err
		}
		copy(o.Recv[:n*es], blk)
		return nil
	}
	return &mpi.Error{Func: fn, Code: -1, Msg: "unsupported call " + o.Call.String()}
}
