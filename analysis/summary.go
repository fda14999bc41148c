package analysis

import (
	"math"
	"slices"

	"github.com/reprobench/reprobench/internal/order"
)

// Quantile returns the p-quantile of the sample x using R's default
// definition (Hyndman and Fan type 7): with h = (n−1)p and x sorted, the
// value x[⌊h⌋] + (h−⌊h⌋)(x[⌊h⌋+1] − x[⌊h⌋]) (0-based). x may be in any
// order and is not modified: sorted input is used as it is, other input
// is sorted in a copy. It returns NaN for an empty sample and panics if p
// is outside [0, 1].
func Quantile(p float64, x []float64) float64 {
	if !(p >= 0 && p <= 1) {
		panic("analysis: quantile level outside [0, 1]")
	}
	x = sortedView(x)
	n := len(x)
	if n == 0 {
		return math.NaN()
	}
	h := float64(n-1) * p
	lo := math.Floor(h)
	i := int(lo)
	if i >= n-1 {
		return x[n-1]
	}
	return x[i] + (h-lo)*(x[i+1]-x[i])
}

// QuantileNearestRank returns the p-quantile of the sorted sample x by the
// nearest-rank rule of the OSU micro-benchmarks' tail latencies (osu_util_mpi.c,
// omb_calculate_tail_lat, printed by -z as P50, P90 and P99): the element
// of 1-based rank round(n·p), half away from zero, clamped to [1, n]. OSU
// applies it to the per-iteration times averaged over ranks; with
// `reprobench run --runtime osu --loop-reps 1` each row's runtime_s is that
// average, so the rule on those rows gives OSU's percentiles
// (bench/fidelity, cell osu-allreduce-8-tail). Type 7 (Quantile)
// interpolates instead: the two differ by at most the gap between
// neighbouring order statistics. It returns NaN for an empty sample and
// panics if x is not sorted or p is outside [0, 1].
func QuantileNearestRank(p float64, x []float64) float64 {
	if !(p >= 0 && p <= 1) {
		panic("analysis: quantile level outside [0, 1]")
	}
	if !sortedNaNFree(x) {
		panic("analysis: QuantileNearestRank: x not sorted")
	}
	n := len(x)
	if n == 0 {
		return math.NaN()
	}
	k := int(math.Round(float64(n) * p))
	return x[min(max(k, 1), n)-1]
}

func sortedNaNFree(x []float64) bool {
	for i := 1; i < len(x); i++ {
		if x[i] < x[i-1] {
			return false
		}
	}
	return true
}

// sortedView returns x if it is sorted, else a sorted copy: the functions
// on order statistics take samples in any order, and the common sorted
// input costs one pass and no copy.
func sortedView(x []float64) []float64 {
	if sortedNaNFree(x) {
		return x
	}
	s := slices.Clone(x)
	slices.Sort(s)
	return s
}

// Median returns the median of x (any order; x is not modified): the middle
// order statistic, or the mean of the two middle ones. NaN for empty x.
func Median(x []float64) float64 { return order.Median(x) }

// Mean returns the arithmetic mean of x (NaN when empty).
func Mean(x []float64) float64 {
	if len(x) == 0 {
		return math.NaN()
	}
	var s float64
	for _, v := range x {
		s += v
	}
	return s / float64(len(x))
}

// variance returns the unbiased sample variance Σ(x−x̄)²/(n−1)
// (NaN for n < 2), computed with the two-pass corrected algorithm.
func variance(x []float64) float64 {
	n := len(x)
	if n < 2 {
		return math.NaN()
	}
	m := Mean(x)
	var ss, c float64
	for _, v := range x {
		d := v - m
		ss += d * d
		c += d
	}
	return (ss - c*c/float64(n)) / float64(n-1)
}

// StdDev returns the sample standard deviation √variance(x).
func StdDev(x []float64) float64 { return math.Sqrt(variance(x)) }

// geoMean returns the geometric mean exp(mean(log x)) (Hoefler & Belli 2015, Rule 3: for
// ratios such as speedups). NaN when empty or when any value is ≤ 0.
func geoMean(x []float64) float64 {
	if len(x) == 0 {
		return math.NaN()
	}
	var s float64
	for _, v := range x {
		if !(v > 0) {
			return math.NaN()
		}
		s += math.Log(v)
	}
	return math.Exp(s / float64(len(x)))
}

// harmMean returns the harmonic mean n/Σ(1/x) (Hoefler & Belli 2015, Rule 3: for rates).
// NaN when empty or when any value is ≤ 0.
func harmMean(x []float64) float64 {
	if len(x) == 0 {
		return math.NaN()
	}
	var s float64
	for _, v := range x {
		if !(v > 0) {
			return math.NaN()
		}
		s += 1 / v
	}
	return float64(len(x)) / s
}

// Summary describes one sample. All values are in the unit of the input.
type Summary struct {
	N                 int
	Min, Max          float64
	Mean, SD          float64
	Q1, Median, Q3    float64 // type-7 quartiles
	P99               float64 // type-7 99th percentile
	CoV               float64 // SD / Mean
	GeoMean, HarmMean float64
}

// Summarize computes the Summary of x (any order; x is not modified).
func Summarize(x []float64) Summary {
	s := slices.Clone(x)
	slices.Sort(s)
	return summarizeSorted(s)
}

func summarizeSorted(s []float64) Summary {
	n := len(s)
	if n == 0 {
		nan := math.NaN()
		return Summary{Min: nan, Max: nan, Mean: nan, SD: nan, Q1: nan, Median: nan, Q3: nan, P99: nan, CoV: nan, GeoMean: nan, HarmMean: nan}
	}
	m := Mean(s)
	sd := StdDev(s)
	return Summary{
		N: n, Min: s[0], Max: s[n-1], Mean: m, SD: sd,
		Q1: Quantile(0.25, s), Median: Quantile(0.5, s), Q3: Quantile(0.75, s),
		P99: Quantile(0.99, s), CoV: sd / m,
		GeoMean: geoMean(s), HarmMean: harmMean(s),
	}
}

// TukeyFilter returns the values of x inside Tukey's fences
// [Q1 − k·IQR, Q3 + k·IQR] (type-7 quartiles; k = 1.5 is Tukey's choice) in
// their original order, and how many were removed. Samples with fewer than 4
// values are returned unchanged. Hunold & Carpen-Amarie 2016, Alg. 6, remove_outliers.
func TukeyFilter(x []float64, k float64) (kept []float64, removed int) {
	if len(x) < 4 {
		return slices.Clone(x), 0
	}
	s := slices.Clone(x)
	slices.Sort(s)
	lo, hi := tukeyFences(s, k)
	kept = make([]float64, 0, len(x))
	for _, v := range x {
		if v >= lo && v <= hi {
			kept = append(kept, v)
		}
	}
	return kept, len(x) - len(kept)
}

func tukeyFences(sorted []float64, k float64) (lo, hi float64) {
	q1, q3 := Quantile(0.25, sorted), Quantile(0.75, sorted)
	iqr := q3 - q1
	return q1 - k*iqr, q3 + k*iqr
}

// tukeySorted filters a sorted sample in place semantics: it returns the
// sub-slice inside the fences.
func tukeySorted(s []float64, k float64) ([]float64, int) {
	if len(s) < 4 || k <= 0 {
		return s, 0
	}
	lo, hi := tukeyFences(s, k)
	i, _ := slices.BinarySearch(s, lo)
	j := len(s)
	for j > i && s[j-1] > hi {
		j--
	}
	return s[i:j], len(s) - (j - i)
}
