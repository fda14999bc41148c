package analysis

import (
	"math"
	"sync"
)

// signRankCache holds the exact null distributions of the signed-rank
// statistic: n → *signRankDist.
var signRankCache sync.Map

// signRankDist is the exact null distribution of V for one n: lower[v] =
// P(V ≤ v) and upper[v] = P(V ≥ v), each summed from its own tail so that
// small p-values keep their digits.
type signRankDist struct{ lower, upper []float64 }

// getSignRank returns the distribution of V for n pairs under H0: V is the
// sum of a random subset of the ranks 1 … n, every subset equally likely
// (R's psignrank). It counts subsets by dynamic programming.
func getSignRank(n int) *signRankDist {
	if c, ok := signRankCache.Load(n); ok {
		return c.(*signRankDist)
	}
	maxV := n * (n + 1) / 2
	count := make([]float64, maxV+1)
	count[0] = 1
	for k := 1; k <= n; k++ {
		for v := k * (k + 1) / 2; v >= k; v-- {
			count[v] += count[v-k]
		}
	}
	total := math.Ldexp(1, n)
	d := &signRankDist{lower: make([]float64, maxV+1), upper: make([]float64, maxV+1)}
	var s float64
	for v, c := range count {
		s += c
		d.lower[v] = s / total
	}
	s = 0
	for v := maxV; v >= 0; v-- {
		s += count[v]
		d.upper[v] = s / total
	}
	signRankCache.Store(n, d)
	return d
}

// le returns P(V ≤ q).
func (d *signRankDist) le(q float64) float64 {
	k := int(math.Floor(q + 1e-7))
	switch {
	case k < 0:
		return 0
	case k >= len(d.lower):
		return 1
	}
	return d.lower[k]
}

// ge returns P(V ≥ q).
func (d *signRankDist) ge(q float64) float64 {
	k := int(math.Ceil(q - 1e-7))
	switch {
	case k <= 0:
		return 1
	case k >= len(d.upper):
		return 0
	}
	return d.upper[k]
}

// WilcoxonSignedRank performs the Wilcoxon signed-rank test on paired
// samples (x[i], y[i]) of H0: the differences x − y are symmetric about 0,
// against a location shift (Less: x tends to be smaller than y). Pairs
// with a zero difference are dropped, as R does. The statistic is
// V = Σ rank(|d|) over the positive differences d.
//
// With fewer than wilcoxonExactLimit differences, no ties among |d| and no
// zero differences the p-value is exact; otherwise it comes from the normal
// approximation z = (V − n(n+1)/4 − c)/σ with the tie-corrected
// σ² = n(n+1)(2n+1)/24 − Σ(t³−t)/48 and continuity correction c = ±0.5,
// exactly as R's wilcox.test(x, y, paired = TRUE, alternative,
// correct = TRUE). Unequal lengths, NaN or no nonzero difference give
// p = NaN and a warning.
func WilcoxonSignedRank(x, y []float64, alt Alternative) TestResult {
	const method = "Wilcoxon signed-rank"
	res := TestResult{Method: method, DF: math.NaN(), DF2: math.NaN(), Statistic: math.NaN(), P: math.NaN()}
	d, zeros, why := nonzeroDiffs(x, y)
	if why != "" {
		res.Warning = why + ": no comparison"
		return res
	}
	n := len(d)
	abs := make([]float64, n)
	for i, v := range d {
		abs[i] = math.Abs(v)
	}
	r, tieSum := midRanks(abs)
	var v float64
	for i, di := range d {
		if di > 0 {
			v += r[i]
		}
	}
	res.Statistic = v
	fn := float64(n)
	if n < wilcoxonExactLimit && tieSum == 0 && zeros == 0 {
		res.Method = method + " (exact)"
		dist := getSignRank(n)
		switch alt {
		case TwoSided:
			p := dist.le(v)
			if v > fn*(fn+1)/4 {
				p = dist.ge(v)
			}
			res.P = math.Min(2*p, 1)
		case Greater:
			res.P = dist.ge(v)
		case Less:
			res.P = dist.le(v)
		}
		return res
	}
	res.Method = method + " (normal approx., tie and continuity corrected)"
	switch {
	case zeros > 0 && tieSum > 0:
		res.Warning = "ties and zero differences: no exact p-value"
	case zeros > 0:
		res.Warning = "zero differences: no exact p-value"
	case tieSum > 0 && n < wilcoxonExactLimit:
		res.Warning = "ties: no exact p-value"
	}
	sigma := math.Sqrt(fn*(fn+1)*(2*fn+1)/24 - tieSum/48)
	res.P = continuityNormalP(v-fn*(fn+1)/4, sigma, alt)
	return res
}

// nonzeroDiffs returns the nonzero paired differences x[i] − y[i] and how
// many were zero (the signed-rank statistics drop zeros, as R does), or why
// they cannot be formed: unequal lengths, a NaN, or no nonzero difference.
func nonzeroDiffs(x, y []float64) (d []float64, zeros int, why string) {
	switch {
	case len(x) != len(y):
		return nil, 0, "paired samples of unequal length"
	case hasNaN(x) || hasNaN(y):
		return nil, 0, "NaN in a sample"
	}
	d = make([]float64, 0, len(x))
	for i := range x {
		if v := x[i] - y[i]; v != 0 {
			d = append(d, v)
		}
	}
	zeros = len(x) - len(d)
	if len(d) == 0 {
		return nil, zeros, "every difference is zero"
	}
	return d, zeros, ""
}
