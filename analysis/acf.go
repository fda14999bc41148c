package analysis

import (
	"math"

	"gonum.org/v1/gonum/stat/distuv"
)

// ACF returns the sample autocorrelation of x for lags 0..maxLag, as R's
// acf(x, lag.max, plot = FALSE): r_h = C_h/C_0 with the biased
// autocovariance C_h = (1/n) Σ_{t=1}^{n−h} (x_t − x̄)(x_{t+h} − x̄)
// (Hunold et al. 2014, §4.4). bound is the approximate significance bound
// ±Φ⁻¹(1−α/2)/√n for white noise at level 1−α (R's plot.acf default with
// α = 0.05); lags whose |r_h| exceeds it indicate dependent measurements.
func ACF(x []float64, maxLag int, alpha float64) (r []float64, bound float64) {
	n := len(x)
	if maxLag >= n {
		maxLag = n - 1
	}
	if n == 0 || maxLag < 0 {
		return nil, math.NaN()
	}
	m := Mean(x)
	r = make([]float64, maxLag+1)
	var c0 float64
	for _, v := range x {
		c0 += (v - m) * (v - m)
	}
	for h := 0; h <= maxLag; h++ {
		var c float64
		for t := 0; t+h < n; t++ {
			c += (x[t] - m) * (x[t+h] - m)
		}
		r[h] = c / c0
	}
	bound = distuv.UnitNormal.Quantile(1-alpha/2) / math.Sqrt(float64(n))
	return r, bound
}

// medianCIStop reports whether the nonparametric stopping rule of Hoefler & Belli 2015
// §4.2.2 is met by the sample x (any order): the level confidence interval of the
// median exists and lies within ±e·median. Check it after every k new
// measurements and stop when it returns true.
func medianCIStop(x []float64, e, level float64) bool {
	x = sortedView(x)
	iv := MedianCI(x, level)
	if !iv.Valid() {
		return false
	}
	med := Quantile(0.5, x)
	return iv.Lo >= med-e*math.Abs(med) && iv.Hi <= med+e*math.Abs(med)
}

// QuantileShift is the difference between two samples at one quantile level.
type QuantileShift struct {
	Tau      float64
	A, B     float64 // quantiles of each sample
	Diff     float64 // B − A
	Lo, Hi   float64 // confidence interval of Diff
	ALo, AHi float64 // confidence interval of the quantile of A
	BLo, BHi float64 // confidence interval of the quantile of B
}

// QuantileRegression fits, for each τ in taus, the quantile regression
// y = β₀(τ) + β₁(τ)·[sample is B] of Hoefler & Belli 2015, §3.2.3 (Fig. 4): with a single
// binary regressor the linear program is solved exactly by the sample
// quantiles, β₀ = Q_A(τ) and β₁ = Q_B(τ) − Q_A(τ), where Q is the empirical
// (type 1, inverse-ECDF) quantile minimizing the check loss.
//
// The interval of β₁ combines the two independent order-statistic intervals
// of quantileCI: with half-widths converted to standard errors
// (width/(2z)), Diff ± z·√(seA² + seB²). This is a normal approximation
// and requires both intervals to exist (otherwise Lo, Hi are NaN). It is not
// the rank-inversion interval of R's quantreg (not installed here).
// a and b may be in any order (they are not modified).
func QuantileRegression(a, b []float64, taus []float64, level float64) []QuantileShift {
	checkLevel(level)
	a, b = sortedView(a), sortedView(b)
	z := distuv.UnitNormal.Quantile(1 - (1-level)/2)
	out := make([]QuantileShift, 0, len(taus))
	for _, tau := range taus {
		qa, qb := quantileType1(tau, a), quantileType1(tau, b)
		ia, ib := quantileCI(tau, a, level), quantileCI(tau, b, level)
		s := QuantileShift{Tau: tau, A: qa, B: qb, Diff: qb - qa,
			ALo: ia.Lo, AHi: ia.Hi, BLo: ib.Lo, BHi: ib.Hi}
		sa := (ia.Hi - ia.Lo) / (2 * z)
		sb := (ib.Hi - ib.Lo) / (2 * z)
		se := math.Sqrt(sa*sa + sb*sb)
		s.Lo, s.Hi = s.Diff-z*se, s.Diff+z*se
		out = append(out, s)
	}
	return out
}

// quantileType1 is the inverse of the empirical CDF (R's quantile type 1):
// x(⌈nτ⌉).
func quantileType1(tau float64, x []float64) float64 {
	n := len(x)
	if n == 0 {
		return math.NaN()
	}
	k := int(math.Ceil(float64(n)*tau - 1e-12))
	if k < 1 {
		k = 1
	}
	return x[k-1]
}

// Taus returns τ = 0.02, 0.04, …, 0.98, the grid of Hoefler & Belli 2015, Fig. 4.
func Taus() []float64 {
	t := make([]float64, 49)
	for i := range t {
		t[i] = float64(i+1) / 50
	}
	return t
}
