//go:build cgo && linux

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
