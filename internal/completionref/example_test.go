package completionref_test

import (
	"fmt"

	"github.com/reprobench/reprobench/completion"
	"github.com/reprobench/reprobench/internal/completionref"
)

// Two ranks ran 4 calls in 8 µs and 12 µs: the loop runtime is the slower
// rank's mean call, 3 µs.
func ExampleLoop() {
	fmt.Printf("%.1f µs\n", 1e6*completionref.Loop(completion.Loop, []float64{8e-6, 12e-6}, 4, false, 0))
	// Output: 3.0 µs
}
