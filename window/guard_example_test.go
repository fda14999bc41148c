package window_test

import (
	"fmt"
	"time"

	"github.com/reprobench/reprobench/clocksync"
	"github.com/reprobench/reprobench/mpi"
	"github.com/reprobench/reprobench/mpi/mpitest"
	"github.com/reprobench/reprobench/window"
)

// ExampleNoiseGuard runs a fixed 100 µs window over 2 simulated ranks whose
// node stops for 35 µs every millisecond, without and with the noise
// guard: the guard learns the tick from the late observations during the
// warm-up and then skips the slots it would overlap.
func ExampleNoiseGuard() {
	for _, guard := range []bool{false, true} {
		w, _ := mpitest.New(mpitest.Config{Ranks: 2, Seed: 1, NodeNoise: func(int) []mpitest.PeriodicNoise {
			return []mpitest.PeriodicNoise{{Period: time.Millisecond, Phase: 970 * time.Microsecond, Duration: 35 * time.Microsecond}}
		}})
		err := w.Run(func(r *mpitest.Rank) error {
			c, clk := r.Comm(), r.Clock()
			g := clocksync.NewGlobalClock(clk)
			sp, _ := clocksync.ParseSpec("hca3:fitpts=50,exchanges=10")
			alg, _ := sp.New()
			if _, err := alg.Sync(c, g); err != nil {
				return err
			}
			s, err := window.New(c, clk, g, window.Config{Method: window.Fixed, Window: 100 * time.Microsecond, NoiseGuard: guard})
			if err != nil {
				return err
			}
			o := &mpi.Observation{Call: mpi.CallAllreduce, Send: make([]byte, 8), Recv: make([]byte, 8), Count: 1, Type: mpi.Float64}
			rec := window.NewRecord(5000)
			if err := s.Run(o, 1000, rec, true); err != nil { // warm-up: the guard learns
				return err
			}
			if err := s.Run(o, 5000, rec, false); err != nil {
				return err
			}
			if c.Rank() == 0 {
				late := 0
				for i := range rec.N {
					if rec.Code[i]&window.CodeLate != 0 {
						late++
					}
				}
				fmt.Printf("noise guard %v: %d of %d observations late", guard, late, rec.N)
				if guard {
					src := s.Guard.Sources()[0]
					slots, skipped := s.Guard.Slots()
					fmt.Printf("; learned a %.0f µs source of %.0f µs; %d of %d slots skipped", src[0].PeriodS*1e6, src[0].DurationS*1e6, skipped, slots)
				}
				fmt.Println()
			}
			return nil
		})
		if err != nil {
			fmt.Println(err)
		}
	}
	// Output:
	// noise guard false: 200 of 5000 observations late
	// noise guard true: 0 of 5000 observations late; learned a 1000 µs source of 36 µs; 276 of 6276 slots skipped
}
