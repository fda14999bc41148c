package mpitest_test

import (
	"encoding/binary"
	"fmt"
	"time"

	"github.com/reprobench/reprobench/mpi"
	"github.com/reprobench/reprobench/mpi/mpitest"
)

// A bw window and an MPI_Accumulate under passive-target synchronization
// on the simulator: mpi.Prepare creates the resources once (the request
// array, the RMA window), the observations time the calls, the release
// frees them. On an exact network of 1 µs and 1 GB/s a window of 8
// messages of 1000 bytes costs the sender 8 µs of injection plus the
// acknowledgement's round trip.
func Example_bandwidthAndOneSided() {
	w, _ := mpitest.New(mpitest.Config{Ranks: 2, Seed: 1,
		Clock:   mpitest.ClockDist{Offset: mpitest.Off, DriftPPM: mpitest.Off},
		Latency: mpitest.Latency{Base: time.Microsecond, Jitter: mpitest.Off, SpikeProb: mpitest.Off, BytesPerSecond: 1e9}})
	_ = w.Run(func(r *mpitest.Rank) error {
		c := r.Comm()
		buf := make([]byte, 1000)
		bw := &mpi.Observation{Call: mpi.CallBW, Send: buf, Recv: buf, Count: 1000, Type: mpi.Byte,
			Root: 0, Peer: 1, BWWindow: 8, Sync: mpi.SyncBarrier}
		release, err := mpi.Prepare(c, bw)
		if err != nil {
			return err
		}
		if err := c.Observe(bw, r.Clock()); err != nil {
			return err
		}
		if err := release(); err != nil {
			return err
		}

		x := make([]byte, 16)
		binary.NativeEndian.PutUint64(x, 5)
		binary.NativeEndian.PutUint64(x[8:], 7)
		acc := &mpi.Observation{Call: mpi.CallAccumulate, Send: x, Recv: make([]byte, 16), Count: 2, Type: mpi.Int64,
			Op: mpi.Sum, Root: 0, Peer: 1, Reps: 3, RMASync: mpi.RMALock, Sync: mpi.SyncBarrier}
		if release, err = mpi.Prepare(c, acc); err != nil {
			return err
		}
		if err := c.Observe(acc, r.Clock()); err != nil {
			return err
		}
		if err := c.Barrier(); err != nil { // the origin's unlocks precede the target's read
			return err
		}
		if r.ID() == 0 {
			fmt.Printf("bw window on the sender: %.1f µs\n", float64(bw.End-bw.Start)/1e3)
		} else {
			win := mpi.WindowBytes(c)
			fmt.Printf("target window after 3 accumulates: %d %d\n",
				binary.NativeEndian.Uint64(win), binary.NativeEndian.Uint64(win[8:]))
		}
		return release()
	})
	// Unordered output:
	// bw window on the sender: 10.0 µs
	// target window after 3 accumulates: 15 21
}
