package main

import (
	"math"
	"slices"

	"github.com/reprobench/reprobench/analysis"
)

// modes classifies the runs of one side of a cell by their own values:
// sorted, the runs split wherever one value exceeds the one before it by
// more than the factor gap (Open MPI's 8-byte allreduce: 230–330 ns in
// the fast state and 490–640 ns in the slow one, a gap of 1.5×; the
// spread inside a state is made of steps of at most 1.1×). It returns the
// mode of each run, 0 for the fastest; a mode of fewer than minRuns runs is
// merged into its neighbour below (a lone outlier is not a state).
func modes(v []float64, gap float64, minRuns int) []int {
	n := len(v)
	idx := make([]int, n)
	for i := range idx {
		idx[i] = i
	}
	slices.SortFunc(idx, func(a, b int) int {
		switch {
		case v[a] < v[b]:
			return -1
		case v[a] > v[b]:
			return 1
		}
		return a - b
	})
	// Boundaries: sorted positions where a new mode starts.
	var cuts []int
	for k := 1; k < n; k++ {
		if v[idx[k]] > gap*v[idx[k-1]] {
			cuts = append(cuts, k)
		}
	}
	// Merge modes smaller than minRuns into the mode below (the first into
	// the one above).
	for changed := true; changed && len(cuts) > 0; {
		changed = false
		bounds := append(append([]int{0}, cuts...), n)
		for m := 0; m+1 < len(bounds); m++ {
			if bounds[m+1]-bounds[m] >= minRuns {
				continue
			}
			if m == 0 {
				cuts = slices.Delete(cuts, 0, 1)
			} else {
				cuts = slices.Delete(cuts, m-1, m)
			}
			changed = true
			break
		}
	}
	out := make([]int, n)
	m := 0
	for k, i := range idx {
		for m < len(cuts) && k >= cuts[m] {
			m++
		}
		out[i] = m
	}
	return out
}

// ratioCI is a ratio with its 95 % interval and how it was obtained.
type ratioCI struct {
	N              int // pairs, or runs on each side (unpaired: the smaller side)
	Est, Lo, Hi    float64
	Method         string
	Min, Max       float64 // of the per-pair ratios (paired), NaN otherwise
	CIWarning      string
	PairedSupports bool
}

// pairedMedian is the median of per-pair ratios with the exact
// order-statistic interval of the median (analysis.MedianCI).
func pairedMedian(r []float64) ratioCI {
	s := slices.Clone(r)
	slices.Sort(s)
	out := ratioCI{N: len(s), Est: math.NaN(), Lo: math.NaN(), Hi: math.NaN(), Min: math.NaN(), Max: math.NaN(), Method: "median of per-pair ratios, exact order-statistic 95 % CI"}
	if len(s) == 0 {
		return out
	}
	out.Est, out.Min, out.Max = analysis.Median(s), s[0], s[len(s)-1]
	ci := analysis.MedianCI(s, 0.95)
	out.Lo, out.Hi, out.CIWarning = ci.Lo, ci.Hi, ci.Warning
	return out
}

// unpairedRatio compares the runs of one mode on the two sides when they
// do not form pairs: the Hodges–Lehmann estimate of the shift of the
// log values (ours − baseline) with the interval from inverting the
// Wilcoxon rank-sum test (analysis.HodgesLehmann, R's wilcox.test with
// conf.int), returned as a ratio.
func unpairedRatio(ours, base []float64) ratioCI {
	out := ratioCI{N: min(len(ours), len(base)), Est: math.NaN(), Lo: math.NaN(), Hi: math.NaN(), Min: math.NaN(), Max: math.NaN(),
		Method: "Hodges–Lehmann ratio of the runs' values, rank-sum 95 % CI"}
	if len(ours) == 0 || len(base) == 0 {
		return out
	}
	if slices.Min(ours) <= 0 || slices.Min(base) <= 0 {
		// A ratio of logs needs positive values (osu_iallreduce's overlap
		// is often 0 %: the log is −Inf, and analysis.HodgesLehmann does
		// not return on infinite input).
		out.CIWarning = "values not all positive: no ratio"
		return out
	}
	lo, lb := logs(ours), logs(base)
	s := analysis.HodgesLehmann(lo, lb, analysis.TwoSided, 0.95)
	out.Est, out.Lo, out.Hi, out.CIWarning = math.Exp(s.Estimate), math.Exp(s.Lo), math.Exp(s.Hi), s.Warning
	return out
}

func logs(v []float64) []float64 {
	out := make([]float64, len(v))
	for i, x := range v {
		out[i] = math.Log(x)
	}
	return out
}

// fisherTwoSided is the two-sided p-value of Fisher's exact test for the
// 2×2 table [[a, b], [c, d]] (rows: sides, columns: in mode / not): the
// probability, under independence, of a table at most as likely as this
// one with the same margins. It says whether one side lands in a mode more
// often than the other.
func fisherTwoSided(a, b, c, d int) float64 {
	r1, c1, n := a+b, a+c, a+b+c+d
	lf := func(k int) float64 { v, _ := math.Lgamma(float64(k) + 1); return v }
	logp := func(x int) float64 {
		return lf(r1) + lf(n-r1) + lf(c1) + lf(n-c1) - lf(n) - lf(x) - lf(r1-x) - lf(c1-x) - lf(n-r1-c1+x)
	}
	p0 := logp(a)
	var p float64
	for x := max(0, r1+c1-n); x <= min(r1, c1); x++ {
		if lp := logp(x); lp <= p0+1e-7 {
			p += math.Exp(lp)
		}
	}
	return min(p, 1)
}
