// Package clocksync builds a global clock out of the drifting local clocks of
// MPI processes: the clock synchronization algorithms of paper 000 (Hunold and
// Carpen-Amarie, "MPI Benchmarking Revisited", Sec. 4 and App. B) and the
// authors' later HCA3, HCA3O and two-level schemes, composed from small parts,
// plus the accuracy experiment that checks them (App. C.3, C.5, C.6).
//
// # Models and the global clock
//
// A Model is linear: reference = local − (Slope·local + Intercept), times in
// seconds since each process's epoch (Algorithm 16). Models along a chain of
// clocks merge exactly (MergeLMs, Eq. 1) and invert (Model.Local), which the
// window engine needs to turn a global deadline into local ticks. A
// GlobalClock applies a chain of models to a timing.Clock; it is itself a
// timing.Clock (with Source kind SourceNone) and maps local ticks to global
// time and back. Rank 0's raw clock is the global time.
//
// # Parts
//
// An Algorithm is a Topology driving a Learner:
//
//   - OffsetMeasurer: one offset of a client clock to a reference clock.
//     SKaMPIPingPong (Alg. 7: bounds from ping-pongs, min/max counts, early
//     stop on the RTT), JKPingPong (Alg. 4/15: RTT/2-corrected exchanges, the
//     median exchange kept as a real sample), NetgaugePingPong (Alg. 12: the
//     exchange with the minimum RTT).
//   - RTTEstimator: TrimmedRTT (Alg. 17: warm-up, Tukey-trimmed mean). It
//     runs in Prepare, before the first offset that uses the RTT (the
//     reference implementations used the RTT before measuring it).
//   - Learner: Regression (n fit points, least squares on centred x) or
//     OffsetOnly (one offset, slope 0). ComputeAndSetIntercept re-measures an
//     intercept at a synchronization point (Fig. 5).
//   - Topology: Linear (every rank against rank 0; Alg. 8 and 15),
//     BottomUpTree (binomial tree, models merged; Alg. 3 and 11),
//     TopDownTree (HCA3: parents serve their global clock), TwoLevel (node
//     leaders, then propagation within the node via SplitShared).
//
// The named algorithms — skampi, netgauge, jk, hca, hca2, hca3, hca3o,
// twolevel — are built from a Spec, whose compact text form such as
// "hca3:fitpts=1000,exchanges=100" documents parameters and defaults.
//
// # Synchronizing and checking
//
// Algorithm.Sync runs collectively on an mpi.Comm and atomically replaces a
// GlobalClock's models; calling it again re-synchronizes. Its Result records
// the cost (duration, messages) and, on rank 0, every rank's slope, intercept
// and fit residuals for the metadata. Harness measures the offsets of the
// global clocks to rank 0's right after the synchronization and after given
// delays; in simulation (package mpitest) it also reports the true errors,
// computed by TrueOffsets from ground truth.
//
// The offset-only algorithms (SKaMPI, Netgauge, HCA3O) leave the drift
// uncorrected, so their error grows by the relative drift of the clocks (tens
// of µs per second at ±50 ppm); the drift-aware ones (JK, HCA, HCA2, HCA3) stay
// within a microsecond for seconds — the central finding of Sec. 4 of paper 000.
//
// Point-to-point messages of this package use the tags 0x7c50–0x7c56
// (31824–31830), inside the range [0, mpi.TagInternal) left to users; code that
// communicates concurrently with a synchronization must avoid them.
//
// clocksync knows only the mpi.Comm interface and timing.Clock; it runs
// unchanged on the real binding and on the simulated world of mpitest.
package clocksync
