package analysis_test

import (
	"fmt"

	"github.com/reprobench/reprobench/analysis"
)

// Ten mpiruns of one group, six near 1.0 µs and four near 1.4 µs: the
// per-mpirun medians split into two modes (docs/modes.md), fastest first.
func ExampleFindModes() {
	medians := []float64{1.00e-6, 1.41e-6, 1.01e-6, 0.99e-6, 1.38e-6, 1.02e-6, 1.40e-6, 1.00e-6, 1.39e-6, 0.98e-6}
	m := analysis.FindModes(medians)
	fmt.Println(m.Split(), m, m.Modes[1].Mpiruns)
	// Output:
	// true 2: 1.00×60% 1.40×40% [1 4 6 8]
}

// The regression gate's test on per-mpirun medians: is the candidate
// slower than the baseline by more than 5 %?
func ExampleSlowdownTest() {
	base := []float64{1.00, 1.02, 0.99, 1.01, 1.00, 0.98}
	same := []float64{1.01, 0.99, 1.00, 1.02, 0.98, 1.00}
	slow := []float64{1.20, 1.22, 1.19, 1.21, 1.18, 1.23}
	for _, b := range [][]float64{same, slow} {
		r := analysis.SlowdownTest(base, b, 0.05)
		fmt.Printf("p %.4f\n", r.P)
	}
	// Output:
	// p 0.9985
	// p 0.0025
}

// The ratio of the medians of two sides of per-mpirun medians, with a
// distribution-free interval whose confidence is stated (never claimed
// beyond what the sample sizes reach).
func ExampleMedianRatioCI() {
	a := []float64{1.00, 1.02, 0.99, 1.01, 1.00, 0.98, 1.03}
	b := []float64{1.20, 1.22, 1.19, 1.21, 1.18, 1.23, 1.20}
	iv := analysis.MedianRatioCI(a, b, false, 0.95)
	fmt.Printf("[%.3f, %.3f] at %.4f\n", iv.Lo, iv.Hi, iv.Confidence)
	// Output:
	// [1.146, 1.255] at 0.9690
}
