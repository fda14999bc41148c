// Command pingpong measures the one-way latency of an 8-byte message
// between two MPI ranks with the reprobench binding: every observation is a
// barrier-synchronized ping-pong timed inside one cgo call (the critical path),
// read on CLOCK_MONOTONIC.
//
//	mpirun -np 2 go run ./examples/pingpong -n 10000 -size 8
package main

import (
	"flag"
	"fmt"
	"os"
	"slices"

	"github.com/reprobench/reprobench/mpi"
	"github.com/reprobench/reprobench/timing"
)

func main() {
	n := flag.Int("n", 10000, "number of observations (`count`)")
	size := flag.Int("size", 8, "message size in `bytes`")
	warmup := flag.Int("warmup", 100, "unrecorded observations before measuring")
	flag.Parse()
	if err := run(*n, *size, *warmup); err != nil {
		fmt.Fprintln(os.Stderr, "pingpong:", err)
		os.Exit(1)
	}
}

func run(n, size, warmup int) error {
	if n < 1 || size < 0 || warmup < 0 {
		return fmt.Errorf("need -n ≥ 1, -size ≥ 0, -warmup ≥ 0")
	}
	if err := mpi.Init(); err != nil {
		return err
	}
	defer mpi.Finalize()
	w := mpi.World()
	if w.Size() < 2 {
		return fmt.Errorf("needs at least 2 ranks, have %d (run it under mpirun -np 2)", w.Size())
	}
	clk := timing.NewMonotonic()
	o := &mpi.Observation{Call: mpi.CallPingPong, Send: make([]byte, size), Recv: make([]byte, size),
		Count: size, Type: mpi.Byte, Root: 0, Peer: 1, Sync: mpi.SyncBarrier}
	rtt := make([]float64, 0, n)
	for i := 0; i < warmup+n; i++ {
		if err := w.Observe(o, clk); err != nil {
			return err
		}
		if i >= warmup {
			rtt = append(rtt, clk.Freq().Seconds(o.End-o.Start))
		}
	}
	if w.Rank() != 0 {
		return nil
	}
	slices.Sort(rtt)
	q := func(p float64) float64 { return rtt[int(p*float64(len(rtt)-1))] / 2 }
	lib, _ := mpi.LibraryVersion()
	host, _ := mpi.ProcessorName()
	fmt.Printf("%s on %s, %d ranks\n", firstLine(lib), host, w.Size())
	fmt.Printf("one-way latency of %d-byte messages (round trip / 2), %d observations after %d warm-up:\n", size, n, warmup)
	fmt.Printf("  min %.3f µs   median %.3f µs   p99 %.3f µs   max %.3f µs\n",
		rtt[0]/2*1e6, q(0.5)*1e6, q(0.99)*1e6, rtt[len(rtt)-1]/2*1e6)
	return nil
}

func firstLine(s string) string {
	for i, c := range s {
		if c == '\n' || c == ',' {
			return s[:i]
		}
	}
	return s
}
