package region_test

import (
	"fmt"
	"time"

	"github.com/reprobench/reprobench/mpi/mpitest"
	"github.com/reprobench/reprobench/region"
)

// Two simulated ranks with perfect clocks record a region per iteration;
// rank 1 computes 1 µs longer. runtime_s is the slower rank's duration
// (plus one 20 ns clock read); without clock synchronization the global
// columns are NaN.
func Example() {
	w, _ := mpitest.New(mpitest.Config{Ranks: 2, Clock: mpitest.ClockDist{Offset: mpitest.Off, DriftPPM: mpitest.Off}})
	_ = w.Run(func(r *mpitest.Rank) error {
		rec, err := region.New(r.Comm(), r.Clock(), region.Options{})
		if err != nil {
			return err
		}
		for it := range 2 {
			rec.SetIter(int64(it))
			func() {
				defer rec.Region("compute")()
				r.Sleep(time.Duration(2000+1000*r.ID()) * time.Nanosecond)
			}()
		}
		res, err := rec.Close(region.Output{}) // collective; rows on rank 0
		if r.ID() == 0 {
			for _, row := range res.Rows {
				fmt.Println(row)
			}
		}
		return err
	})
	// Output:
	// compute rep=0 iter=0 runtime=3.020µs global=NaNµs spread=NaNµs ranks=2
	// compute rep=1 iter=1 runtime=3.020µs global=NaNµs spread=NaNµs ranks=2
}
