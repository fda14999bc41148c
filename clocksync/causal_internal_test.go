package clocksync

import (
	"math"
	"math/rand/v2"
	"testing"
)

// causalBound bounds a least-squares line through offsets that err by at
// most e[i] each, whatever the errors: against a known line (slope 100 ppm)
// with errors drawn inside the intervals (seed 1, 200 trials) it covers the
// fitted line's error at the end of the fit and 2 s later in every trial,
// and errors set to the worst corner (the sign of each weight at the end)
// reach it exactly (to rounding): the bound is as tight as a worst case
// can be.
func TestCausalBound(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 0))
	const n = 50
	x := make([]float64, n)
	e := make([]float64, n)
	for i := range x {
		x[i] = float64(i)*0.02 + rng.Float64()*0.01
		e[i] = 1e-6 + rng.ExpFloat64()*50e-6 // up to ms: descheduled exchanges
	}
	end := x[n-1]
	b := causalBound(x, e, end)
	if b.Unknown {
		t.Fatalf("bound unknown: %v", b)
	}
	truth := func(v float64) float64 { return 1e-4*v + 3e-3 }
	y := make([]float64, n)
	for trial := range 200 {
		for i := range y {
			y[i] = truth(x[i]) + (2*rng.Float64()-1)*e[i]
		}
		s, c, _ := LinearFit(x, y)
		for _, h := range []float64{0, 2} {
			if err := math.Abs(s*(end+h) + c - truth(end+h)); err > b.At(h)*(1+1e-9) {
				t.Fatalf("trial %d, %g s after: error %.3g µs beyond the bound %.3g µs", trial, h, err*1e6, b.At(h)*1e6)
			}
		}
	}
	// The worst corner at the end.
	var mx, sxx float64
	for _, v := range x {
		mx += v / n
	}
	for _, v := range x {
		sxx += (v - mx) * (v - mx)
	}
	for i := range y {
		w := 1.0/n + (end-mx)*(x[i]-mx)/sxx
		y[i] = truth(x[i]) + math.Copysign(e[i], w)
	}
	s, c, _ := LinearFit(x, y)
	if err := math.Abs(s*end + c - truth(end)); math.Abs(err-b.AtSync) > 1e-9*b.AtSync+1e-15 {
		t.Errorf("worst corner: error %.6g µs, bound %.6g µs: want equal", err*1e6, b.AtSync*1e6)
	}
	// A point without an interval: no worst case.
	e[3] = 0
	if b := causalBound(x, e, end); !b.Unknown {
		t.Errorf("a point without interval: bound %v, want unknown", b)
	}
}
