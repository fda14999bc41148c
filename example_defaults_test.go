package reprobench_test

import (
	"fmt"

	"github.com/reprobench/reprobench"
	"github.com/reprobench/reprobench/design"
	"github.com/reprobench/reprobench/factor"
)

// The library's named defaults, which "reprobench run" without flags
// runs and the README's numbers were measured with.
func ExampleDefaultExperiment() {
	ex := reprobench.DefaultExperiment(reprobench.DefaultMethod)
	fmt.Println(ex.Call, ex.MsizeBytes, "bytes,", ex.Sync.Method)
	fmt.Println(ex.Nrep == reprobench.DefaultNrep, ex.Nrep, "observations after", ex.Warmup == reprobench.DefaultWarmup, ex.Warmup)
	fmt.Println(ex.LoopReps == reprobench.DefaultLoopReps, ex.LoopReps, "calls per observation of a loop runtime type")
	// Output:
	// MPI_Allreduce 8 bytes, window
	// true 1000 observations after true 100
	// true 100 calls per observation of a loop runtime type
}

// One design row for a run of 2 ranks: the empty cells take the base's
// levels, a set cell is parsed through the factor table, and a row that
// asks for another np is refused with its place in the file.
func ExampleFromDesign() {
	row := design.Experiment{Mpirun: 0, Exp: 3, Call: "MPI_Bcast", MsizeBytes: 64,
		Factors: factor.Values{}.WithText(factor.ProcSync, "barrier")}
	ex, err := reprobench.FromDesign(row, reprobench.DefaultBase(), 1, 2)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(ex.Exp, ex.Call, ex.MsizeBytes, ex.Sync.Method, ex.Nrep)
	row.Np, row.File, row.Line = 4, "d.csv", 5
	_, err = reprobench.FromDesign(row, reprobench.DefaultBase(), 1, 2)
	fmt.Println(err)
	// Output:
	// 3 MPI_Bcast 64 barrier 1000
	// reprobench: d.csv:5: np=4, but this mpirun has 2 ranks
}

// What a windowed experiment does when the clock synchronization states
// no bound: fall back to the tool's own barrier (the default) or refuse,
// as "reprobench run --no-bound refuse" sets it.
func ExampleNoBound() {
	opt := reprobench.DefaultOptions()
	fmt.Println(opt.NoBound, opt.NoBound == reprobench.NoBoundFallback)
	p, err := reprobench.ParseNoBound("refuse")
	if err != nil {
		fmt.Println(err)
		return
	}
	opt.NoBound = p
	fmt.Println(opt.NoBound, opt.NoBound == reprobench.NoBoundRefuse)
	_, err = reprobench.ParseNoBound("ignore")
	fmt.Println(err)
	// Output:
	// fallback true
	// refuse true
	// reprobench: no-bound policy "ignore": want fallback or refuse
}
