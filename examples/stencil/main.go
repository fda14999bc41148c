// Command stencil is an application instrumented with package region: a
// 1-D Jacobi stencil on a ring of ranks (per iteration, a halo exchange and
// a compute sweep) whose two regions are recorded on every rank, put on the
// synchronized global clock at the end, and written as raw data.
//
//	mpirun -np 2 go run ./examples/stencil -iters 2000 -out /tmp/st
//	reprobench analyze /tmp/st/stencil-mpirun000.csv
//	reprobench compare --by region /tmp/st/stencil-mpirun000.csv
//	reprobench report -o /tmp/st/report.html /tmp/st/stencil-mpirun000.csv
//
// The whole instrumentation is the eleven lines of Run (stencil.go) marked
// "region"; the same Run runs on the simulated world of mpi/mpitest in go
// test (stencil_test.go), where the recorded durations and entry spreads
// are checked against the simulator's ground truth.
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"syscall"

	"github.com/reprobench/reprobench/analysis"
	"github.com/reprobench/reprobench/clocksync"
	"github.com/reprobench/reprobench/mpi"
	"github.com/reprobench/reprobench/region"
	"github.com/reprobench/reprobench/timing"
)

func main() {
	var cfg Config
	flag.IntVar(&cfg.Cells, "cells", 4096, "interior cells per rank")
	flag.IntVar(&cfg.Iters, "iters", 2000, "iterations")
	sync := flag.String("sync", "hca3", "clock synchronization `spec` at the start and the end (none: unsynchronized)")
	flag.BoolVar(&cfg.Off, "off", false, "disable the recorder (nothing is recorded or written)")
	flag.StringVar(&cfg.Out.Dir, "out", "", "write the raw data into this `directory`")
	flag.StringVar(&cfg.Out.RunID, "run-id", "stencil", "run id of the raw data")
	flag.IntVar(&cfg.Out.Mpirun, "mpirun", 0, "mpirun index of the raw data")
	flag.IntVar(&cfg.SpillEvery, "spill-every", 0, "with -out, each rank spills its records to its own file every `N` records (0: no spilling), so that a run that dies leaves them (region.Recover)")
	killAt := flag.Int("kill-at", -1, "rank 1 kills itself with SIGKILL at the start of iteration `N` (a crash test of the spill files)")
	flag.Parse()
	if *killAt >= 0 {
		cfg.Kill = func(c mpi.Comm, it int) {
			if it == *killAt && c.Rank() == 1 {
				_ = syscall.Kill(os.Getpid(), syscall.SIGKILL)
			}
		}
	}
	if err := run(cfg, *sync); err != nil {
		fmt.Fprintln(os.Stderr, "stencil:", err)
		os.Exit(1)
	}
}

func run(cfg Config, spec string) error {
	if spec != "none" {
		sp, err := clocksync.ParseSpec(spec)
		if err != nil {
			return err
		}
		alg, err := sp.New()
		if err != nil {
			return err
		}
		cfg.Sync = alg
	}
	if err := mpi.Init(); err != nil {
		return err
	}
	defer mpi.Finalize()
	c := mpi.World()
	cfg.Out.Labels = map[string]string{"app": "stencil"}
	cfg.Out.PerRank = true
	cfg.Work = heavyWork(c, cfg.Cells)
	res, err := Run(c, timing.NewMonotonic(), cfg)
	if err != nil {
		// Another rank may wait in a collective: end the job.
		fmt.Fprintln(os.Stderr, "stencil:", err)
		mpi.Abort(1)
	}
	if c.Rank() != 0 || cfg.Off {
		return nil
	}
	Summarize(os.Stdout, res)
	if res.Files.CSV != "" {
		fmt.Printf("raw data: %s (per rank: %s)\n", res.Files.CSV, res.Files.Ranks)
	}
	return nil
}

// Summarize prints, per region, the median runtime_s, global runtime and
// entry spread over its complete occurrences, and each rank's stated clock
// bound and recorder overhead.
func Summarize(w io.Writer, res *region.Result) {
	by := map[string][3][]float64{}
	var order []string
	for _, r := range res.Rows {
		if r.ErrorCode != 0 {
			continue
		}
		v, ok := by[r.Region]
		if !ok {
			order = append(order, r.Region)
		}
		v[0], v[1], v[2] = append(v[0], r.RuntimeS), append(v[1], r.GlobalRuntimeS), append(v[2], r.EntrySpreadS)
		by[r.Region] = v
	}
	fmt.Fprintf(w, "%-10s %8s %14s %14s %16s\n", "region", "n", "runtime_us", "global_us", "entry_spread_us")
	for _, name := range order {
		v := by[name]
		fmt.Fprintf(w, "%-10s %8d %14.3f %14.3f %16.3f\n", name, len(v[0]), analysis.Median(v[0])*1e6, analysis.Median(v[1])*1e6, analysis.Median(v[2])*1e6)
	}
	for _, l := range res.Record.PerRank {
		b := "unknown"
		if l.BoundS != nil {
			b = fmt.Sprintf("%.3f µs", *l.BoundS*1e6)
		}
		fmt.Fprintf(w, "rank %d: %d records, %d dropped, clock bound %s, Begin/End pair %.0f ns\n", l.Rank, l.Records, l.Dropped, b, l.PairOverheadNs)
	}
}
