// Command drift reproduces the clock-drift experiment of Hunold & Carpen-Amarie
// 2016 (Algorithms 18 and 20, Figures 1 and 3): after synchronizing the clocks it measures, every
// few seconds, the offset of a rank's global clock to rank 0's. An offset-only
// synchronization (SKaMPI, HCA3O) is exact at first and then drifts away at
// the clocks' relative drift; a drift-aware one (JK, HCA3) stays close.
//
// Processes on one host share one clock, so there is nothing to see there —
// unless a drift is injected: rank 1 reads its clock through a
// timing.Skewed that runs 100 ppm fast (100 µs per second).
//
//	mpirun -np 2 go run ./examples/drift                 # real MPI, ~15 s
//	go run ./examples/drift -sim                         # mpi/mpitest, virtual time
//	go run ./examples/drift -sim -sync skampi -sync jk   # choose the algorithms
//
// Across the nodes of a virtual cluster (root; internal/vcluster), whose
// clocks differ by days and drift by each node's skew, with the exact error:
//
//	go build -o /tmp/drift ./examples/drift
//	go run ./internal/vcluster/cmd/vcluster mpirun -nodes 2 -skew-ppm 100 -- /tmp/drift
package main

import (
	"flag"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/reprobench/reprobench/clocksync"
	"github.com/reprobench/reprobench/mpi"
	"github.com/reprobench/reprobench/mpi/mpitest"
	"github.com/reprobench/reprobench/timing"
)

// specs collects repeated -sync flags (a spec may itself contain commas).
type specs []string

func (s *specs) String() string     { return strings.Join(*s, " ") }
func (s *specs) Set(v string) error { *s = append(*s, v); return nil }

func main() {
	var o Options
	var syncs specs
	flag.Var(&syncs, "sync", "clock synchronization `spec` to compare, repeatable (default none, hca3o, hca3)")
	flag.Float64Var(&o.SkewPPM, "ppm", 100, "drift injected on rank 1, parts per million")
	flag.DurationVar(&o.SkewOffset, "offset", time.Millisecond, "offset injected on rank 1")
	every := flag.Duration("every", time.Second, "time between offset measurements")
	steps := flag.Int("steps", 5, "measurements after the first (at 0)")
	sim := flag.Bool("sim", false, "run on the simulated world of mpi/mpitest instead of MPI")
	np := flag.Int("np", 2, "ranks of the simulated world (-sim)")
	seed := flag.Uint64("seed", 1, "seed of the simulated world (-sim)")
	flag.Parse()
	o.Syncs, o.SkewRank = syncs, 1
	if len(o.Syncs) == 0 {
		o.Syncs = []string{"none", "hca3o", "hca3"}
	}
	for i := range *steps + 1 {
		o.After = append(o.After, time.Duration(i)*(*every))
	}
	run := runMPI
	if *sim {
		run = func(o Options) error { return runSim(o, *np, *seed) }
	}
	if err := run(o); err != nil {
		fmt.Fprintln(os.Stderr, "drift:", err)
		os.Exit(1)
	}
}

func header(o Options, where string) {
	fmt.Printf("%s; rank 1's clock skewed by %v and %+g ppm (timing.Skewed)\n", where, o.SkewOffset, o.SkewPPM)
}

// runMPI runs the experiment on the real MPI world, CLOCK_MONOTONIC clocks.
func runMPI(o Options) error {
	err := mpi.Init()
	if err != nil {
		return err
	}
	defer mpi.Finalize()
	c := mpi.World()
	// On a virtual cluster's node, its drift (clocksync.NodeSkewEnv) under
	// rank 1's injected one.
	mono := timing.NewMonotonic()
	raw, nodeSkew, err := clocksync.NodeSkew(mono)
	if err != nil {
		return err
	}
	o.Mono, o.NodeSkew = mono, nodeSkew
	series, err := Drift(c, raw, o)
	if err != nil || c.Rank() != 0 {
		return err
	}
	header(o, fmt.Sprintf("MPI, %d ranks, clock monotonic", c.Size()))
	Print(os.Stdout, series, o)
	return nil
}

// runSim runs the same code on np simulated ranks whose clocks are perfect
// except for the injected skew, as on one host; the table then also shows
// the true errors.
func runSim(o Options, np int, seed uint64) error {
	w, err := mpitest.New(mpitest.Config{Ranks: np, Seed: seed,
		Clock: mpitest.ClockDist{Offset: mpitest.Off, DriftPPM: mpitest.Off}})
	if err != nil {
		return err
	}
	var series []Series
	err = w.Run(func(r *mpitest.Rank) error {
		ro := o
		ro.Sleep = r.Sleep // rank 0 waits in virtual time
		ro.TrueNow, ro.ClockAt = r.TrueNow, w.ClockAt
		s, err := Drift(r.Comm(), r.Clock(), ro)
		if r.ID() == 0 {
			series = s
		}
		return err
	})
	if err != nil {
		return err
	}
	header(o, fmt.Sprintf("mpitest (seed %d), %d ranks", seed, np))
	Print(os.Stdout, series, o)
	return nil
}
