package mpitest_test

import (
	"fmt"
	"time"

	"github.com/reprobench/reprobench/mpi"
	"github.com/reprobench/reprobench/mpi/mpitest"
)

// The overlap measurement of MPI_Iallreduce on 2 simulated ranks, 1 µs per
// message, with a kernel of 4000 iterations (4 µs), the overlap computed as
// OSU does from the rank averages. With an asynchronous progress engine it
// is close to 1. With progress only inside MPI_Wait it is not 0 but 0.29:
// the pure phase ends 1 µs later on rank 1 (it waits for the broadcast),
// so rank 1 leaves the barrier 1 µs before rank 0, and its message then
// waits for rank 0's kernel instead of rank 0 waiting for it. OSU's method
// (a barrier, rank averages) has the same bias; the per-rank files show it.
func ExampleProgress() {
	for _, prog := range []mpitest.Progress{mpitest.ProgressInWait, mpitest.ProgressAsync} {
		w, _ := mpitest.New(mpitest.Config{Ranks: 2, Progress: prog,
			Latency: mpitest.Latency{Base: time.Microsecond, Jitter: mpitest.Off, SpikeProb: mpitest.Off, BytesPerSecond: mpitest.Off},
			Clock:   mpitest.ClockDist{Offset: mpitest.Off, DriftPPM: mpitest.Off}})
		obs := make([]mpi.Observation, 2)
		_ = w.Run(func(r *mpitest.Rank) error {
			o := &obs[r.ID()]
			*o = mpi.Observation{Call: mpi.CallIallreduce, Count: 1, Type: mpi.Float64, Op: mpi.Sum,
				Send: make([]byte, 8), Recv: make([]byte, 8), Sync: mpi.SyncBarrier,
				Overlap: true, KernelIters: 4000}
			return r.Comm().Observe(o, r.Clock())
		})
		var pure, compute, total float64
		for _, o := range obs {
			pure += float64(o.Pure) / 2
			compute += float64(o.Compute) / 2
			total += float64(o.End-o.Start) / 2
		}
		fmt.Printf("%-8s pure %.0f ns, compute %.0f ns, total %.0f ns, overlap %.2f\n",
			prog, pure, compute, total, mpi.Overlap(pure, compute, total))
	}
	// Output:
	// in_wait  pure 1520 ns, compute 4020 ns, total 5100 ns, overlap 0.29
	// async    pure 1520 ns, compute 4020 ns, total 4100 ns, overlap 0.95
}
