// Command stream times a kernel inside an MPI application with McCalpin's
// bracket (McCalpin): an MPI STREAM triad, a = b + q·c on every rank's share
// of three arrays. It prints, per iteration and for the best one, the
// provable bounds of the parallel duration,
//
//	lower bound max over ranks of t2 − t1 (some rank worked that long)
//	upper bound min over ranks of t3 − t0 (every rank saw all work inside)
//
// which need no synchronized clocks, and between them the estimate
// max g(t2) − min g(t1) with a global clock g (HCA3), plus the bandwidths
// STREAM would report (24 bytes per element and rank).
//
//	mpirun -np 2 go run ./examples/stream -n 10000000 -ntimes 10
//
// The global estimate is only as good as the clock synchronization: it may
// fall outside the provable bounds by the synchronization error (ns to µs).
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
	n := flag.Int("n", 10_000_000, "array elements per rank (STREAM: each array ≥ 4× the last-level cache)")
	ntimes := flag.Int("ntimes", 10, "timed iterations")
	sync := flag.String("sync", "hca3", "clock synchronization `spec` for the global estimate")
	flag.Parse()
	if err := run(*n, *ntimes, *sync); err != nil {
		fmt.Fprintln(os.Stderr, "stream:", err)
		os.Exit(1)
	}
}

func run(n, ntimes int, sync string) error {
	if n < 1 || ntimes < 1 {
		return fmt.Errorf("need -n ≥ 1 and -ntimes ≥ 1")
	}
	if err := mpi.Init(); err != nil {
		return err
	}
	defer mpi.Finalize()
	c := mpi.World()
	clk := timing.NewMonotonic()

	// The bounds need no clock synchronization; the estimate between them does.
	sp, err := clocksync.ParseSpec(sync)
	if err != nil {
		return err
	}
	alg, err := sp.New()
	if err != nil {
		return err
	}
	g := clocksync.NewGlobalClock(clk)
	if _, err := alg.Sync(c, g); err != nil {
		return err
	}

	tr := NewTriad(n)
	ks, err := Measure(c, clk, g, ntimes, tr.Run)
	if err != nil {
		return err
	}
	if err := tr.Check(); err != nil {
		return err
	}
	if c.Rank() == 0 {
		fmt.Printf("MPI STREAM triad, %d ranks × %d elements (%.1f MB per rank), clock sync %s\n",
			c.Size(), n, tr.Bytes()/1e6, alg.Name)
		Report(os.Stdout, ks, tr.Bytes()*float64(c.Size()))
	}
	return nil
}
