// Command regions times two regions of an application on every rank and
// writes them, on the synchronized clock, as raw data for analyze, compare
// --by region and report.
package main

import (
	"log"

	"github.com/reprobench/reprobench/mpi"
	"github.com/reprobench/reprobench/region"
)

func main() {
	if err := mpi.Init(); err != nil {
		log.Fatal(err)
	}
	defer mpi.Finalize()
	c := mpi.World()
	// The default clock and clock synchronization; the output directory
	// is checked now, not after the run.
	rec, err := region.Start(c, "regions-out")
	if err != nil {
		log.Fatal(err)
	}
	if err := app(c, rec); err != nil {
		log.Fatal(err)
	}
	// Collective: syncs the clocks again, reduces, and rank 0 writes
	// regions-out/regions-mpirun000.* and prints the misuse account.
	if _, err := rec.Stop(); err != nil {
		log.Fatal(err)
	}
}

// app is the application: 1000 iterations of an allreduce and some
// compute, with two regions.
func app(c mpi.Comm, rec *region.Recorder) error {
	x, sum := []float64{1}, []float64{0}
	for it := range 1000 {
		rec.SetIter(int64(it)) // a column of each row, not a group
		rec.Begin("allreduce")
		if err := mpi.Allreduce(c, x, sum, mpi.Sum); err != nil {
			return err
		}
		rec.End("allreduce")
		func() {
			defer rec.Region("compute")()
			for i := range 10000 {
				x[0] += 1e-9 * float64(i)
			}
		}()
	}
	return nil
}
