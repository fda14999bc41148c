// Command guidecheck checks under a real mpirun that the right-hand side of
// every performance guideline (package guidelines' default table, with the
// mock-ups of mpi/guide.go) computes what its left-hand side computes,
// element by element: through the C critical path (CLOCK_MONOTONIC) and
// through the Go reference path (a skewed clock, which C cannot read), on
// int64, float64 and int32, rooted at rank 0 and at the last rank. Each rank prints
// "rank R/P: ok N checks" or the mismatches.
package main

import (
	"fmt"
	"os"

	"github.com/reprobench/reprobench/guidelines"
	"github.com/reprobench/reprobench/internal/guidecheck"
	"github.com/reprobench/reprobench/mpi"
	"github.com/reprobench/reprobench/timing"
)

func main() {
	if err := mpi.Init(); err != nil {
		fmt.Fprintln(os.Stderr, "guidecheck:", err)
		os.Exit(1)
	}
	w := mpi.World()
	mono := timing.NewMonotonic()
	clocks := []timing.Clock{mono, timing.NewSkewed(mono, 0, 0)}
	total, failed := 0, 0
	for _, clk := range clocks {
		for _, root := range []int{0, w.Size() - 1} {
			n, errs := guidecheck.Check(w, clk, guidelines.Default(), []int{1, 7, 12, 1000}, []mpi.Datatype{mpi.Int64, mpi.Float64, mpi.Int32}, mpi.Sum, root)
			total += n
			for _, e := range errs {
				failed++
				fmt.Fprintf(os.Stderr, "guidecheck: %s clock: %v\n", clk.Name(), e)
			}
		}
	}
	var bad [1]int64
	if err := mpi.Allreduce(w, []int64{int64(failed)}, bad[:], mpi.Sum); err != nil {
		fmt.Fprintln(os.Stderr, "guidecheck: final allreduce:", err)
		os.Exit(1)
	}
	if err := mpi.Finalize(); err != nil {
		fmt.Fprintln(os.Stderr, "guidecheck: finalize:", err)
		os.Exit(1)
	}
	if bad[0] != 0 || total == 0 {
		fmt.Printf("rank %d/%d: FAILED %d mismatches (%d job-wide) in %d checks\n", w.Rank(), w.Size(), failed, bad[0], total)
		os.Exit(1)
	}
	fmt.Printf("rank %d/%d: ok %d checks\n", w.Rank(), w.Size(), total)
}
