// Package region times named regions of an application's own code on every
// rank — LibSciBench's per-rank records (Hoefler & Belli 2015, §6), Caliper's
// CALI_MARK_BEGIN/END — and puts them, when the recorder is closed, on one
// synchronized global clock with a stated error bound, in the raw-data
// format (package rawdata) that "reprobench analyze", "compare", "plot" and
// "report" read.
//
// # Recording
//
// [New] creates a recorder per rank on a communicator and a clock
// (collective: it synchronizes the clocks when asked). The annotations are
//
//	rec.Begin("halo") … rec.End("halo")
//	defer rec.Region("compute")()
//
// Regions nest: End closes the innermost open region (and counts a misuse
// when its name differs). Each record carries the parameters in effect at
// its Begin:
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
// every record to global time, gathers the records at rank 0 in bounded
// chunks, and rank 0 writes, with [Output.Dir] set, one mpirun of raw data:
//
//   - the raw file: one row per occurrence of a region — the k-th time the
//     ranks entered region R under the same labels is rep k of the
//     experiment of (R, labels), call "region" (Output.Call), label region=R;
//   - the per-rank file: each rank's local and global start and end of that
//     occurrence, with the same label columns;
//   - the sidecar, with the clock synchronizations and the recorder's
//     [Record] (capacity, overflow, its measured overhead, each rank's
//     clock error bound).
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
