package window_test

import (
	"fmt"
	"time"

	"github.com/reprobench/reprobench/clocksync"
	"github.com/reprobench/reprobench/mpi"
	"github.com/reprobench/reprobench/mpi/mpitest"
	"github.com/reprobench/reprobench/window"
)

// The NBCBench policy from a window too small for the operation, under
// each adaptation trigger (AdaptOnInvalid, as published, or AdaptOnExpired),
// with GOMAXPROCS left alone (ProcHoldNever; ProcHoldAuto is the default).
// Each observation's Code says why it is invalid, one bit per reason.
// Here the window is too short for the operation, so the observations
// that start late also run past the next deadline, and both triggers
// adapt alike.
func ExampleConfig() {
	for _, on := range []window.AdaptTrigger{window.AdaptOnInvalid, window.AdaptOnExpired} {
		w, _ := mpitest.New(mpitest.Config{Ranks: 4, Seed: 1})
		err := w.Run(func(r *mpitest.Rank) error {
			c, clk := r.Comm(), r.Clock()
			g := clocksync.NewGlobalClock(clk)
			sp, _ := clocksync.ParseSpec("hca3:fitpts=50,exchanges=10")
			alg, _ := sp.New()
			if _, err := alg.Sync(c, g); err != nil {
				return err
			}
			var hold window.ProcHold = window.ProcHoldNever
			s, err := window.New(c, clk, g, window.Config{Method: window.AdaptiveNBCBench, Window: time.Microsecond,
				Batch: 20, AdaptOn: on, ProcHold: hold})
			if err != nil {
				return err
			}
			o := &mpi.Observation{Call: mpi.CallAllreduce, Send: make([]byte, 8), Recv: make([]byte, 8), Count: 1, Type: mpi.Float64}
			rec := window.NewRecord(500) // NBCBench repeats discarded batches: up to 5n
			if err := s.Run(o, 100, rec, false); err != nil {
				return err
			}
			if c.Rank() == 0 {
				count := map[window.Code]int{}
				for i := range rec.N {
					for _, bit := range []window.Code{window.CodeLate, window.CodeExpired, window.CodeDiscarded} {
						if rec.Code[i]&bit != 0 {
							count[bit]++
						}
					}
				}
				fmt.Printf("%v: late %d, expired %d, discarded %d\n", on,
					count[window.CodeLate], count[window.CodeExpired], count[window.CodeDiscarded])
			}
			return nil
		})
		if err != nil {
			fmt.Println(err)
		}
	}
	fmt.Println("default process hold is ProcHoldAuto:", window.Config{}.ProcHold == window.ProcHoldAuto)
	// Output:
	// invalid: late 95, expired 102, discarded 100
	// expired: late 95, expired 102, discarded 100
	// default process hold is ProcHoldAuto: true
}
