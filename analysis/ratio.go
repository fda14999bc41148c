package analysis

import (
	"fmt"
	"math"
	"slices"
)

// MedianRatioCI returns a distribution-free confidence interval for the
// ratio of two population medians, θ_B/θ_A, from the positive samples a
// and b (any order; not modified): the interval of Comparison.Ratio,
// Median(b)/Median(a), which always lies inside it.
//
// Construction (exact order statistics, no resampling, no seed): each
// side gets the order-statistic interval of its median of quantileCI,
// [a(l), a(u)] and [b(l'), b(u')], and the ratio's interval is
// [b(l')/a(u), b(u')/a(l)]. Whenever both medians lie in their intervals
// the ratio lies in this one, so its coverage is at least
//
//	Confidence = γ_A·γ_B            (independent sides, paired false)
//	Confidence = γ_A + γ_B − 1      (paired true: the same mpiruns on both sides; Bonferroni)
//
// with γ the exact confidence each side achieves, for any continuous
// distributions. Some pairs of distributions come arbitrarily close to
// the bound, so a distribution-free statement cannot claim more; for
// the skewed and bimodal distributions of the tests the coverage is
// higher (0.98–1.0 where 0.94–0.98 is stated). The per-side
// levels are chosen from the sample sizes alone, never from the data:
// √level each (independent) or (1+level)/2 each (paired); when a side is
// too small for that, it takes [min, max] and the other side the level
// that makes up for it. When even [min, max] on both sides falls short
// of level (6+6 independent values reach 93.85 % at most; 7 per side are
// needed for 95 %), the interval is [min B/max A, max B/min A] with its
// lower Confidence and a Warning that names it; it never claims a level
// it does not reach.
//
// Why not a bootstrap: with the handful of per-mpirun medians a
// comparison has (6 per side is typical) the percentile bootstrap of a
// median resamples a few order statistics and undercovers, and a seed
// would make the interval depend on a random choice; gonum has no
// interval for a ratio of medians, so this one is written here.
//
// Values ≤ 0 or NaN, an empty side, or a side with one value give NaN
// bounds with a Warning. It panics if level is outside (0, 1).
func MedianRatioCI(a, b []float64, paired bool, level float64) Interval {
	checkLevel(level)
	nan := math.NaN()
	iv := Interval{Lo: nan, Hi: nan, Level: level, Confidence: nan}
	bad := func(v float64) bool { return !(v > 0) || math.IsInf(v, 1) }
	switch {
	case len(a) == 0 || len(b) == 0:
		iv.Warning = "no values on a side: no interval of the median ratio"
		return iv
	case slices.ContainsFunc(a, bad) || slices.ContainsFunc(b, bad):
		iv.Warning = "a value ≤ 0, infinite or NaN: no interval of the median ratio"
		return iv
	case len(a) < 2 || len(b) < 2:
		iv.Warning = fmt.Sprintf("%d+%d values: no interval of the median ratio (at least 2 per side)", len(a), len(b))
		return iv
	}
	// combine is the joint coverage of two sides at γa, γb; need is the
	// level one side must reach when the other reaches γ.
	combine := func(ga, gb float64) float64 { return ga * gb }
	need := func(g float64) float64 { return level / g }
	perSide := math.Sqrt(level)
	if paired {
		combine = func(ga, gb float64) float64 { return ga + gb - 1 }
		need = func(g float64) float64 { return level + 1 - g }
		perSide = (1 + level) / 2
	}
	sa, sb := sortedView(a), sortedView(b)
	ia, ib := quantileCI(0.5, sa, perSide), quantileCI(0.5, sb, perSide)
	switch {
	case !ia.Valid() && !ib.Valid():
		ia, ib = widestMedianCI(sa, level), widestMedianCI(sb, level)
	case !ia.Valid():
		ia = widestMedianCI(sa, level)
		ib = otherSideCI(sb, need(ia.Confidence), level)
	case !ib.Valid():
		ib = widestMedianCI(sb, level)
		ia = otherSideCI(sa, need(ib.Confidence), level)
	}
	iv.Lo, iv.Hi = ib.Lo/ia.Hi, ib.Hi/ia.Lo
	iv.Confidence = combine(ia.Confidence, ib.Confidence)
	if iv.Confidence < level*(1-64*epsilon) {
		perN := minNForQuantileCI(0.5, perSide)
		iv.Warning = fmt.Sprintf("only %d+%d values: [min B/max A, max B/min A] is a %.4g%% interval of the median ratio (%d per side needed for %g%%)",
			len(a), len(b), 100*iv.Confidence, perN, 100*level)
	}
	return iv
}

// widestMedianCI is [min, max] of the sorted s (len ≥ 2) as an interval
// of the median, with its exact confidence 1 − 2·0.5^n.
func widestMedianCI(s []float64, level float64) Interval {
	n := len(s)
	return Interval{Lo: s[0], Hi: s[n-1], Level: level, Confidence: 1 - 2*math.Pow(0.5, float64(n)), LoRank: 1, HiRank: n}
}

// otherSideCI is the median interval of the sorted s at level g when the
// other side fell short of its share; [min, max] when g cannot be reached.
func otherSideCI(s []float64, g, level float64) Interval {
	if g > 0 && g < 1 {
		if iv := quantileCI(0.5, s, g); iv.Valid() {
			return iv
		}
	}
	return widestMedianCI(s, level)
}
