package elem_test

import (
	"fmt"

	"github.com/reprobench/reprobench/mpi"
	"github.com/reprobench/reprobench/mpi/internal/elem"
)

func Example() {
	b := make([]byte, 3*mpi.Int32.Size())
	for i := range 3 {
		elem.Put(mpi.Int32, b, i, float64(10*i)-5)
	}
	fmt.Println(elem.Get(mpi.Int32, b, 0), elem.Get(mpi.Int32, b, 2))
	// Output: -5 15
}
