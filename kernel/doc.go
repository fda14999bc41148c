// Package kernel times a kernel run on every rank with McCalpin's bracket
// (McCalpin, timing MPI STREAM):
//
//	t0, barrier, t1, WORK, t2, barrier, t3
//
// Bracket reduces each rank's timestamps to provable bounds of the
// parallel duration that need no clock synchronization (lower: the longest
// t2 − t1; upper: the shortest t3 − t0), and, given a global clock, the
// estimate max g(t2) − min g(t1) between them. Within one rank,
// timing.TimeFunc times a function.
package kernel
