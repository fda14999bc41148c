//go:build cgo && linux

// Package craw reads CLOCK_MONOTONIC_RAW for package timing. The Go runtime
// reads only CLOCK_MONOTONIC through the vDSO; x/sys/unix reads any clock
// with a system call. This package calls the C library's clock_gettime,
// which on Linux reads CLOCK_MONOTONIC_RAW through the vDSO where the
// kernel provides it, at the cost of one cgo call. It is separate from
// timing because a package using cgo cannot also hold Go assembly.
package craw

/*
#include <stdint.h>
#include <time.h>

static int64_t craw_monotonic_raw_ns(void) {
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
	return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}
*/
import "C"

// Cgo reports whether Ns reads through cgo (true) or a system call.
const Cgo = true

// Ns returns CLOCK_MONOTONIC_RAW in nanoseconds.
func Ns() int64 { return int64(C.craw_monotonic_raw_ns()) }
