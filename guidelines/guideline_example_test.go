package guidelines_test

import (
	"fmt"

	"github.com/reprobench/reprobench/guidelines"
)

// A Guideline is also a value one builds: two Sides, each a call and a
// Size (SizeN: n, SizePN: p·n, SizeElem: one element, SizeZero: none),
// and how the right-hand side's buffers hold the left-hand side's input
// and result (InputSame, OutputSame for the same bytes). Decide tests one
// context's guidelines at every size its data holds.
func ExampleGuideline() {
	var n, pn, elem, zero guidelines.Size = guidelines.SizeN, guidelines.SizePN, guidelines.SizeElem, guidelines.SizeZero
	fmt.Println(n.Bytes(1024, 4, 8), pn.Bytes(1024, 4, 8), elem.Bytes(1024, 4, 8), zero.Bytes(1024, 4, 8))
	var in guidelines.Input = guidelines.InputSame
	var out guidelines.Output = guidelines.OutputSame
	g := guidelines.Guideline{Name: "reduce-allreduce",
		Lhs: guidelines.Side{Call: "MPI_Reduce", Size: n}, Rhs: guidelines.Side{Call: "MPI_Allreduce", Size: n},
		Input: in, Output: out}
	runs := []int32{0, 1, 2, 3, 4, 5, 6, 7}
	lhs := guidelines.Series{Mpiruns: runs, Medians: []float64{3.1e-6, 2.9e-6, 3.3e-6, 3.0e-6, 3.2e-6, 3.45e-6, 2.8e-6, 3.05e-6}}
	rhs := guidelines.Series{Mpiruns: runs, Medians: []float64{2.0e-6, 2.12e-6, 2.21e-6, 1.93e-6, 2.04e-6, 2.33e-6, 2.16e-6, 1.97e-6}}
	data := guidelines.Data{{Call: "MPI_Reduce", MsizeBytes: 8}: lhs, {Call: "MPI_Allreduce", MsizeBytes: 8}: rhs}
	rep := guidelines.Decide([]guidelines.Guideline{g}, guidelines.Context{Np: 2, Datatype: "float64"}, data, guidelines.Options{Alpha: 0.05})
	var ds []guidelines.Decision = rep.Decisions
	for _, d := range ds {
		fmt.Printf("%s: %s at %d B, violated %v\n", g, d.Guideline, d.SizeBytes, d.Violated)
	}
	// Output:
	// 1024 4096 8 0
	// MPI_Reduce(n) <= MPI_Allreduce(n): reduce-allreduce at 8 B, violated true
}
