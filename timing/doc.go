// Package timing provides the clocks reprobench measures with, and says how
// good each one is.
//
// # Clocks
//
// A Clock counts Ticks (an int64) from a per-process epoch (the moment the
// clock was made) at a known rate, its Freq. The Freq converts ticks: to a
// time.Duration for the Go API, to float seconds only at the data boundary
// (raw data, analysis) and in the clock models. A Clock is for measuring
// intervals on one process, never for telling the time of day: ticks are not
// absolute time, and clocks of different processes, even on one machine, have
// different epochs and, once converted to seconds, slightly different rates.
// Package clocksync relates them to one another. Timestamps stay integers
// until the analysis: a float64 of seconds since 1970 resolves only about
// 0.24 µs.
//
// Four kinds of clock exist:
//
//   - MonotonicRawClock (NewMonotonicRaw): CLOCK_MONOTONIC_RAW in
//     nanoseconds, the kernel's clock at its hardware counter's rate, which
//     no time daemon slews. It is the default (DefaultClockName, NewDefault,
//     "reprobench run --clock"): a slew steps CLOCK_MONOTONIC's rate by up
//     to 500 ppm, and every clock synchronization learns one rate per clock,
//     so a slew breaks its model and its stated bound (docs/clock-sync.md
//     has the simulated study). C code reads it through the vDSO at
//     CLOCK_MONOTONIC's cost (24.9 against 24.6 ns per read on this
//     project's KVM guest); Go has no vDSO path for it and pays one cgo call
//     (51 against 26.5 ns; a system call of about 1.7 µs without cgo).
//     The default was chosen on the C cost, since the measured calls are
//     timed in C (two reads per observation); Go reads it in clock
//     synchronization, where the extra cost lengthens each ping-pong's
//     round trip (on this guest, np 2, hca3, five runs each: stated bounds
//     at the sync of median 99 ns, 96–202 ns, against 83 ns, 79–89 ns, on
//     CLOCK_MONOTONIC).
//   - Monotonic (NewMonotonic): CLOCK_MONOTONIC in nanoseconds, the clock
//     behind the monotonic reading of time.Now, read directly from the runtime.
//     On Linux it is slewed by NTP, never stepped, and C code reading
//     clock_gettime(CLOCK_MONOTONIC) minus Source().Epoch gets the same ticks
//     (tested in bench/internal/ctsc). Elsewhere it is the runtime's own monotonic
//     counter, which C code cannot be assumed to read.
//   - TSC (NewTSC): the x86 time-stamp counter, read with RDTSCP (waits for the
//     preceding instructions) or LFENCE; RDTSC, in Go assembly. It is refused
//     unless the counter is invariant (constant rate in every power state, as
//     CPUID and the kernel's constant_tsc and nonstop_tsc flags report). Its
//     frequency is either fixed by the user or calibrated by least squares
//     against CLOCK_MONOTONIC_RAW over at least a second, with the uncertainty
//     stated (Hunold & Carpen-Amarie 2016, §3.4, §4.2.1: a crude estimate makes the clocks of
//     different ranks drift apart by microseconds per second). The method
//     and figures are kept in Frequency for the metadata.
//   - MPI_Wtime, provided by package mpi.
//
// NewBestClock picks among them for timing on one process, handling every
// error of NewTSC (RDTSCP, then LFENCE; RDTSC, then the monotonic clock), and
// says which clocks it passed over and why; TimeFunc with a nil clock makes
// that choice once per process.
//
// Skewed wraps any clock with a known offset and drift, for tests and for
// injecting a skew that clock synchronization must recover.
//
// A simulated clock (package mpitest) is a Sleeper: its time passes only
// when its rank acts. SleepFunc finds that Sleep through wrappers, and the
// packages that wait between readings (clocksync, window) use it, so a
// simulation never waits in real time.
//
// Each clock names the counter behind it (Source), so that the C code of
// package mpi, which times an observation without returning to Go, reads the
// very same ticks: the raw counter named by Source().Kind minus
// Source().Epoch.
//
// # Resolution and overhead
//
// A clock's tick (1/Hz) is not what it can resolve. Measure reads a clock back
// to back many times and reports two figures, as LibSciBench does (Hoefler & Belli 2015,
// §4.2.1):
//
//   - the resolution: the median step between consecutive distinct readings,
//     the shortest interval the clock tells apart in practice (for a coarse
//     clock, its granularity; for the TSC, about one read);
//   - the overhead: the median cost of one read.
//
// An interval shorter than 20 times the overhead (reading the clock would
// cost more than 5% of it) or 10 times the resolution is not measured well;
// Measurement.Warnings says so, and Measurement.MinInterval gives the bound.
// Time several repetitions together or choose a finer clock.
//
// # Timing a kernel
//
// TimeFunc times a function in one process: warm-up calls, then n calls
// each timed on its own, on a given clock or the best one; the Samples
// carry the clock's resolution and overhead and the warnings that apply
// to the median duration. Package kernel's Bracket brackets a kernel
// across MPI ranks instead.
//
// # Noise
//
// MeasureNoise is the selfish-detour benchmark (Beckman et al. 2006): one
// thread pinned to each CPU spins on the monotonic clock, all at once, and
// every gap between two readings above a threshold is a detour, a moment
// the thread did not run (interrupt, timer tick, scheduler, hypervisor).
// NoiseProbe.ExpectedLate turns the detours into the share of windowed
// observations that must start late on this machine whatever the window and
// the clock synchronization, and NoiseProbe.Simultaneous tells a machine
// that stops as a whole (a paused virtual machine) from CPUs disturbed one
// at a time. "reprobench noise" runs it.
package timing
