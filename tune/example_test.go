package tune_test

import (
	"fmt"

	"github.com/reprobench/reprobench/tune"
)

// Two cells, the default and "ring", six mpiruns each: at 1 MiB ring is
// about 30 % faster in every mpirun, at 8 B the two are the same.
func Example() {
	opt := tune.Options{} // default candidate "default", 5 % threshold, alpha 0.05, campaign family
	plan, _ := tune.Plan(2, 2, opt)
	fmt.Println(plan.Why)

	var samples []tune.Sample
	def := []float64{270, 281, 262, 290, 275, 268}  // µs, per-mpirun medians at 1 MiB
	ring := []float64{190, 201, 185, 199, 188, 194} // about 0.7 × default
	small := []float64{2.1, 2.3, 2.0, 2.2, 2.4, 2.15}
	for i := range def {
		samples = append(samples,
			tune.Sample{Call: "MPI_Allreduce", Bytes: 1 << 20, Np: 2, Candidate: "default", Mpirun: 2 * i, Median: sec(def[i] * 1e-6)},
			tune.Sample{Call: "MPI_Allreduce", Bytes: 1 << 20, Np: 2, Candidate: "ring", Mpirun: 2*i + 1, Median: sec(ring[i] * 1e-6)},
			tune.Sample{Call: "MPI_Allreduce", Bytes: 8, Np: 2, Candidate: "default", Mpirun: 2 * i, Median: sec(small[i] * 1e-6)},
			tune.Sample{Call: "MPI_Allreduce", Bytes: 8, Np: 2, Candidate: "ring", Mpirun: 2*i + 1, Median: sec(small[(i+3)%6] * 1e-6)},
		)
	}
	ds, err := tune.Decide(samples, opt)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, d := range ds {
		fmt.Printf("%s: %s (%s)\n", d.Cell, d.Chosen, d.Verdict)
		fmt.Println("  " + d.Reason)
	}
	// Output:
	// 4 mpiruns per candidate: Holm over a campaign family of 2 tests must pass alpha/2 = 0.025 at its first step, and the exact one-sided rank-sum test on per-mpirun medians reaches at best p = 0.0143 with 4+4 mpiruns (0.05 with 3+3, too large)
	// MPI_Allreduce/msize=8/np=2: default (kept)
	//   default kept: no candidate is faster by more than 5% at Holm alpha 0.05 (campaign family of 2 tests); in these data no candidate is faster than the default by 5%, so more mpiruns are not expected to separate them
	// MPI_Allreduce/msize=1048576/np=2: ring (replaced)
	//   ring replaces default: time ratio 0.705 [0.669, 0.740], faster by more than 5% (Holm p 0.00216 <= 0.05 over a campaign family of 2 tests)
}
