// Package craw reads CLOCK_MONOTONIC_RAW for package timing. The Go runtime
// reads only CLOCK_MONOTONIC through the vDSO; x/sys/unix reads any clock
// with a system call. This package calls the C library's clock_gettime,
// which on Linux reads CLOCK_MONOTONIC_RAW through the vDSO where the
// kernel provides it, at the cost of one cgo call. It is separate from
// timing because a package using cgo cannot also hold Go assembly.
package craw
