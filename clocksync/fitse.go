package clocksync

import (
	"math"
	"slices"
)

// lineFit is a fitted line offset = Slope·x + Intercept with the standard
// errors of its slope and of its value at the centroid XMean.
type lineFit struct {
	Slope, Intercept float64
	RMS              float64 // root mean square of the residuals
	SlopeSE          float64 // standard error of the slope
	CentreSE         float64 // standard error of the line at XMean
	XMean, Span      float64 // mean and range of x
	N                int
}

// jackknifeBlocks is the number of contiguous blocks of the delete-a-block
// jackknife in fitLine.
const jackknifeBlocks = 10

// fitLine fits y = a·x + b by least squares (LinearFit) and estimates the
// standard errors of the slope and of the line at the mean of x, each the
// larger of the textbook least-squares error (independent residuals) and a
// delete-a-block jackknife over jackknifeBlocks contiguous blocks of points
// in the order given (time order). Offset errors on a real machine are
// correlated in time (the machine's fast and slow states, bursts of
// descheduling); the textbook error then understates the slope's
// uncertainty, the block jackknife does not, as long as the correlation is
// shorter than a block.
func fitLine(x, y []float64) lineFit {
	n := len(x)
	s, b, rms := LinearFit(x, y)
	f := lineFit{Slope: s, Intercept: b, RMS: rms, N: n}
	if n == 0 {
		return f
	}
	var mx float64
	lo, hi := x[0], x[0]
	for _, v := range x {
		mx += v - x[0]
		lo, hi = min(lo, v), max(hi, v)
	}
	mx = x[0] + mx/float64(n)
	f.XMean, f.Span = mx, hi-lo
	if n < 3 {
		f.SlopeSE, f.CentreSE = math.Inf(1), math.Inf(1)
		return f
	}
	var sxx float64
	for _, v := range x {
		sxx += (v - mx) * (v - mx)
	}
	sigma2 := rms * rms * float64(n) / float64(n-2)
	f.SlopeSE = math.Sqrt(sigma2 / sxx)
	f.CentreSE = math.Sqrt(sigma2 / float64(n))
	if sxx == 0 {
		f.SlopeSE = math.Inf(1)
	}
	g := min(jackknifeBlocks, n/4)
	if g < 4 {
		// Too few points for blocks: least squares, widened by Student's
		// t for n − 2 degrees of freedom against the normal BoundZ.
		w := tQuantile(n-2) / BoundZ
		f.SlopeSE *= w
		f.CentreSE *= w
		return f
	}
	// Delete-a-block jackknife: G fits without one block each; the
	// variance of the slope is (G−1)/G · Σ (s_g − mean)². The value at the
	// centroid is evaluated at the full fit's XMean. Its estimate has G − 1
	// degrees of freedom, so it is widened by Student's t for them against
	// the normal BoundZ (4.09/3 for 10 blocks): BoundZ jackknife errors
	// alone covered a single link's true error 10 s after the sync in 97
	// of 100 simulated seeds (the learner stops when the bound first meets
	// its target, which favours fits whose error looks small).
	widen := tQuantile(g-1) / BoundZ
	ss := make([]float64, g)
	cs := make([]float64, g)
	kx := make([]float64, 0, n)
	ky := make([]float64, 0, n)
	for j := range g {
		lo, hi := j*n/g, (j+1)*n/g
		kx = append(append(kx[:0], x[:lo]...), x[hi:]...)
		ky = append(append(ky[:0], y[:lo]...), y[hi:]...)
		sj, bj, _ := LinearFit(kx, ky)
		ss[j], cs[j] = sj, sj*mx+bj
	}
	jk := func(v []float64) float64 {
		var m float64
		for _, e := range v {
			m += e
		}
		m /= float64(len(v))
		var q float64
		for _, e := range v {
			q += (e - m) * (e - m)
		}
		return math.Sqrt(q * float64(len(v)-1) / float64(len(v)))
	}
	f.SlopeSE = max(f.SlopeSE, jk(ss)*widen)
	f.CentreSE = max(f.CentreSE, jk(cs)*widen)
	return f
}

