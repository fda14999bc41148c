package reprobench_test

import (
	"fmt"

	"github.com/reprobench/reprobench"
	"github.com/reprobench/reprobench/design"
	"github.com/reprobench/reprobench/mpi"
	"github.com/reprobench/reprobench/window"
)

// The experiments of mpirun 0 of a flag-driven run with seed 1: the order
// "reprobench design --seed 1" writes for the same factors.
func ExampleFactorial_Experiments() {
	sizes, _ := design.ParseSizes("1K,pow2:8..16", 1)
	f := reprobench.Factorial{Calls: []mpi.Call{mpi.CallBcast}, Sizes: sizes, Methods: []window.Method{window.Barrier}}
	exps, err := f.Experiments(reprobench.DefaultBase(), 1, 0, 2)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, ex := range exps {
		fmt.Println(ex.Exp, ex.Call, ex.MsizeBytes, ex.Sync.Method)
	}
	// Output:
	// 2 MPI_Bcast 16 barrier
	// 0 MPI_Bcast 1024 barrier
	// 1 MPI_Bcast 8 barrier
}
