package order

import (
	"math"
	"slices"
)

// Quantile is the p-quantile of sorted, non-empty s by linear
// interpolation between order statistics: R's default quantile(type = 7).
// Its arguments are in the order of analysis.Quantile(p, x).
func Quantile(p float64, s []float64) float64 {
	h := p * float64(len(s)-1)
	i := int(math.Floor(h))
	if i+1 >= len(s) {
		return s[len(s)-1]
	}
	return s[i] + (h-float64(i))*(s[i+1]-s[i])
}

// Median returns the median of x, in any order (x is not modified): the
// middle order statistic, or the mean of the two middle ones; R's
// median(x). It returns NaN for an empty x.
func Median(x []float64) float64 {
	if len(x) == 0 {
		return math.NaN()
	}
	s := slices.Clone(x)
	slices.Sort(s)
	return Quantile(0.5, s)
}

// LowerMedianIndex returns the index in x of its lower median, the
// ⌈n/2⌉-th smallest value (ties broken by index), for a caller that must
// pick a real observation rather than a mean of two. scratch holds the
// permutation and is reused across calls; x must not be empty.
func LowerMedianIndex(x []float64, scratch *[]int) int {
	idx := (*scratch)[:0]
	for i := range x {
		idx = append(idx, i)
	}
	slices.SortFunc(idx, func(a, b int) int {
		switch {
		case x[a] < x[b]:
			return -1
		case x[a] > x[b]:
			return 1
		}
		return a - b
	})
	*scratch = idx
	return idx[(len(idx)-1)/2]
}
