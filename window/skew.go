package window

import (
	"math"

	"github.com/reprobench/reprobench/mpi"
	"github.com/reprobench/reprobench/timing"
)

// BarrierExitSkew runs n barriers of the given kind (Barrier, DoubleBarrier
// or Dissemination) and returns, on rank 0, the skew of each: the latest
// minus the earliest exit time over the ranks, in global seconds (Hunold &
// Carpen-Amarie 2016, Fig. 10). Other ranks get nil. Without a global clock (Absent) the exits are
// compared on the ranks' own clocks. Call it collectively.
func BarrierExitSkew(c mpi.Comm, clk timing.Clock, g GlobalClock, m Method, n int) ([]float64, error) {
	if Absent(g) {
		g = Identity{clk}
	}
	exit := make([]float64, n)
	o := &mpi.Observation{Call: mpi.CallBarrier, Type: mpi.Byte}
	switch m {
	case DoubleBarrier:
		o.Sync = mpi.SyncDoubleBarrier
	case Dissemination:
		o.Sync = mpi.SyncDissemination
	default:
		o.Sync = mpi.SyncBarrier
	}
	// The timed call is a barrier too; only the start (the exit of the
	// synchronizing barrier) is used.
	for i := range exit {
		if err := c.Observe(o, clk); err != nil {
			return nil, err
		}
		exit[i] = g.ToGlobal(o.Start)
	}
	var all []float64
	p := c.Size()
	if c.Rank() == 0 {
		all = make([]float64, n*p)
	}
	if err := mpi.Gather(c, exit, all, 0); err != nil {
		return nil, err
	}
	if c.Rank() != 0 {
		return nil, nil
	}
	skew := make([]float64, n)
	for i := range skew {
		lo, hi := math.Inf(1), math.Inf(-1)
		for r := range p {
			v := all[r*n+i]
			lo, hi = math.Min(lo, v), math.Max(hi, v)
		}
		skew[i] = hi - lo
	}
	return skew, nil
}
