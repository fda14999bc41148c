package analysis

import (
	"fmt"
	"math"
	"slices"

	"gonum.org/v1/gonum/stat/distuv"
)

// Interval is a two-sided confidence interval.
type Interval struct {
	Lo, Hi float64
	// Level is the requested confidence (e.g. 0.95); Confidence is the
	// confidence actually achieved (≥ Level for order-statistic intervals,
	// = Level for t intervals, NaN when no interval exists).
	Level, Confidence float64
	// LoRank and HiRank are the 1-based order statistics used by quantileCI
	// (0 otherwise).
	LoRank, HiRank int
	// Warning says why the interval is missing or what it assumes.
	Warning string
}

// Valid reports whether the interval exists.
func (iv Interval) Valid() bool { return !math.IsNaN(iv.Lo) && !math.IsNaN(iv.Hi) }

func checkLevel(level float64) {
	if !(level > 0 && level < 1) {
		panic("analysis: confidence level outside (0, 1)")
	}
}

// meanCI returns the Student-t confidence interval of the mean,
// x̄ ± t(n−1, 1−α/2)·s/√n (Hoefler & Belli 2015, §3.1.2). It assumes the sample mean is
// normally distributed; check with ShapiroWilk. NaN bounds for n < 2.
func meanCI(x []float64, level float64) Interval {
	checkLevel(level)
	n := len(x)
	if n < 2 {
		return Interval{Lo: math.NaN(), Hi: math.NaN(), Level: level, Confidence: math.NaN(),
			Warning: "need at least 2 observations for a confidence interval of the mean"}
	}
	m := Mean(x)
	se := StdDev(x) / math.Sqrt(float64(n))
	t := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: float64(n - 1)}.Quantile(1 - (1-level)/2)
	return Interval{Lo: m - t*se, Hi: m + t*se, Level: level, Confidence: level}
}

// exactRankLimit is the largest sample size for which quantileCI searches the
// exact binomial ranks; above it the ranks start from the normal
// approximation of Hoefler & Belli 2015, §3.1.3.
const exactRankLimit = 1000

// binomCDF returns P(B ≤ k) for B ~ Binomial(n, p).
func binomCDF(k, n int, p float64) float64 {
	switch {
	case k < 0:
		return 0
	case k >= n:
		return 1
	}
	// P(B ≤ k) = I_{1−p}(n−k, k+1), as gonum computes it.
	return distuv.Binomial{N: float64(n), P: p}.CDF(float64(k))
}

// binomQuantile returns the smallest k with P(B ≤ k) ≥ q (R's qbinom).
func binomQuantile(q float64, n int, p float64) int {
	lo, hi := 0, n
	q *= 1 - 64*epsilon
	for lo < hi {
		mid := (lo + hi) / 2
		if binomCDF(mid, n, p) >= q {
			hi = mid
		} else {
			lo = mid + 1
		}
	}
	return lo
}

const epsilon = 2.220446049250313e-16

