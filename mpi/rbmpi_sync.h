// rbmpi_sync.h: what the observation paths of every family share to read
// the clock and to wait — the clocks of timing.Source, the thread that owns
// MPI, and the dissemination barrier. Includes rbmpi_types.h only.
#ifndef RBMPI_SYNC_H
#define RBMPI_SYNC_H

#include <pthread.h>
#include <time.h>
#include <x86intrin.h>

#include "rbmpi_types.h"

// rb_main is the thread that initialized MPI: the only one allowed to call
// it (the binding's contract at every thread level it requests). Weak, not
// static: every cgo file that includes this header is its own translation
// unit, and they must all see the one rb_main that rb_init set.
__attribute__((weak)) pthread_t rb_main;

// rb_on_main reports whether the calling thread is the one that called
// rb_init: cheap (pthread_self reads a register), so the observation paths
// check it before entering MPI.
static int rb_on_main(void) { return pthread_equal(pthread_self(), rb_main); }

// Clocks. rb_now must read exactly what the Go timing package reads for the
// same source, so that Go and C timestamps are comparable.
//
// rb_wtime_ns rounds MPI_Wtime to nanoseconds by adding 0.5 and truncating
// (one instruction), not by llround (a libm call): in an observation that
// times each call, t0's conversion runs after the clock is read and before
// the call, inside the timed interval. llround took 4.6 ns per reading on
// this project's VM against 0.8 ns (2026-11-28, 5e7 readings of a value of
// MPI_Wtime's size), 0.7 % of an 8-byte allreduce that OSU times with the
// bare double. MPI_Wtime is never negative, where the two agree (halves
// round up).
static inline int64_t rb_wtime_ns(void) { return (int64_t)(MPI_Wtime() * 1e9 + 0.5); }

static inline int64_t rb_now(int kind, int64_t epoch) {
	struct timespec ts;
	unsigned int aux;
	switch (kind) {
	case RB_CLK_TSC:
		return (int64_t)__rdtscp(&aux) - epoch;
	case RB_CLK_TSC_FENCED:
		_mm_lfence();
		return (int64_t)__rdtsc() - epoch;
	case RB_CLK_WTIME:
		return rb_wtime_ns() - epoch;
	case RB_CLK_MONOTONIC_RAW:
		clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
		return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec - epoch;
	default:
		clock_gettime(CLOCK_MONOTONIC, &ts);
		return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec - epoch;
	}
}

// rb_dissemination_barrier is a dissemination barrier: in round k every rank
// sends a zero-byte message to (rank + 2^k) mod p and receives one from
// (rank - 2^k) mod p; after ceil(log2 p) rounds every rank has heard from
// every other rank, transitively (Hensgen, Finkel and Manber 1988).
static int rb_dissemination_barrier(MPI_Comm c, int rank, int p) {
	char s = 0, r = 0;
	for (int d = 1; d < p; d <<= 1) {
		int err = MPI_Sendrecv(&s, 0, MPI_BYTE, (rank + d) % p, RB_TAG_DISSEM, &r, 0, MPI_BYTE,
		                       (rank - d + p) % p, RB_TAG_DISSEM, c, MPI_STATUS_IGNORE);
		if (err != MPI_SUCCESS) return err;
	}
	return MPI_SUCCESS;
}

#endif
