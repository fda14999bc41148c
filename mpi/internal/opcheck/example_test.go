package opcheck_test

import (
	"fmt"
	"sync/atomic"

	"github.com/reprobench/reprobench/mpi"
	"github.com/reprobench/reprobench/mpi/internal/opcheck"
	"github.com/reprobench/reprobench/mpi/mpitest"
)

// Every row of the table, checked on 3 simulated ranks: each rank runs
// the same cases and compares its receive buffer with the row's result.
func Example() {
	w, err := mpitest.New(mpitest.Config{Ranks: 3})
	if err != nil {
		panic(err)
	}
	cases := opcheck.Cases(3, []mpi.Datatype{mpi.Int64}, []int{4}, []int{0}, mpi.Sum)
	var failed atomic.Int64
	err = w.Run(func(r *mpitest.Rank) error {
		for _, k := range cases {
			if err := opcheck.Run(r.Comm(), r.Clock(), k); err != nil {
				failed.Add(1)
			}
		}
		return nil
	})
	for _, k := range cases {
		if k.Call == mpi.CallAllreduce {
			fmt.Println(k)
		}
	}
	fmt.Println("failed:", failed.Load(), err)
	// Output:
	// MPI_Allreduce int64 count 4 root 0 MPI_SUM
	// failed: 0 <nil>
}
