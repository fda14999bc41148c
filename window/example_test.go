package window_test

import (
	"fmt"
	"time"

	"github.com/reprobench/reprobench/clocksync"
	"github.com/reprobench/reprobench/mpi"
	"github.com/reprobench/reprobench/mpi/mpitest"
	"github.com/reprobench/reprobench/window"
)

// Example runs 100 observations of an 8-byte MPI_Allreduce on 4 simulated
// ranks under the SKaMPI adaptive window, starting from a window too small
// for the operation, after synchronizing the clocks with HCA3.
func Example() {
	w, _ := mpitest.New(mpitest.Config{Ranks: 4, Seed: 1})
	err := w.Run(func(r *mpitest.Rank) error {
		c, clk := r.Comm(), r.Clock()
		g := clocksync.NewGlobalClock(clk)
		sp, _ := clocksync.ParseSpec("hca3:fitpts=50,exchanges=10")
		alg, _ := sp.New()
		if _, err := alg.Sync(c, g); err != nil {
			return err
		}
		s, err := window.New(c, clk, g, window.Config{Method: window.AdaptiveSKaMPI, Window: time.Microsecond, Batch: 20})
		if err != nil {
			return err
		}
		o := &mpi.Observation{Call: mpi.CallAllreduce, Send: make([]byte, 8), Recv: make([]byte, 8), Count: 1, Type: mpi.Float64}
		rec := window.NewRecord(100)
		if err := s.Run(o, 100, rec, false); err != nil {
			return err
		}
		if c.Rank() == 0 {
			invalid := 0
			for i := range rec.N {
				if rec.Code[i] != window.CodeValid {
					invalid++
				}
			}
			fmt.Printf("%d observations, %d invalid, window grew %d times\n", rec.N, invalid, len(s.History))
		}
		return nil
	})
	if err != nil {
		fmt.Println(err)
	}
	// Output:
	// 100 observations, 27 invalid, window grew 2 times
}
