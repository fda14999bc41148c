package analysis

import (
	"math"
	"slices"

	"gonum.org/v1/gonum/stat/distuv"
)

// HodgesLehmannPaired returns the Hodges-Lehmann estimate of the shift of
// paired samples, the (pseudo)median of the differences d = x − y, with the
// confidence interval that inverts the Wilcoxon signed-rank test: the
// companion of WilcoxonSignedRank as HodgesLehmann is of WilcoxonRankSum
// (Hoefler & Belli 2015, §3.2: report the size of a difference with its interval).
//
// Exact case (fewer than wilcoxonExactLimit pairs, no zero difference, no
// ties among |d|), as R's wilcox.test(x, y, paired = TRUE, conf.int = TRUE,
// conf.level = level): the estimate is the median of the n(n+1)/2 Walsh
// averages (d_i + d_j)/2, i ≤ j, and the bounds are the Walsh averages at
// ranks qsignrank(α/2, n) and n(n+1)/2 − qsignrank(α/2, n) + 1 (α for a
// one-sided alternative, whose other bound is infinite); Confidence is the
// level achieved. Otherwise zero differences are dropped (as R does) and the
// bounds are the Walsh averages at the normal-approximation ranks
// k = ⌊n(n+1)/4 − z·√(n(n+1)(2n+1)/24)⌋ (at least 1), which is not R's
// root-finding interval (Method says so). Unequal lengths, NaN or no
// nonzero difference give NaN with a warning.
func HodgesLehmannPaired(x, y []float64, alt Alternative, level float64) Shift {
	checkLevel(level)
	nan := math.NaN()
	sh := Shift{Estimate: nan, Interval: Interval{Lo: nan, Hi: nan, Level: level, Confidence: nan}}
	d, zeros, why := nonzeroDiffs(x, y)
	if why == "" && (hasInf(x) || hasInf(y)) {
		why = "infinite value in a sample"
	}
	if why != "" {
		sh.Warning = why
		return sh
	}
	n := len(d)
	walsh := make([]float64, 0, n*(n+1)/2)
	for i := range d {
		for j := i; j < n; j++ {
			walsh = append(walsh, (d[i]+d[j])/2)
		}
	}
	slices.Sort(walsh)
	sh.Estimate = Quantile(0.5, walsh)
	N := len(walsh)
	alpha := 1 - level
	abs := make([]float64, n)
	for i, v := range d {
		abs[i] = math.Abs(v)
	}
	_, tieSum := midRanks(abs)
	if n < wilcoxonExactLimit && zeros == 0 && tieSum == 0 {
		sh.Method = "Hodges-Lehmann paired (exact)"
		dist := getSignRank(n)
		q := func(p float64) int { // R's qsignrank for p ≤ 0.5
			p -= 10 * epsilon
			for v, c := range dist.lower {
				if c >= p {
					return v
				}
			}
			return len(dist.lower) - 1
		}
		a := alpha
		if alt == TwoSided {
			a = alpha / 2
		}
		qu := max(q(a), 1)
		ql := N - qu
		sh.Lo, sh.Hi = walsh[qu-1], walsh[ql]
		achieved := dist.le(float64(qu - 1))
		switch alt {
		case TwoSided:
			sh.Confidence = 1 - 2*achieved
		case Greater:
			sh.Hi, sh.Confidence = math.Inf(1), 1-achieved
		case Less:
			sh.Lo, sh.Confidence = math.Inf(-1), 1-achieved
		}
		return sh
	}
	sh.Method = "Hodges-Lehmann paired (normal approx. order statistics)"
	a := alpha
	if alt == TwoSided {
		a = alpha / 2
	}
	fn := float64(n)
	z := distuv.UnitNormal.Quantile(1 - a)
	k := int(math.Floor(fn*(fn+1)/4 - z*math.Sqrt(fn*(fn+1)*(2*fn+1)/24)))
	k = min(max(k, 1), N)
	sh.Lo, sh.Hi, sh.Confidence = walsh[k-1], walsh[N-k], level
	switch alt {
	case Greater:
		sh.Hi = math.Inf(1)
	case Less:
		sh.Lo = math.Inf(-1)
	}
	return sh
}
