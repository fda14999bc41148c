// Package completion defines the runtime types: how the completion time of
// one observation of an MPI call is computed from the ranks' start and end
// timestamps (Hunold & Carpen-Amarie 2016, §4.6).
//
// Local is the maximum over ranks of end − start, each on the rank's own
// clock (no clock synchronization needed); Global is the latest end minus
// the earliest start in global time. Loop, OSU and IMB run n calls per
// observation and compute the time as the loop-averaged schemes of IMB and
// of the OSU micro-benchmarks do (Type's constants give each formula).
//
// The definitions live here, apart from the process synchronization
// (package window decides when an observation starts, not how long it
// took) and from the engine, which evaluates them in a reduced form across
// ranks and is checked against the reference evaluation over the ranks'
// gathered values (internal/completionref).
package completion
