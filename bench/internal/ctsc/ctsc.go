//go:build cgo && amd64

// Package ctsc reads the time-stamp counter, CLOCK_MONOTONIC and
// CLOCK_MONOTONIC_RAW from C, in the same binary as Go code, so that tests
// can check that C and package timing read the same ticks, and benchmarks
// can compare the cost of a read in Go with a read in C. It is not used on
// any measurement path.
//
// The Loop functions read a counter n times in a C loop and return the
// elapsed CLOCK_MONOTONIC nanoseconds: the cost of a read in C without the
// cgo call. The single-read functions cost a cgo call each (tens of ns).
package ctsc

/*
#include <stdint.h>
#include <time.h>
#include <x86intrin.h>

static inline uint64_t ctsc_rdtscp(void) { unsigned int aux; return __rdtscp(&aux); }
static inline uint64_t ctsc_lfence_rdtsc(void) { _mm_lfence(); return __rdtsc(); }
static inline int64_t ctsc_monotonic_ns(void) {
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static inline int64_t ctsc_monotonic_raw_ns(void) {
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
	return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

// The loops keep a running sum of the readings, as a caller using them
// would, and store it so that nothing is optimized away.
static int64_t ctsc_loop_rdtscp(int64_t n, uint64_t *sink) {
	uint64_t s = 0;
	int64_t t0 = ctsc_monotonic_ns();
	for (int64_t i = 0; i < n; i++) s += ctsc_rdtscp();
	int64_t t1 = ctsc_monotonic_ns();
	*sink = s;
	return t1 - t0;
}
static int64_t ctsc_loop_lfence_rdtsc(int64_t n, uint64_t *sink) {
	uint64_t s = 0;
	int64_t t0 = ctsc_monotonic_ns();
	for (int64_t i = 0; i < n; i++) s += ctsc_lfence_rdtsc();
	int64_t t1 = ctsc_monotonic_ns();
	*sink = s;
	return t1 - t0;
}
static int64_t ctsc_loop_monotonic(int64_t n, uint64_t *sink) {
	uint64_t s = 0;
	int64_t t0 = ctsc_monotonic_ns();
	for (int64_t i = 0; i < n; i++) s += (uint64_t)ctsc_monotonic_ns();
	int64_t t1 = ctsc_monotonic_ns();
	*sink = s;
	return t1 - t0;
}
static int64_t ctsc_loop_monotonic_raw(int64_t n, uint64_t *sink) {
	uint64_t s = 0;
	int64_t t0 = ctsc_monotonic_ns();
	for (int64_t i = 0; i < n; i++) s += (uint64_t)ctsc_monotonic_raw_ns();
	int64_t t1 = ctsc_monotonic_ns();
	*sink = s;
	return t1 - t0;
}
*/
import "C"

// Available reports whether this build has the C readers (cgo on amd64).
const Available = true

// RDTSCP returns the raw counter read with RDTSCP in C (one cgo call).
// It kills the process with SIGILL where RDTSCP does not execute.
func RDTSCP() uint64 { return uint64(C.ctsc_rdtscp()) }

// LfenceRDTSC returns the raw counter read with LFENCE; RDTSC in C.
func LfenceRDTSC() uint64 { return uint64(C.ctsc_lfence_rdtsc()) }

// MonotonicNs returns clock_gettime(CLOCK_MONOTONIC) in nanoseconds.
func MonotonicNs() int64 { return int64(C.ctsc_monotonic_ns()) }

// MonotonicRawNs returns clock_gettime(CLOCK_MONOTONIC_RAW) in nanoseconds.
func MonotonicRawNs() int64 { return int64(C.ctsc_monotonic_raw_ns()) }

var sink C.uint64_t

// LoopRDTSCP reads the counter with RDTSCP n times in C and returns the
// elapsed nanoseconds.
func LoopRDTSCP(n int) int64 { return int64(C.ctsc_loop_rdtscp(C.int64_t(n), &sink)) }

// LoopLfenceRDTSC reads the counter with LFENCE; RDTSC n times in C and
// returns the elapsed nanoseconds.
func LoopLfenceRDTSC(n int) int64 { return int64(C.ctsc_loop_lfence_rdtsc(C.int64_t(n), &sink)) }

// LoopMonotonic reads CLOCK_MONOTONIC n times in C and returns the elapsed
// nanoseconds.
func LoopMonotonic(n int) int64 { return int64(C.ctsc_loop_monotonic(C.int64_t(n), &sink)) }

// LoopMonotonicRaw reads CLOCK_MONOTONIC_RAW n times in C and returns the
// elapsed CLOCK_MONOTONIC nanoseconds.
func LoopMonotonicRaw(n int) int64 { return int64(C.ctsc_loop_monotonic_raw(C.int64_t(n), &sink)) }
