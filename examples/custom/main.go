// Command custom is a custom benchmark: it synchronizes the clocks with HCA3,
// then times the user's own MPI code — a halo exchange on a ring, written with
// plain Sendrecv calls (bench.go) — under window-based process
// synchronization, and prints on rank 0 the median and 99th percentile of the
// completion time and how many observations were invalid.
//
//	mpirun -np 2 go run ./examples/custom -n 1000 -bytes 8192
//
// With -out DIR it also writes its observations as raw data (package
// rawdata), which reprobench analyze reads; with -call MPI_Allreduce it
// measures that call with package reprobench instead, and reprobench analyze
// puts those rows in the same group as "reprobench run" rows of the same
// configuration.
//
// The benchmark itself (Bench) takes an mpi.Comm and a timing.Clock, so the
// same code runs on the simulated world of mpi/mpitest in go test
// (bench_test.go); main only wires the real MPI library.
package main

import (
	"flag"
	"fmt"
	"os"
	"time"

	"github.com/reprobench/reprobench/mpi"
	"github.com/reprobench/reprobench/rawdata"
	"github.com/reprobench/reprobench/timing"
	"github.com/reprobench/reprobench/window"
)

func main() {
	cfg := Config{}
	flag.IntVar(&cfg.N, "n", 1000, "measured observations")
	flag.IntVar(&cfg.Warmup, "warmup", 100, "warm-up observations (they adapt the window)")
	flag.IntVar(&cfg.Bytes, "bytes", 8192, "halo size per neighbour in `bytes` (multiple of 8)")
	flag.StringVar(&cfg.Sync, "sync", "hca3", "clock synchronization `spec` (hca3: learn to 1 µs@10s, clocksync.Default().Accuracy; hca3:accuracy=none: the published 1000 fit points × 100 exchanges)")
	method := flag.String("method", "window", "process synchronization: window (fixed), adaptive_skampi, barrier, …")
	flag.DurationVar(&cfg.Window, "window", 200*time.Microsecond, "(initial) window per observation")
	var out Output
	flag.StringVar(&out.Dir, "out", "", "write the raw data (reprobench's format, for reprobench analyze) into this `directory`")
	flag.StringVar(&out.RunID, "run-id", "custom", "run id of the raw data")
	call := flag.String("call", "", "measure this built-in MPI `call` with package reprobench instead of the halo exchange (e.g. MPI_Allreduce; -sync auto as in reprobench run)")
	flag.Parse()
	if err := run(cfg, *method, *call, out); err != nil {
		fmt.Fprintln(os.Stderr, "custom:", err)
		os.Exit(1)
	}
}

func run(cfg Config, method, callName string, out Output) error {
	var err error
	if cfg.Method, err = window.ParseMethod(method); err != nil {
		return err
	}
	if err := mpi.Init(); err != nil {
		return err
	}
	defer mpi.Finalize()
	c := mpi.World()
	// CLOCK_MONOTONIC: cheap to read, and C code reads the same ticks.
	if callName != "" {
		call, err := mpi.ParseCall(callName)
		if err != nil {
			return err
		}
		if out.Dir == "" {
			return fmt.Errorf("-call needs -out")
		}
		rows, err := RunCall(c, timing.NewMonotonic(), call, cfg, out)
		if err == nil && c.Rank() == 0 {
			fmt.Printf("%v, %d B: %d rows in %s\n", call, cfg.Bytes, rows, rawdata.NamesFor(out.Dir, out.RunID, out.Mpirun, false).CSV)
		}
		return err
	}
	res, _, err := Bench(c, timing.NewMonotonic(), cfg)
	if err != nil || c.Rank() != 0 {
		return err
	}
	if out.Dir != "" {
		if err := WriteRaw(out, cfg, c.Size(), res); err != nil {
			return err
		}
	}
	fmt.Printf("halo exchange, %d B to each of 2 neighbours, %d ranks\n", cfg.Bytes, c.Size())
	fmt.Printf("clock sync %s; process sync %v, final window %.1f µs\n", res.Sync, cfg.Method, res.WindowS*1e6)
	fmt.Printf("%d observations, %d invalid (started late or window expired)\n", res.N, res.Invalid)
	if res.Invalid == res.N {
		fmt.Println("no valid observation: widen the window (-window) or try -method adaptive_skampi")
		return nil
	}
	fmt.Printf("completion time (max over ranks): median %.2f µs, p99 %.2f µs\n", res.MedianS*1e6, res.P99S*1e6)
	return nil
}
