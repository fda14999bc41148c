// Command ring measures your own MPI code, a ring shift, into raw data.
package main

import (
	"log"

	"github.com/reprobench/reprobench"
	"github.com/reprobench/reprobench/mpi"
)

// ringShift: every rank sends n float64 to the next rank, receives n from the previous.
func ringShift(c mpi.Comm, n int) reprobench.Experiment {
	send, recv := make([]float64, n), make([]float64, n)
	next, prev := (c.Rank()+1)%c.Size(), (c.Rank()+c.Size()-1)%c.Size()
	// The verified defaults, those of "reprobench run" (warm-up 100, nrep 1000,
	// a 100 µs window): start each observation at one instant of the global
	// clock, time it from the earliest start to the latest end.
	ex := reprobench.DefaultExperiment(reprobench.DefaultMethod)
	ex.Name, ex.MsizeBytes, ex.Type = "ring_shift", 8*n, mpi.Float64
	ex.Func = func() error { return mpi.Sendrecv(c, send, next, 1, recv, prev, 1) }
	return ex
}

func main() {
	if err := mpi.Init(); err != nil {
		log.Fatal(err)
	}
	c := mpi.World()
	opt := reprobench.DefaultOptions() // the default clock, a drawn seed, clock sync and accuracy target as "reprobench run"
	opt.Dir, opt.RunID = "out", "ring"
	res, err := reprobench.Run(c, []reprobench.Experiment{ringShift(c, 1024)}, opt)
	if err != nil {
		log.Print(err)
		mpi.Abort(1) // other ranks may wait in a collective
	}
	if res != nil { // rank 0
		log.Printf("%d rows in %s", res.Rows, res.Files.CSV)
	}
	mpi.Finalize()
}