// quantileCI returns a distribution-free confidence interval for the
// p-quantile of the population from the sample x (any order; not
// modified): the order statistics x(l) and x(u) (1-based) such that, with B ~ Binomial(n, p),
// P(l ≤ B ≤ u−1) ≥ level (Hoefler & Belli 2015, §3.1.3 after Le Boudec).
//
// For n ≤ exactRankLimit, l = qbinom(α/2, n, p) and u = qbinom(1−α/2, n, p)+1
// (the shortest equal-tailed exact ranks). For larger n the ranks come from
// the normal approximation l = ⌊np − z√(np(1−p))⌋, u = ⌈1 + np +
// z√(np(1−p))⌉ with z = Φ⁻¹(1−α/2) > 0 (for the median: ⌊(n − z√n)/2⌋ and
// ⌈1 + (n + z√n)/2⌉), widened one rank at a time until the achieved
// confidence, computed from the binomial distribution, reaches level.
//
// When n is too small for the requested level (e.g. n < 6 for the 95% CI of
// the median) the bounds are NaN and Warning says how many observations are
// needed. It panics if p or level is outside (0, 1).
func quantileCI(p float64, x []float64, level float64) Interval {
	checkLevel(level)
	if !(p > 0 && p < 1) {
		panic("analysis: quantile level outside (0, 1)")
	}
	x = sortedView(x)
	n := len(x)
	alpha := 1 - level
	iv := Interval{Lo: math.NaN(), Hi: math.NaN(), Level: level, Confidence: math.NaN()}
	if n == 0 {
		iv.Warning = "no observations"
		return iv
	}
	var l, u int
	if n <= exactRankLimit {
		l = binomQuantile(alpha/2, n, p)
		u = binomQuantile(1-alpha/2, n, p) + 1
	} else {
		z := distuv.UnitNormal.Quantile(1 - alpha/2)
		np := float64(n) * p
		sd := math.Sqrt(np * (1 - p))
		l = int(math.Floor(np - z*sd))
		u = int(math.Ceil(1 + np + z*sd))
		for l >= 1 && u <= n && binomCDF(u-1, n, p)-binomCDF(l-1, n, p) < level {
			l--
			u++
		}
	}
	if l < 1 || u > n {
		iv.Warning = fmt.Sprintf("need more than %d observations for a %g%% confidence interval of the %g quantile", n, 100*level, p)
		if nmin := minNForQuantileCI(p, level); nmin > 0 {
			iv.Warning = fmt.Sprintf("need at least %d observations for a %g%% confidence interval of the %g quantile", nmin, 100*level, p)
		}
		return iv
	}
	iv.Lo, iv.Hi = x[l-1], x[u-1]
	iv.LoRank, iv.HiRank = l, u
	iv.Confidence = binomCDF(u-1, n, p) - binomCDF(l-1, n, p)
	return iv
}

// minNForQuantileCI returns the smallest n for which quantileCI exists (0 if
// above 10000).
func minNForQuantileCI(p, level float64) int {
	alpha := 1 - level
	for n := 1; n <= 10000; n++ {
		// Existence: P(B = 0) < α/2 and P(B = n) < α/2 ... precisely l ≥ 1 and u ≤ n.
		if binomQuantile(alpha/2, n, p) >= 1 && binomQuantile(1-alpha/2, n, p)+1 <= n {
			return n
		}
	}
	return 0
}

// MedianCI is quantileCI(0.5, x, level): the confidence interval of the
// median from the sample x, in any order (Summarize sorts too). It panics
// if level is outside (0, 1) (0.95, not 95).
func MedianCI(x []float64, level float64) Interval { return quantileCI(0.5, x, level) }

// MpirunMedianCI returns the confidence interval of the median of the
// per-mpirun medians (any order; not modified): the headline interval of
// GroupSummary when a group ran in at least 2 mpiruns. The m medians are
// the independent samples (Hunold & Carpen-Amarie 2016, §5.2, Hunold et al. 2014: the mpirun is a
// factor), so the exact order-statistic interval of quantileCI on them
// covers the median of the mpirun-median distribution with at least the
// achieved Confidence whatever that distribution is, and it widens with
// the mpirun-to-mpirun variation, which an interval on the pooled
// observations ignores.
//
// With m medians the widest order-statistic interval, [min, max], has
// confidence 1 − 2·0.5^m: 50 % for m = 2, 75 % for 3, 87.5 % for 4,
// 93.75 % for 5, 96.9 % for 6. When m is too small for level (m < 6 at
// 95 %), MpirunMedianCI returns [min, max] with that lower Confidence
// and a Warning naming it and the number of mpiruns needed; it never
// claims a level it does not reach. For m < 2 the bounds are NaN.
func MpirunMedianCI(medians []float64, level float64) Interval {
	checkLevel(level)
	m := slices.Clone(medians)
	slices.Sort(m)
	if len(m) < 2 {
		return Interval{Lo: math.NaN(), Hi: math.NaN(), Level: level, Confidence: math.NaN(),
			Warning: "need at least 2 mpiruns for an interval of the median of mpirun medians"}
	}
	if iv := quantileCI(0.5, m, level); iv.Valid() {
		return iv
	}
	n := len(m)
	conf := 1 - 2*math.Pow(0.5, float64(n))
	return Interval{Lo: m[0], Hi: m[n-1], Level: level, Confidence: conf, LoRank: 1, HiRank: n,
		Warning: fmt.Sprintf("only %d mpiruns: [min, max] of their medians is a %.4g%% interval (%d mpiruns needed for %g%%)",
			n, 100*conf, minNForQuantileCI(0.5, level), 100*level)}
}
