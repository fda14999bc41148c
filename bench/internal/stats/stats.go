// Package stats holds the statistics that only the benchmarks use: the
// normalized run times of the reproducibility metric (Hunold &
// Carpen-Amarie 2016, §6.3) over any values, where the library offers
// them for a group's per-mpirun means (analysis.ReproducibilityMetric).
// The library's statistics are in package analysis.
package stats

import (
	"math"
	"slices"
)

// Normalize returns x divided by its minimum: the normalized run times of
// the reproducibility metric of Hunold & Carpen-Amarie 2016 (§6.3), where x
// holds one value per trial (a whole repetition of the method). NaN entries
// when the minimum is ≤ 0.
func Normalize(x []float64) []float64 {
	out := make([]float64, len(x))
	if len(x) == 0 {
		return out
	}
	mn := slices.Min(x)
	for i, v := range x {
		if mn > 0 {
			out[i] = v / mn
		} else {
			out[i] = math.NaN()
		}
	}
	return out
}