// tQuantile returns Student's t quantile at 0.99865 (the one-sided level
// of 3 normal standard deviations) for df degrees of freedom, from a table
// (df ≥ 30: the normal 3).
func tQuantile(df int) float64 {
	table := []float64{math.Inf(1), 235.8, 19.21, 9.219, 6.620, 5.507, 4.904, 4.530, 4.277, 4.094,
		3.957, 3.850, 3.764, 3.694, 3.636, 3.586, 3.544, 3.507, 3.475, 3.447, 3.422}
	switch {
	case df < 1:
		return math.Inf(1)
	case df < len(table):
		return table[df]
	case df < 30:
		return 3.3
	}
	return BoundZ
}

// at returns the standard error of the line's value at x:
// sqrt(CentreSE² + (SlopeSE·(x − XMean))²).
func (f lineFit) at(x float64) float64 {
	return math.Hypot(f.CentreSE, f.SlopeSE*(x-f.XMean))
}

// trimmedFit refits without the points whose residual exceeds trim robust
// standard deviations (1.4826·MAD of the residuals), at most half of them,
// and returns the fit, the number of points dropped and the indices of
// the points kept (ascending). trim ≤ 0 or fewer than 4 points: the plain
// fit over all of them.
func trimmedFit(x, y []float64, trim float64) (lineFit, int, []int) {
	f := fitLine(x, y)
	n := len(x)
	all := make([]int, n)
	for i := range all {
		all[i] = i
	}
	if trim <= 0 || n < 4 {
		return f, 0, all
	}
	res := make([]float64, n)
	for k := range x {
		res[k] = math.Abs(y[k] - (f.Slope*x[k] + f.Intercept))
	}
	sorted := slices.Clone(res)
	slices.Sort(sorted)
	limit := max(trim*1.4826*sorted[(n-1)/2], sorted[(n-1)/2])
	kx := make([]float64, 0, n)
	ky := make([]float64, 0, n)
	kept := make([]int, 0, n)
	for k := range res {
		if res[k] <= limit {
			kx, ky, kept = append(kx, x[k]), append(ky, y[k]), append(kept, k)
		}
	}
	if len(kx) >= 2 && len(kx) < n {
		return fitLine(kx, ky), n - len(kx), kept
	}
	return f, 0, all
}

// causalBound returns the worst-case bound of a least-squares line through
// the points at x (seconds) whose offsets err by at most e[i] each
// (Sample.Bound: half the causality interval of the exchanges, which no
// delay of a message can break), evaluated at end: the line's value at
// end is Σ wᵢ·yᵢ with wᵢ = 1/n + (end − x̄)(xᵢ − x̄)/Sxx and its slope
// Σ vᵢ·yᵢ with vᵢ = (xᵢ − x̄)/Sxx, so its error is at most Σ |wᵢ|·eᵢ at
// end and grows by at most Σ |vᵢ|·eᵢ per second after it. Unlike the
// statistical bound (fitLine) it assumes nothing about how the errors are
// distributed: a rank descheduled while a message is in flight moves an
// offset anywhere inside its interval, never out of it. With fewer than 3
// points, or all at one x, the line is the mean offset (slope 0) and the
// slope is unknown; a point without a causality interval (e[i] ≤ 0, or
// not finite) makes the bound unknown.
func causalBound(x, e []float64, end float64) Bound {
	n := len(x)
	if n == 0 {
		return unknown(whyNoCausal)
	}
	for _, v := range e {
		if !(v > 0) || math.IsInf(v, 0) {
			return unknown(whyNoCausal)
		}
	}
	var mx float64
	for _, v := range x {
		mx += v - x[0]
	}
	mx = x[0] + mx/float64(n)
	var sxx float64
	for _, v := range x {
		sxx += (v - mx) * (v - mx)
	}
	if n < 3 || !(sxx > 0) {
		var m float64
		for _, v := range e {
			m += v
		}
		return Bound{AtSync: m / float64(n), Unknown: true, Why: whyTooFewPoints}
	}
	var at, slope float64
	for i, v := range x {
		d := (v - mx) / sxx
		at += math.Abs(1/float64(n)+(end-mx)*d) * e[i]
		slope += math.Abs(d) * e[i]
	}
	return Bound{AtSync: at, Slope: slope}
}
