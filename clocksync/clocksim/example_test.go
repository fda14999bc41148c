package clocksim_test

import (
	"fmt"
	"time"

	"github.com/reprobench/reprobench/clocksync/clocksim"
	"github.com/reprobench/reprobench/mpi/mpitest"
)

// Offset-only synchronization drifts apart, a drift-aware one does not: the
// true error on 8 simulated ranks, default parameters, (drifts up to ±50 ppm) 10 s after sync.
func ExampleRun() {
	for _, spec := range []string{"skampi", "hca3"} {
		out, err := clocksim.Run(mpitest.Config{Ranks: 8, Seed: 3}, spec, []time.Duration{10 * time.Second})
		if err != nil {
			fmt.Println(err)
			return
		}
		e := *out.Checks[0].TrueMaxAbs
		fmt.Printf("%-6s true max error after 10 s below 1 µs: %v\n", spec, e < 1e-6)
	}
	// Output:
	// skampi true max error after 10 s below 1 µs: false
	// hca3   true max error after 10 s below 1 µs: true
}
