// Command regions times two regions of an application on every rank and
// writes them, on the synchronized clock, as raw data for analyze, compare
// --by region and report.
package main

import (
	"log"

	"github.com/reprobench/reprobench/clocksync"
	"github.com/reprobench/reprobench/mpi"
	"github.com/reprobench/reprobench/region"
	"github.com/reprobench/reprobench/timing"
)

func main() {
	if err := mpi.Init(); err != nil {
		log.Fatal(err)
	}
	defer mpi.Finalize()
	if err := app(mpi.World(), timing.NewDefault(), "regions-out", "hca3"); err != nil {
		log.Fatal(err)
	}
}

// app is the application: 1000 iterations of an allreduce and some
// compute. The clocks are synchronized at New and again at Close.
func app(c mpi.Comm, clk timing.Clock, dir, sync string) error {
	sp, err := clocksync.ParseSpec(sync)
	if err != nil {
		return err
	}
	alg, err := sp.New()
	if err != nil {
		return err
	}
	rec, err := region.New(c, clk, region.Options{Sync: alg})
	if err != nil {
		return err
	}
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
	_, err = rec.Close(region.Output{Dir: dir, RunID: "app"}) // rank 0 writes dir/app-mpirun000.*
	return err
}
