package main

// What "reprobench run" parses its flags with, besides the library's own
// parsers: lists of calls and methods, sizes, a clock by name, and the
// note about Open MPI's event tick it prints.

import (
	"fmt"
	"strings"

	"github.com/reprobench/reprobench"
	"github.com/reprobench/reprobench/design"
	"github.com/reprobench/reprobench/mpi"
	"github.com/reprobench/reprobench/timing"
	"github.com/reprobench/reprobench/window"
)

// parseCalls parses a comma-separated list of calls.
func parseCalls(s string) ([]mpi.Call, error) { return parseList(s, mpi.ParseCall) }

// parseMethods parses a comma-separated list of process synchronization
// methods.
func parseMethods(s string) ([]window.Method, error) { return parseList(s, window.ParseMethod) }

// parseList parses each comma-separated field of s, trimmed, with parse.
func parseList[T any](s string, parse func(string) (T, error)) ([]T, error) {
	var out []T
	for _, f := range strings.Split(s, ",") {
		v, err := parse(strings.TrimSpace(f))
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, nil
}

// parseSizes parses message sizes with design.ParseSizes (8,1K,
// pow2:A..B, logu:A..B:N[:STEP]); the old form LO-HI gets an error naming
// pow2:LO..HI.
func parseSizes(spec string, seed uint64) ([]int, error) {
	if lo, hi, ok := strings.Cut(spec, "-"); ok && !strings.ContainsAny(spec, ",:") && lo != "" {
		return nil, fmt.Errorf("sizes %q: LO-HI is no longer accepted; write pow2:%s..%s", spec, lo, hi)
	}
	s, err := design.ParseSizes(spec, seed)
	if err != nil {
		return nil, err
	}
	return s, nil
}

// eventTickNote explains, for windowed methods under Open MPI with its
// default event tick, what the tick does to them, or returns "".
//
// Open MPI's opal_progress runs its event library (a system call) every
// mpi_event_tick_rate µs from inside whatever MPI call is progressing.
// Under barrier sync that is mostly the untimed barrier; under a window the
// only MPI calls are the timed ones. Measured with bench/window/window.c
// (pure C, perfect clock sync, Open MPI 4.1.4, 2-core VM, 8-byte allreduce,
// 100 µs window): 2.0 % of valid observations above 2 µs and p99 3.1 µs by
// default, 0.3 % and 1.2 µs with the tick off (barrier: 0.8 µs).
func eventTickNote(exps []reprobench.Experiment, flavor string, getenv func(string) string) string {
	if flavor != "openmpi" || getenv("OMPI_MCA_mpi_event_tick_rate") != "" {
		return ""
	}
	for _, ex := range exps {
		if ex.Sync.Method.Windowed() {
			return "Open MPI runs its event loop from inside MPI calls every few ms (MCA mpi_event_tick_rate); " +
				"under windowed process sync those are the timed calls, and about 1% of observations per rank " +
				"take microseconds longer. OMPI_MCA_mpi_event_tick_rate=0 turns the periodic tick off " +
				"(components that need the event loop still get it); the environment is recorded in the metadata."
		}
	}
	return ""
}

// clockNames are the clocks clockByName knows.
var clockNames = []string{"monotonic_raw", "monotonic", "tsc", "tsc_lfence", "mpi_wtime"}

// clockByName returns the clock of that name: monotonic_raw
// (CLOCK_MONOTONIC_RAW), monotonic (CLOCK_MONOTONIC), tsc (RDTSCP; alias
// tsc_rdtscp), tsc_lfence (LFENCE; RDTSC) or mpi_wtime (alias wtime). tscHz
// fixes the TSC frequency (0: calibrate for 1 s).
func clockByName(name string, tscHz float64) (timing.Clock, error) {
	switch name {
	case "monotonic_raw":
		return timing.NewMonotonicRaw(), nil
	case "monotonic":
		return timing.NewMonotonic(), nil
	case "tsc", "tsc_rdtscp":
		return timing.NewTSC(timing.TSCConfig{Hz: tscHz})
	case "tsc_lfence":
		return timing.NewTSC(timing.TSCConfig{Hz: tscHz, Fenced: true})
	case "mpi_wtime", "wtime":
		return mpi.WtimeClock(), nil
	}
	return nil, fmt.Errorf("unknown clock %q (want one of %s)", name, strings.Join(clockNames, ", "))
}
