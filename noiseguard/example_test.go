package noiseguard_test

import (
	"fmt"

	"github.com/reprobench/reprobench/noiseguard"
)

// A node's tick: detours of 30 µs ending at 970 µs past every millisecond.
// Deadlines every 100 µs (in batches starting 37 µs later each time) that
// fall into a detour are late until it ends; the learner finds the tick from
// them, and Schedule then avoids it.
func Example() {
	l := noiseguard.NewLearner(noiseguard.Config{})
	for b := range 100 {
		t0 := 1 + float64(b)*(10e-3+37e-6)
		for i := range 100 {
			d := t0 + float64(i)*100e-6
			k := float64(int(d * 1e3)) // the millisecond d falls in
			end := k*1e-3 + 970e-6     // its detour's end
			if d >= end-30e-6 && d < end-1e-6 {
				l.Add(d, end)
			}
		}
	}
	for _, s := range l.Fit() {
		fmt.Printf("period %.1f µs, detour %.1f µs starting %.1f µs into the period, from %d late observations\n",
			s.PeriodS*1e6, s.DurationS*1e6, s.PhaseS*1e6, s.Events)
	}
	starts := make([]float64, 20)
	skipped := noiseguard.Schedule(starts, 2+50e-6, 100e-6, 5e-6, 2e-6, []*noiseguard.Learner{l})
	fmt.Printf("20 starts on a 100 µs grid: %d slots skipped\n", skipped)
	// Output:
	// period 1000.0 µs, detour 30.1 µs starting 939.9 µs into the period, from 290 late observations
	// 20 starts on a 100 µs grid: 2 slots skipped
}
