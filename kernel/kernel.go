package kernel

import (
	"errors"
	"math"
	"reflect"

	"github.com/reprobench/reprobench/mpi"
	"github.com/reprobench/reprobench/timing"
)

// Bounds is the result of Bracket, identical on every rank.
type Bounds struct {
	// LowerS is max over ranks of t2 − t1: the work took at least this
	// long on some rank (a provable lower bound of the parallel duration).
	LowerS float64 `json:"lower_s"`
	// UpperS is min over ranks of t3 − t0: every rank saw the whole
	// bracket, barriers included, within this time (a provable upper bound).
	UpperS float64 `json:"upper_s"`
	// GlobalS is max g(t2) − min g(t1) with a global clock, NaN without one.
	GlobalS float64 `json:"global_s"`
}

// GlobalClock maps local ticks of the base clock to global seconds.
// *clocksync.GlobalClock and every window.GlobalClock satisfy it.
type GlobalClock interface {
	ToGlobal(local timing.Ticks) float64
}

// Bracket times work on every rank with McCalpin's bracket (McCalpin):
//
//	t0, barrier, t1, work, t2, barrier, t3
//
// on each rank, then reduces the bounds across ranks (one Allreduce call).
// The bounds need no clock synchronization; GlobalS needs g (nil, or an
// interface holding a nil pointer such as a nil *clocksync.GlobalClock:
// NaN). Call it collectively.
func Bracket(c mpi.Comm, clk timing.Clock, g GlobalClock, work func()) (Bounds, error) {
	if c == nil || clk == nil || work == nil {
		return Bounds{}, errors.New("kernel: Bracket needs a communicator, a clock and the work")
	}
	if absent(g) {
		g = nil
	}
	t0 := clk.Now()
	if err := c.Barrier(); err != nil {
		return Bounds{}, err
	}
	t1 := clk.Now()
	work()
	t2 := clk.Now()
	if err := c.Barrier(); err != nil {
		return Bounds{}, err
	}
	t3 := clk.Now()
	// MAX over [t2−t1, −(t3−t0), −g(t1), g(t2)]: min via negation.
	in := []float64{clk.Freq().Seconds(t2 - t1), -clk.Freq().Seconds(t3 - t0), 0, 0}
	if g != nil {
		in[2], in[3] = -g.ToGlobal(t1), g.ToGlobal(t2)
	}
	out := make([]float64, 4)
	if err := mpi.Allreduce(c, in, out, mpi.Max); err != nil {
		return Bounds{}, err
	}
	k := Bounds{LowerS: out[0], UpperS: -out[1], GlobalS: math.NaN()}
	if g != nil {
		k.GlobalS = out[3] + out[2]
	}
	return k, nil
}

// absent reports whether g is no global clock: nil, or an interface
// holding a nil pointer (a nil *clocksync.GlobalClock).
func absent(g GlobalClock) bool {
	if g == nil {
		return true
	}
	v := reflect.ValueOf(g)
	return v.Kind() == reflect.Pointer && v.IsNil()
}
