package clocksync

import (
	"math"
	"math/rand/v2"
	"testing"
)

// Fit points whose every exchange was delayed (a descheduled rank) carry an
// offset error up to half their RTT. The RTT filter drops them; without it
// the line tilts. Seeded.
func TestSpreadFitFiltersByRTT(t *testing.T) {
	const slope, icpt = 3e-6, 0.25
	rng := rand.New(rand.NewPCG(7, 22))
	var pts []Sample
	for i := range 400 {
		x := 10 + float64(i)*2.5e-3
		rtt := 0.7e-6 + rng.ExpFloat64()*20e-9
		noise := (rng.Float64() - 0.5) * 20e-9
		if i >= 300 && i < 340 { // a burst of descheduling late in the fit
			rtt = 300e-6 + rng.Float64()*200e-6
			noise = rtt / 2 * rng.Float64() // the delayed direction biases one way
		}
		pts = append(pts, Sample{Local: x, Offset: slope*x + icpt + noise, RTT: rtt})
	}
	f, st := spreadFit(pts, 3, true, false)
	if math.Abs(f.Slope-slope) > 0.05e-6 || st.Rejected < 40 {
		t.Errorf("filtered: slope %.4g ppm (want %.4g), %d rejected", f.Slope*1e6, slope*1e6, st.Rejected)
	}
	if b := st.Bound.At(10); st.Bound.Unknown || math.Abs(f.Slope-slope)*10 > b {
		t.Errorf("filtered: bound %v does not cover the slope error %.3g ppm", st.Bound, (f.Slope-slope)*1e6)
	}
	g, _ := spreadFit(pts, -1, false, false)
	if math.Abs(g.Slope-slope) < 0.2e-6 {
		t.Errorf("unfiltered: slope %.4g ppm; the disturbed points should have tilted it", g.Slope*1e6)
	}
}

// On a machine too loaded to exchange undisturbed, fewer than three fit
// points pass the RTT filter: no bound is stated, but the drift (100 ppm
// here, the skew clockcheck's tests inject) is still learned from the
// fastest quarter of the points, not left in place. Seeded.
func TestSpreadFitTooFewUndisturbed(t *testing.T) {
	const slope, icpt = 100e-6, 1.0
	rng := rand.New(rand.NewPCG(7, 28))
	var pts []Sample
	for i := range 300 {
		x := 5 + float64(i)*2.8e-3
		rtt := 20e-6 + rng.ExpFloat64()*200e-6 // every exchange waited for a core
		if i == 17 || i == 250 {
			rtt = 0.8e-6 // two lucky ones
		}
		noise := (rng.Float64() - 0.5) * rtt // up to half the RTT either way
		pts = append(pts, Sample{Local: x, Offset: slope*x + icpt + noise, RTT: rtt})
	}
	f, st := spreadFit(pts, 3, true, false)
	if !st.Bound.Unknown || st.Bound.Why != whyTooFewPoints {
		t.Errorf("bound %v, want unknown: %s", st.Bound, whyTooFewPoints)
	}
	if st.Points < 3 || math.Abs(f.Slope-slope) > 5e-6 {
		t.Errorf("slope %.4g ppm from %d points, want %.4g ± 5 ppm", f.Slope*1e6, st.Points, slope*1e6)
	}
}

// Offset errors correlated in time (a slow wander, as a machine's fast and
// slow states give) make least squares' standard error too small; the block
// jackknife of fitLine sees it, and 3 standard errors cover the slope error.
func TestFitLineCorrelatedErrors(t *testing.T) {
	covered := 0
	for seed := range uint64(50) {
		rng := rand.New(rand.NewPCG(seed, 1))
		var x, y []float64
		w := 0.0
		for i := range 500 {
			w = 0.98*w + rng.NormFloat64()*5e-9 // AR(1) wander
			xi := float64(i) * 1e-3
			x, y = append(x, xi), append(y, 1e-6*xi+w)
		}
		f := fitLine(x, y)
		_, _, rms := LinearFit(x, y)
		var sxx, mx float64
		for _, v := range x {
			mx += v / float64(len(x))
		}
		for _, v := range x {
			sxx += (v - mx) * (v - mx)
		}
		ols := math.Sqrt(rms * rms * float64(len(x)) / float64(len(x)-2) / sxx)
		if seed == 0 {
			t.Logf("slope SE %.3g, least squares %.3g", f.SlopeSE, ols)
		}
		if f.SlopeSE < 1.5*ols {
			t.Errorf("seed %d: slope SE %.3g not above least squares' %.3g under correlated errors", seed, f.SlopeSE, ols)
		}
		if math.Abs(f.Slope-1e-6) <= BoundZ*f.SlopeSE {
			covered++
		}
	}
	t.Logf("covered %d of 50", covered)
	if covered < 45 {
		t.Errorf("3 standard errors covered the slope error in %d of 50 seeds", covered)
	}
}

// With fewer than three undisturbed fit points the slope is not learned (two
// points microseconds apart could give any slope) and the bound is unknown.
func TestSpreadFitTooFewPoints(t *testing.T) {
	pts := []Sample{
		{Local: 1, Offset: 0.5, RTT: 0.7e-6},
		{Local: 1 + 5e-6, Offset: 0.5 + 0.4e-6, RTT: 0.8e-6},
		{Local: 1.2, Offset: 0.7, RTT: 500e-6}, // disturbed
	}
	f, st := spreadFit(pts, 3, true, false)
	if f.Slope != 0 || math.Abs(f.Intercept-(0.5+0.2e-6)) > 1e-12 || !st.Bound.Unknown || st.Rejected != 1 {
		t.Errorf("fit %+v, stats %+v", f, st)
	}
}
