// Package noiseguard learns a machine's periodic noise — timer ticks,
// hypervisor housekeeping, daemons: detours that stop a CPU at a fixed
// period — and places observation starts where no detour is predicted.
//
// # What it learns from
//
// A windowed observation whose start is late because its CPU was held in
// a detour tells two things: the detour covered the deadline, and it ended
// when the observation started (deadline + lateness). An Event is that
// pair. The ends of the detours of one periodic source are congruent
// modulo its period; the deadlines are spread over the detour. A Learner
// collects the events of one node (ranks on a node share its noise) and
// Fit finds its periodic sources, several at once:
//
//  1. candidate periods are the most common differences between event ends
//     (in [MinPeriod, MaxPeriod]; nothing assumes 1 ms);
//  2. for each candidate, the recent ends are folded modulo a fine grid of
//     periods around it; the period and phase whose 2·Width-wide phase
//     window holds the most ends win (a period and its multiples do not
//     tie: folding at twice the period splits the cluster);
//  3. the ends within Width of the winning phase, cycle by cycle, are fitted
//     by weighted least squares (end = a + k·period, recent events weighing
//     more, time constant Memory): the fitted period is the source's period
//     as seen on the learner's clock, so a phase that drifts at a constant
//     rate is followed, and a drift that changes is followed by the weights;
//  4. the duration is the largest lateness of the source's events, scaled
//     by (m+1)/m for m events (the maximum of m uniform draws), leaving out
//     latenesses after a jump to more than twice the one before (a CPU
//     descheduled for milliseconds whose end fell at the source's phase);
//  5. its events are removed and the search repeats for the next source;
//  6. seeded sources first, then those with the most events, are kept as
//     long as together they cover at most MaxBlocked of the time (15 %).
//
// A source that Fit does not find again (the guard keeps observations out
// of its detours, so it produces no new events) is kept: sources are only
// replaced by a fit that finds them.
//
// # Where it starts from
//
// Seed installs sources measured elsewhere, such as "reprobench noise
// --json" (whose periodic sources are fitted by this package from the
// probe's detours, FromDetours). Their end times must be on the learner's
// time axis (Source.Shift). A seeded source keeps its place within
// MaxBlocked ahead of the learned ones, also once a fit has found it
// again: the probe measured the machine with nothing else running, while
// the events of a run also come from the MPI library's own rhythm (MPICH's
// progress engine makes observations late every 0.3–0.6 ms), which, ranked
// by events alone, crowded the probe's 1 ms tick out of the budget. A fit
// that finds a source again never shortens it (the longer duration is
// kept): the run sees only what the guard lets through, often a detour's
// tail.
//
// # The guard
//
// Schedule puts observation starts on a grid (a batch's start times) and
// skips every slot whose span [start − guard, start + expected duration]
// a predicted detour of any node overlaps. A skipped slot costs time, not
// observations. The bias is the point: observations that would overlap the
// periodic noise are not taken, so the data describe the operation on a
// quiet CPU, not the operation as an application meets it.
package noiseguard
