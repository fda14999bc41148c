// Command kernel times a function in one process: no MPI, the best clock, warnings attached.
package main

import (
	"fmt"
	"log"

	"github.com/reprobench/reprobench/analysis"
	"github.com/reprobench/reprobench/timing"
)

func main() {
	a, x, y := 2.0, make([]float64, 1<<16), make([]float64, 1<<16)
	s, err := timing.TimeFunc(nil, 10, 1000, func() { // nil: the best clock (TSC: calibrated once, 1 s)
		for i := range y {
			y[i] += a * x[i]
		}
	})
	if err != nil {
		log.Fatal(err)
	}
	ci := analysis.MedianCI(s.Seconds, 0.95)
	fmt.Printf("daxpy, %d elements: median %v, 95%% CI [%.3f, %.3f] µs, clock %s\n",
		len(x), s.Median(), ci.Lo*1e6, ci.Hi*1e6, s.Clock.Name)
	for _, w := range s.Warnings {
		fmt.Println("warning:", w)
	}
}
