// Package reprobench runs MPI micro-benchmark experiments reproducibly and
// writes their raw data with complete metadata.
//
// The model: an Experiment is one cell of a design, a call (a built-in MPI
// call or your own function) at one message size, observed Nrep times
// after Warmup unrecorded observations under one process synchronization.
// Run executes a list of them as one mpirun, collectively on every rank:
// it agrees on a seed and run id, synchronizes the clocks when a method
// needs a global clock (with a stated error bound), runs the observations,
// and rank 0 streams one raw row per observation to a CSV file and closes
// a JSON sidecar with everything needed to judge and repeat the run. It
// never aggregates: "reprobench analyze", "compare" and "plot" (and
// package analysis) read the files. Options configure the run; their zero
// value is the verified default. FromDesign turns a design file's rows
// into experiments, and Simulate runs the same code on a simulated world.
//
// # Three ways to use the library
//
// Measure your own MPI code. Start from
// DefaultExperiment(DefaultMethod), the settings the README's numbers were
// measured with and "reprobench run" uses without flags (the fixed window
// starts every observation at one instant of the global clock and records
// the global completion time), set its Func to your function (Name is its
// call column), and hand it to Run with DefaultOptions. The program
// imports this package and mpi only:
//
//	ex := reprobench.DefaultExperiment(reprobench.DefaultMethod)
//	ex.Name, ex.Func, ex.MsizeBytes, ex.Type = "ring_shift", shift, 8192, mpi.Float64
//	opt := reprobench.DefaultOptions()
//	opt.Dir = "out"
//	res, err := reprobench.Run(mpi.World(), []reprobench.Experiment{ex}, opt)
//
// Time a kernel inside one process, without MPI. timing.TimeFunc calls a
// function after a warm-up, times each call on the best clock the machine
// has (timing.BestClock: the TSC where usable, else CLOCK_MONOTONIC, every
// error of timing.NewTSC handled), and returns the durations with the
// clock's resolution and overhead and the warnings that apply;
// analysis.Summarize and analysis.MedianCI take the durations as they are.
// Across ranks, kernel.Bracket brackets a kernel with barriers
// (McCalpin's provable bounds).
//
// Test your benchmark with go test on a simulated MPI world. mpitest.New
// makes P ranks in one process, in virtual time, with clocks that are
// offset and drift and a network of known latency; World.Run runs the same
// code you run under mpirun, and the World's ground truth (ClockAt,
// ClockSecondsAt, TrueOffset, TrueTime, the message log) says what the
// right answer is. The simulated clocks wait in virtual time, so nothing
// in the library sleeps in real time there.
//
// The README's "Use it as a library" has the three as complete programs
// (examples/quickstart, tested so they cannot go stale).
//
// # Packages
//
// This package holds the experiment loop and the run around it; the
// packages below hold the parts.
//
//   - mpi: the cgo binding (Open MPI, or MPICH with -tags mpich) and the
//     Comm interface everything else programs against; mpi/mpitest, the
//     simulated world with ground truth.
//   - timing: clocks as integer ticks, timing.Ticks (TSC, CLOCK_MONOTONIC, MPI_Wtime), their
//     resolution and overhead, the kernel timer, the machine's noise.
//   - clocksync: clock synchronization (SKaMPI, JK, HCA, HCA3, two-level, …)
//     with a predicted error bound, and the accuracy harness;
//     clocksync/clocksim, an algorithm and its harness on simulated ranks.
//   - window: process synchronization (barriers, fixed and adaptive windows,
//     round-time, the noise guard), completion times, McCalpin's bracket.
//   - region: named regions of an application timed on every rank
//     (Begin/End, nesting, labels, the iteration), put on the synchronized
//     clock with a stated bound and written as raw data by a collective
//     Close.
//   - rawdata: the raw-data format (CSV and JSON sidecar) and its Writer,
//     which refuses what the reader would refuse.
//   - design: factors, randomized designs over mpiruns, the environment.
//   - campaign: the launcher of a campaign's mpiruns (mpirun, srun, Slurm
//     jobs and arrays), its manifest and resume.
//   - analysis: reading raw data, Tukey's filter, per-mpirun medians,
//     confidence intervals, Wilcoxon and the other tests, comparisons;
//     analysis/synth, synthetic raw data of known shape for tests.
//   - plots: the figures of "reprobench plot" (violin, box, compare,
//     drift, mpiruns, …) as gonum plots.
//   - report: the self-contained HTML page of "reprobench report", with
//     the 12 rules of Hoefler & Belli 2015 checked.
//   - noiseguard: learning a machine's periodic noise to place window
//     starts around it.
//   - guidelines: MPI performance guidelines (is MPI_Allreduce slower than
//     MPI_Reduce + MPI_Bcast?) as data, their campaign and their verdict.
package reprobench
