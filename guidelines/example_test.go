package guidelines_test

import (
	"fmt"
	"os"
	"strings"

	"github.com/reprobench/reprobench/guidelines"
)

// A guideline is one line of data; its sides' sizes follow from n.
func ExampleParse() {
	g, err := guidelines.Parse("scatter-bcast", "MPI_Scatter(n) <= MPI_Bcast(p*n); output=rank-block")
	if err != nil {
		panic(err)
	}
	lhs, rhs := g.At(1024, 4, 8) // n = 1 KiB on 4 ranks, 8-byte elements
	fmt.Println(g)
	fmt.Println(lhs.Call, lhs.MsizeBytes, "<=", rhs.Call, rhs.MsizeBytes)
	// Output:
	// MPI_Scatter(n) <= MPI_Bcast(p*n); output=rank-block
	// MPI_Scatter 1024 <= MPI_Bcast 4096
}

// Decide tests every guideline at every size on per-mpirun medians.
func ExampleDecide() {
	gs, _ := guidelines.ReadTable(strings.NewReader("reduce-allreduce MPI_Reduce(n) <= MPI_Allreduce(n)\n"))
	runs := []int32{0, 1, 2, 3, 4, 5, 6, 7}
	data := guidelines.Data{ // seconds, one median per mpirun
		{Call: "MPI_Reduce", MsizeBytes: 8}:    {Mpiruns: runs, Medians: []float64{3.1e-6, 2.9e-6, 3.3e-6, 3.0e-6, 3.2e-6, 3.45e-6, 2.8e-6, 3.05e-6}},
		{Call: "MPI_Allreduce", MsizeBytes: 8}: {Mpiruns: runs, Medians: []float64{2.0e-6, 2.12e-6, 2.21e-6, 1.93e-6, 2.04e-6, 2.33e-6, 2.16e-6, 1.97e-6}},
	}
	ctx := guidelines.Context{Np: 2, Datatype: "float64"}
	rep := guidelines.NewReport(gs, map[guidelines.Context]guidelines.Data{ctx: data}, guidelines.Options{Alpha: 0.05})
	d := rep.Contexts[0].Decisions[0]
	fmt.Printf("%s at %d B: ratio %.2f, p = %.4f, violated %v\n\n", d.Guideline, d.SizeBytes, d.Ratio, d.PHolm, d.Violated)
	_ = rep.WriteText(os.Stdout)
	// Output:
	// reduce-allreduce at 8 B: ratio 1.48, p = 0.0039, violated true
	//
	// test: one-sided Wilcoxon signed-rank test of H0: lhs <= rhs against H1: lhs > rhs, on per-mpirun medians
	//     paired by mpirun
	// correction: Holm (step-down Bonferroni) over every (guideline, size) of a context: family-wise error rate <=
	//     alpha under any dependence
	// shift: Hodges-Lehmann estimate of lhs - rhs (pseudo-median of the paired differences) with its signed-rank
	//     confidence interval
	// alpha 0.05 (family-wise, per context); intervals at 95%
	//
	// np=2/float64
	// 1 tests, 1 violated; deciding needs ≥ 5 paired mpiruns
	// guideline                   size mpir      lhs      rhs lhs/rhs        shift lhs-rhs [CI]       p     p_holm verdict
	// reduce-allreduce             8 B    8   3.08µs   2.08µs   1.478 +1.08µs [+855ns, +1.12µs]  0.0039  0.0039**  VIOLATED
	//
	// 1 violation(s) in total
}

// A campaign measures every distinct side once per mpirun, in a shuffled
// order recorded by its seed.
func ExamplePlan_Design() {
	p := guidelines.Plan{Guidelines: guidelines.Default(), SizesBytes: []int{8, 1024, 65536}, Np: 2,
		Datatype: "float64", ElemBytes: 8, Nrep: 200, Mpiruns: 10, Seed: 1}
	d, err := p.Design()
	if err != nil {
		panic(err)
	}
	fmt.Println(len(p.Points()), "experiments per mpirun,", len(d.Experiments), "in all, seed", d.Seed)
	fmt.Println(guidelines.MinMpiruns(31, 0.05), "mpiruns can decide 31 tests at alpha 0.05")
	// Output:
	// 49 experiments per mpirun, 490 in all, seed 1
	// 10 mpiruns can decide 31 tests at alpha 0.05
}
