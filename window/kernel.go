package window

import (
	"errors"
	"math"

	"github.com/reprobench/reprobench/mpi"
	"github.com/reprobench/reprobench/timing"
)

// KernelTiming is the result of TimeKernel, identical on every rank.
type KernelTiming struct {
	// LowerS is max over ranks of t2 − t1: the work took at least this
	// long on some rank (a provable lower bound of the parallel duration).
	LowerS float64 `json:"lower_s"`
	// UpperS is min over ranks of t3 − t0: every rank saw the whole
	// bracket, barriers included, within this time (a provable upper bound).
	UpperS float64 `json:"upper_s"`
	// GlobalS is max g(t2) − min g(t1) with a global clock, NaN without one.
	GlobalS float64 `json:"global_s"`
}

// TimeKernel times work on every rank with McCalpin's bracket (McCalpin):
//
//	t0, barrier, t1, work, t2, barrier, t3
//
// on each rank, then reduces the bounds across ranks (one Allreduce call).
// The bounds need no clock synchronization; GlobalS needs g (nil, or a nil
// *clocksync.GlobalClock: NaN). Call it collectively.
func TimeKernel(c mpi.Comm, clk timing.Clock, g GlobalClock, work func()) (KernelTiming, error) {
	if c == nil || clk == nil || work == nil {
		return KernelTiming{}, errors.New("window: TimeKernel needs a communicator, a clock and the work")
	}
	if Absent(g) {
		g = nil
	}
	t0 := clk.Now()
	if err := c.Barrier(); err != nil {
		return KernelTiming{}, err
	}
	t1 := clk.Now()
	work()
	t2 := clk.Now()
	if err := c.Barrier(); err != nil {
		return KernelTiming{}, err
	}
	t3 := clk.Now()
	// MAX over [t2−t1, −(t3−t0), −g(t1), g(t2)]: min via negation.
	in := []float64{clk.Freq().Seconds(t2 - t1), -clk.Freq().Seconds(t3 - t0), 0, 0}
	if g != nil {
		in[2], in[3] = -g.ToGlobal(t1), g.ToGlobal(t2)
	}
	out := make([]float64, 4)
	if err := mpi.Allreduce(c, in, out, mpi.Max); err != nil {
		return KernelTiming{}, err
	}
	k := KernelTiming{LowerS: out[0], UpperS: -out[1], GlobalS: math.NaN()}
	if g != nil {
		k.GlobalS = out[3] + out[2]
	}
	return k, nil
}

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
