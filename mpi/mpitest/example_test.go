package mpitest_test

import (
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/reprobench/reprobench/mpi"
	"github.com/reprobench/reprobench/mpi/mpitest"
	"github.com/reprobench/reprobench/timing"
)

// medianRTT is the code under test: ordinary benchmark code written against
// mpi.Comm and timing.Clock. It measures n round trips between ranks 0 and
// 1 and returns the median on rank 0.
func medianRTT(c mpi.Comm, clk timing.Clock, n int) (time.Duration, error) {
	buf := make([]byte, 8)
	var rtts []timing.Ticks
	for range n {
		switch c.Rank() {
		case 0:
			t0 := clk.Now()
			if err := c.Send(buf, 1, 0); err != nil {
				return 0, err
			}
			if err := c.Recv(buf, 1, 0); err != nil {
				return 0, err
			}
			rtts = append(rtts, clk.Now()-t0)
		case 1:
			if err := c.Recv(buf, 0, 0); err != nil {
				return 0, err
			}
			if err := c.Send(buf, 0, 0); err != nil {
				return 0, err
			}
		}
	}
	if c.Rank() != 0 {
		return 0, nil
	}
	slices.Sort(rtts)
	return clk.Freq().Duration(rtts[n/2]), nil
}

// Test benchmark code against a network whose latency is known: 1.5 µs one
// way, no jitter and no spikes, infinite bandwidth, clocks reading 25 ns.
// The median round trip must be 2 × 1.5 µs plus one clock read.
func Example() {
	w, err := mpitest.New(mpitest.Config{
		Ranks: 2,
		Seed:  1,
		Latency: mpitest.Latency{
			Base:           1500 * time.Nanosecond,
			Jitter:         mpitest.Off,
			SpikeProb:      mpitest.Off,
			BytesPerSecond: mpitest.Off,
		},
		Clock: mpitest.ClockDist{Overhead: 25 * time.Nanosecond},
	})
	if err != nil {
		panic(err)
	}
	err = w.Run(func(r *mpitest.Rank) error {
		rtt, err := medianRTT(r.Comm(), r.Clock(), 101)
		if err != nil {
			return err
		}
		if r.ID() == 0 {
			fmt.Println("median RTT:", rtt)
		}
		return nil
	})
	if err != nil {
		panic(err)
	}
	fmt.Println("messages:", w.Messages())
	// Output:
	// median RTT: 3.025µs
	// messages: 202
}

// The ground truth tells how wrong an estimate of a clock offset is. Here
// rank 1 estimates its offset to rank 0 from one ping-pong, assuming
// symmetric latencies; the network is asymmetric by 400 ns, so the estimate
// is off by 200 ns — something only a simulation can reveal.
func ExampleWorld_TrueOffset() {
	w, _ := mpitest.New(mpitest.Config{
		Ranks: 2,
		Seed:  42,
		Latency: mpitest.Latency{
			Jitter: mpitest.Off, SpikeProb: mpitest.Off, BytesPerSecond: mpitest.Off,
			Asymmetry: 400 * time.Nanosecond,
		},
	})
	var estimate, truth float64
	_ = w.Run(func(r *mpitest.Rank) error {
		c, clk := r.Comm(), r.Clock()
		if r.ID() == 0 {
			if _, err := c.RecvInt64(1, 0); err != nil {
				return err
			}
			return c.SendInt64(int64(clk.Now()), 1, 0)
		}
		t0 := clk.Now()
		if err := c.SendInt64(int64(t0), 0, 0); err != nil {
			return err
		}
		ref, err := c.RecvInt64(0, 0)
		if err != nil {
			return err
		}
		t1 := clk.Now()
		mid := (t0 + t1) / 2 // rank 1's time when rank 0 read ref, if symmetric
		estimate = clk.Freq().Seconds(mid - timing.Ticks(ref))
		truth = w.TrueOffset(1, r.TrueNow())
		return nil
	})
	fmt.Printf("estimate − truth = %.0f ns\n", (estimate-truth)*1e9)
	// Output:
	// estimate − truth = 200 ns
}

// A program that would hang on a cluster fails in the simulation, saying
// who waits for what: here both ranks receive before they send.
func ExampleDeadlockError() {
	w, _ := mpitest.New(mpitest.Config{Ranks: 2})
	err := w.Run(func(r *mpitest.Rank) error {
		c := r.Comm()
		peer := 1 - r.ID()
		v, err := c.RecvFloat64(peer, 5)
		if err != nil {
			return err
		}
		return c.SendFloat64(v, peer, 5)
	})
	var d *mpitest.DeadlockError
	if errors.As(err, &d) {
		for _, b := range d.Blocked {
			fmt.Println(b)
		}
	}
	// Output:
	// rank 0: MPI_Recv waits for a message from rank 1 (world rank 1) with tag 5 in the world
	// rank 1: MPI_Recv waits for a message from rank 0 (world rank 0) with tag 5 in the world
}

// With an eager limit, code that is only correct while MPI buffers its
// sends (both ranks Send 8 KiB before they Recv) deadlocks in the
// simulator as it can on a real machine, and Run says where.
func ExampleConfig_eagerLimit() {
	w, _ := mpitest.New(mpitest.Config{Ranks: 2, EagerLimit: 4096})
	err := w.Run(func(r *mpitest.Rank) error {
		c := r.Comm()
		peer := 1 - c.Rank()
		buf := make([]byte, 8192)
		if err := c.Send(buf, peer, 0); err != nil {
			return err
		}
		return c.Recv(buf, peer, 0)
	})
	fmt.Println(err)
	// Output:
	// mpitest: deadlock: all 2 running ranks are blocked
	// 	rank 0: MPI_Send of 8192 bytes (rendezvous, above Config.EagerLimit) to rank 1 (world rank 1) in the world waits for the matching receive
	// 	rank 1: MPI_Send of 8192 bytes (rendezvous, above Config.EagerLimit) to rank 0 (world rank 0) in the world waits for the matching receive
}
