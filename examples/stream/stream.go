package main

import (
	"fmt"
	"io"
	"math"

	"github.com/reprobench/reprobench/kernel"
	"github.com/reprobench/reprobench/mpi"
	"github.com/reprobench/reprobench/timing"
)

// Triad is one rank's share of the STREAM triad a = b + q·c.
type Triad struct {
	A, B, C []float64
	Q       float64
}

// NewTriad allocates and initializes n elements of each array (as STREAM
// does, so that the pages are touched before timing).
func NewTriad(n int) *Triad {
	t := &Triad{A: make([]float64, n), B: make([]float64, n), C: make([]float64, n), Q: 3}
	for i := range n {
		t.A[i], t.B[i], t.C[i] = 1, 2, 0.5
	}
	return t
}

// Run is the kernel: the work between t1 and t2 of the bracket.
func (t *Triad) Run() {
	a, b, c, q := t.A, t.B[:len(t.A)], t.C[:len(t.A)], t.Q
	for i := range a {
		a[i] = b[i] + q*c[i]
	}
}

// Bytes is what STREAM counts for one triad on this rank: three arrays of
// float64 (two read, one written).
func (t *Triad) Bytes() float64 { return 3 * 8 * float64(len(t.A)) }

// Check verifies the result, as STREAM does: every a[i] = b[i] + q·c[i].
func (t *Triad) Check() error {
	for i, v := range t.A {
		if v != t.B[i]+t.Q*t.C[i] {
			return fmt.Errorf("stream: a[%d] = %g, want %g", i, v, t.B[i]+t.Q*t.C[i])
		}
	}
	return nil
}

// Measure times ntimes executions of work on every rank with McCalpin's
// bracket (McCalpin), kernel.Bracket:
//
//	t0 = now; barrier; t1 = now; work(); t2 = now; barrier; t3 = now
//
// Every rank gets the same results. clk must be the base clock of g; g may
// be nil when the clocks are not synchronized (GlobalS is then NaN).
func Measure(c mpi.Comm, clk timing.Clock, g kernel.GlobalClock, ntimes int, work func()) ([]kernel.Bounds, error) {
	out := make([]kernel.Bounds, ntimes)
	for k := range out {
		var err error
		if out[k], err = kernel.Bracket(c, clk, g, work); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// Report prints one line per iteration and bounds on the shortest of
// iterations 2…n (STREAM skips the first, which pays for page faults and cold
// caches): the shortest duration is at least the smallest lower bound and at
// most the smallest upper bound, whichever iterations they come from. bytes is
// the total over all ranks of one execution.
func Report(w io.Writer, ks []kernel.Bounds, bytes float64) {
	gbs := func(s float64) float64 { return bytes / s / 1e9 }
	fmt.Fprintf(w, "%-5s %12s %12s %12s   %s\n", "iter", "lower_ms", "global_ms", "upper_ms", "GB/s at lower / global / upper")
	best := kernel.Bounds{LowerS: math.Inf(1), UpperS: math.Inf(1), GlobalS: math.Inf(1)}
	for k, t := range ks {
		fmt.Fprintf(w, "%-5d %12.4f %12.4f %12.4f   %.2f / %.2f / %.2f\n", k+1, t.LowerS*1e3, t.GlobalS*1e3, t.UpperS*1e3,
			gbs(t.LowerS), gbs(t.GlobalS), gbs(t.UpperS))
		if k > 0 || len(ks) == 1 {
			best.LowerS, best.UpperS = math.Min(best.LowerS, t.LowerS), math.Min(best.UpperS, t.UpperS)
			best.GlobalS = math.Min(best.GlobalS, t.GlobalS) // NaN without a global clock
		}
	}
	fmt.Fprintf(w, "best: the triad took between %.4f ms (max t2−t1) and %.4f ms (min t3−t0); global clock: %.4f ms\n",
		best.LowerS*1e3, best.UpperS*1e3, best.GlobalS*1e3)
	fmt.Fprintf(w, "bandwidth: between %.2f and %.2f GB/s; global clock: %.2f GB/s\n",
		gbs(best.UpperS), gbs(best.LowerS), gbs(best.GlobalS))
}
