package window_test

import (
	"errors"
	"fmt"

	"github.com/reprobench/reprobench/mpi/mpitest"
	"github.com/reprobench/reprobench/window"
)

// How far apart 4 simulated ranks leave MPI_Barrier and the tool's own
// dissemination barrier (Hunold & Carpen-Amarie 2016, Fig. 10), on the
// ranks' own clocks (no global clock given); and a windowed method, which
// needs a synchronized clock, refused without one.
func ExampleBarrierExitSkew() {
	w, _ := mpitest.New(mpitest.Config{Ranks: 4, Seed: 1})
	err := w.Run(func(r *mpitest.Rank) error {
		c, clk := r.Comm(), r.Clock()
		for _, m := range []window.Method{window.Barrier, window.Dissemination} {
			skews, err := window.BarrierExitSkew(c, clk, nil, m, 10)
			if err != nil {
				return err
			}
			if skews != nil { // rank 0
				fmt.Println(m, len(skews), "skews, all >= 0:", skews[0] >= 0)
			}
		}
		_, err := window.New(c, clk, nil, window.Config{Method: window.Fixed})
		if c.Rank() == 0 {
			fmt.Println(errors.Is(err, window.ErrNoGlobalClock))
		}
		return nil
	})
	if err != nil {
		fmt.Println(err)
	}
	// Output:
	// barrier 10 skews, all >= 0: true
	// dissemination 10 skews, all >= 0: true
	// true
}
