// Package region times named regions of an application's own code on every
// rank — LibSciBench's per-rank records (Hoefler & Belli 2015, §6), Caliper's
// CALI_MARK_BEGIN/END — and puts them, when the recorder is closed, on one
// synchronized global clock with a stated error bound, in the raw-data
// format (package rawdata) that "reprobench analyze", "compare", "plot" and
// "report" read.
//
// # Recording
//
// [Start] sets up the common case in one call after mpi.Init (the default
// clock and clock synchronization, an output directory checked at once,
// spilling on) and [Recorder.Stop] tears it down before mpi.Finalize;
// [StartWith] takes the choices explicitly, and [New] creates a recorder
// whose output is given to [Recorder.Close] at the end. All are collective
// (they synchronize the clocks when asked). The annotations are
//
//	rec.Begin("halo") … rec.End("halo")
//	defer rec.Region("compute")()
//
// Regions nest: End closes the innermost open region. A misuse (an End
// without a Begin or of another name, a bad region name or label) is
// checked when it happens, counted per kind ([Misuse]), and the first of
// each kind on a rank is noted at once; Close prints on rank 0 one line of
// the misuse, drops and unclosed regions, and writes it to the sidecar.
// Each record carries the parameters in effect at its Begin:
//
//   - grouping parameters, [Recorder.SetLabel] (a phase, an algorithm, any
//     label): they become label columns and, with the region's name (label
//     "region"), define the groups the analysis compares;
//   - one per-row parameter, the iteration ([Recorder.SetIter]): a column
//     (iter) of each row, not a group per iteration.
//
// Records go into a buffer of Options.Capacity records preallocated by New.
// Begin and End neither communicate nor allocate (a region name or label
// value seen for the first time is interned once). Begin reads the clock
// last and End reads it first, so the recorder's own bookkeeping stays
// outside the region; a region's duration includes about one clock read.
//
// Overflow: when the buffer is full, Begin records nothing (the newest
// records are dropped, never the oldest), and the drops are counted per
// rank and written to the sidecar. Because each rank keeps a prefix of its
// records, the k-th occurrence of a region still matches across ranks; an
// occurrence that some rank did not record is written with errorcode 16
// (rawdata.ErrorCodes), so the analysis leaves it out.
//
// A recorder created with Options.Disabled (or a nil *Recorder) does
// nothing: every method returns at once (Caliper's "off"), and Close
// writes nothing.
//
// # Closing
//
// [Recorder.Close] is collective. It synchronizes the clocks again when
// they were synchronized at New (Options.Sync, unless NoEndSync), maps
// every record to global time, and combines the ranks' records by
// reductions (the region names merged along a tree; per occurrence a Max
// and a Sum reduction to rank 0, in chunks), so that rank 0's memory grows
// with the occurrences, not with the rank count. Rank 0 writes, with
// [Output.Dir] set, one mpirun of raw data:
//
//   - the raw file: one row per occurrence of a region — the k-th time the
//     ranks entered region R under the same labels is rep k of the
//     experiment of (R, labels), call "region" (Output.Call), label region=R;
//   - with [Output.PerRank], the per-rank file: each rank's local and
//     global start and end of that occurrence, with the same label
//     columns (rank 0 receives them one rank at a time);
//   - the sidecar, with the clock synchronizations and the recorder's
//     [Record] (capacity, overflow, its measured overhead, the clock error
//     bound, the misuse account, per region the statistics of the ranks'
//     total times, the run's span).
//
// # Spill files
//
// With Options.Spill (Start sets it) each rank appends its records to its
// own file as it goes, outside every region, every Options.SpillEvery
// records; a run that dies leaves them, and [Recover] writes them as an
// incomplete run. The format is docs/data-format.md's.
//
// runtime_s of a region row is the largest duration over the ranks, each
// measured on the rank's own clock between its Begin and End: the local
// completion time of Hunold & Carpen-Amarie 2016 (§3.2.1), which needs no
// synchronized clock. global_runtime_s is the latest global end minus the
// earliest global start (their global completion time, §3.2.2), and
// entry_spread_s the latest minus the earliest global start (how far apart
// the ranks entered); both rely on the global clock, whose error bound per
// rank is recorded.
//
// # The clock's bound
//
// With synchronizations at New and at Close, each rank's offset to rank 0
// can be interpolated linearly between the two models (as tracing tools
// align their clocks at the start and end of a run). If the offset moves
// linearly in between (constant drift), the interpolation's error at any
// instant in between is at most the larger of the two synchronizations'
// bounds at their end (clocksync.Bound.AtSync); a drift that changes within
// the run (frequency wander) is not covered. Each rank also considers the
// start's model alone (bound Bound.At of the time to the last record) and
// the end's alone (Bound.At of the time back to the start), and uses the
// one of the three whose stated bound is the smallest, so that one failed
// synchronization (a loaded machine) is not averaged into a good one; the
// choice and the bound are recorded per rank (RankLog). Rank 0, the
// reference, has bound 0. Without synchronization the global columns are
// NaN and only runtime_s is meaningful.
//
// A rank whose synchronizations stated no bound (ranks descheduled with no
// worst case to state, clocksync.Result.Descheduled) has no stated error
// on its global clock: Close then leaves the global columns out (NaN) as
// for an unsynchronized recording and says so (Record.NoBound), or, with
// Options.RefuseNoBound, fails on rank 0.
package region
