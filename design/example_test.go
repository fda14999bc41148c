package design_test

import (
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/reprobench/reprobench/design"
)

// Two calls × two sizes, measured in two mpiruns, each mpirun with its own
// random order from seed 1 (Hunold & Carpen-Amarie 2016, Alg. 5).
func ExampleGenerate() {
	d, err := design.Generate(design.Plan{
		Factors: design.Factors{
			Calls:       []string{"MPI_Bcast", "MPI_Allreduce"},
			MsizesBytes: []int{8, 1024},
			Nreps:       []int{1000},
		},
		Mpiruns: 2,
		Seed:    1,
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	if err := design.Write(os.Stdout, d); err != nil {
		fmt.Println(err)
	}
	// Output:
	// # reprobench design v1
	// # seed=1
	// mpirun,exp,np,call,msize_bytes,datatype,nrep,procsync,window_s,clocksync,runtime_type,cache
	// 0,3,,MPI_Allreduce,1024,,1000,,,,,
	// 0,1,,MPI_Bcast,1024,,1000,,,,,
	// 0,0,,MPI_Bcast,8,,1000,,,,,
	// 0,2,,MPI_Allreduce,8,,1000,,,,,
	// 1,2,,MPI_Allreduce,8,,1000,,,,,
	// 1,1,,MPI_Bcast,1024,,1000,,,,,
	// 1,0,,MPI_Bcast,8,,1000,,,,,
	// 1,3,,MPI_Allreduce,1024,,1000,,,,,
}

// Message sizes as a list, as powers of two, or log-uniform random sizes
// (Stanisic et al. 2017, §V) drawn from a seed.
func ExampleParseSizes() {
	for _, spec := range []string{"8,64,1K", "pow2:1..64", "logu:1..1000000:5"} {
		sizes, err := design.ParseSizes(spec, 42)
		fmt.Println(spec, sizes, err)
	}
	// Output:
	// 8,64,1K [8 64 1024] <nil>
	// pow2:1..64 [1 2 4 8 16 32 64] <nil>
	// logu:1..1000000:5 [3 41 147 3720 886881] <nil>
}

// Errors in a design file name the file, the line and the column.
func ExampleRead() {
	in := "# seed=7\nmpirun,exp,call,msize_bytes\n0,0,MPI_Bcast,8\n0,1,MPI_Bcast,eight\n"
	_, err := design.Read(strings.NewReader(in), "my.csv", design.Vocabulary{Calls: []string{"MPI_Bcast"}})
	fmt.Println(err)
	var perr *design.ParseError
	if errors.As(err, &perr) {
		fmt.Println(perr.File, perr.Line, perr.Column, perr.Name)
	}
	// Output:
	// my.csv:4: column 4 (msize_bytes): "eight" is not an integer
	// my.csv 4 4 msize_bytes
}

// The columns a design file may have, in the order Write puts them; a
// header needs mpirun, exp and call, and "label:KEY" columns add user
// factors.
func ExampleColumns() {
	fmt.Println(strings.Join(design.Columns, ","))
	// Output:
	// mpirun,exp,np,call,msize_bytes,datatype,nrep,procsync,window_s,clocksync,runtime_type,cache,skew,noise_guard,bw_window,rma_sync,in_place,root_shift,buf_offset
}

// Log-uniform message sizes (Stanisic et al. 2017, §V): the same seed
// gives the same sizes; too many distinct sizes for the range is refused.
func ExampleLogUniformSizes() {
	sizes, ok := design.LogUniformSizes(8, 1<<20, 6, 42)
	fmt.Println(sizes, ok)
	_, ok = design.LogUniformSizes(1, 4, 5, 42)
	fmt.Println(ok)
	// Output:
	// [21 189 564 8880 101386 946527] true
	// false
}
