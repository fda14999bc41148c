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
