// Command simtest is a small benchmark written to be tested: OneWay
// (oneway.go) measures the one-way latency of a message from rank 0 to rank
// 1, which needs synchronized clocks. Its tests (oneway_test.go) run it with
// go test on the simulated world of mpi/mpitest, with clocks up to a second
// apart and drifting, and compare what it measures with the simulation's
// ground truth — the message log and the true clock offsets.
//
//	go test ./examples/simtest                 # the point of this example
//	mpirun -np 2 go run ./examples/simtest     # the same benchmark on real MPI
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/reprobench/reprobench/clocksync"
	"github.com/reprobench/reprobench/mpi"
	"github.com/reprobench/reprobench/timing"
)

func main() {
	n := flag.Int("n", 1000, "messages")
	size := flag.Int("size", 8, "message size in `bytes`")
	sync := flag.String("sync", "hca3", "clock synchronization `spec`")
	flag.Parse()
	if err := run(*n, *size, *sync); err != nil {
		fmt.Fprintln(os.Stderr, "simtest:", err)
		os.Exit(1)
	}
}

func run(n, size int, sync string) error {
	if err := mpi.Init(); err != nil {
		return err
	}
	defer mpi.Finalize()
	c := mpi.World()
	raw := timing.NewMonotonic()
	sp, err := clocksync.ParseSpec(sync)
	if err != nil {
		return err
	}
	alg, err := sp.New()
	if err != nil {
		return err
	}
	g := clocksync.NewGlobalClock(raw)
	res, err := alg.Sync(c, g)
	if err != nil {
		return err
	}
	synced0 := raw.Now()
	synced, err := OneWay(c, g, size, n)
	if err != nil {
		return err
	}
	// The sync's stated bound on rank 1's clock error (rank 0's clock is
	// the reference) at the end of the measurement: a true latency of at
	// least 0 reads at least minus this.
	bound := res.Bound.At(raw.Freq().Seconds(raw.Now() - synced0))
	// The same benchmark with the raw clocks: each process's clock starts
	// at its own epoch, so this is mostly the difference of the epochs.
	unsynced, err := OneWay(c, raw, size, n)
	if err != nil || c.Rank() != 0 {
		return err
	}
	fmt.Printf("one-way latency of %d-byte messages, rank 0 → 1, median of %d:\n", size, n)
	fmt.Printf("  global clock (%s sync): %.3f µs\n", sync, synced*1e6)
	fmt.Printf("  sync bound: %v; at the measurement's end ±%.3f µs\n", res.Bound, bound*1e6)
	fmt.Printf("  raw clocks:  %.3f µs (meaningless: mostly the clocks' offset)\n", unsynced*1e6)
	return nil
}
