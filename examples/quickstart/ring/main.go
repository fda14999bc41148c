// Command ring measures your own MPI code, a ring shift, into raw data.
package main

import (
	"log"
	"time"

	"github.com/reprobench/reprobench/engine"
	"github.com/reprobench/reprobench/mpi"
	"github.com/reprobench/reprobench/pipeline"
	"github.com/reprobench/reprobench/timing"
	"github.com/reprobench/reprobench/window"
)

// ringShift: every rank sends n float64 to the next rank, receives n from the previous.
func ringShift(c mpi.Comm, n int) engine.Experiment {
	send, recv := make([]float64, n), make([]float64, n)
	next, prev := (c.Rank()+1)%c.Size(), (c.Rank()+c.Size()-1)%c.Size()
	return engine.Experiment{
		Name: "ring_shift", MsizeBytes: 8 * n, Type: mpi.Float64, Nrep: 1000, Warmup: 100,
		Func: func() error { return mpi.Sendrecv(c, send, next, 1, recv, prev, 1) },
		// Start each observation at one instant of the global clock; time it from the
		// earliest start to the latest end.
		Sync:    window.Config{Method: window.Fixed, Window: 100 * time.Microsecond},
		Runtime: window.RuntimeGlobal,
	}
}

func main() {
	if err := mpi.Init(); err != nil {
		log.Fatal(err)
	}
	c := mpi.World()
	res, err := pipeline.Run(c, timing.NewMonotonic(), []engine.Experiment{ringShift(c, 1024)},
		pipeline.Output{Dir: "out", RunID: "ring"})
	if err != nil {
		log.Print(err)
		mpi.Abort(1) // other ranks may wait in a collective
	}
	if res != nil { // rank 0
		log.Printf("%d rows in %s", res.Rows, res.Files.CSV)
	}
	mpi.Finalize()
}
