//go:build !cgo || !linux

package craw

import "golang.org/x/sys/unix"

// Cgo reports whether Ns reads through cgo (true) or a system call.
const Cgo = false

// Ns returns CLOCK_MONOTONIC_RAW in nanoseconds. It panics where the system
// has no such clock.
func Ns() int64 {
	var ts unix.Timespec
	if err := unix.ClockGettime(unix.CLOCK_MONOTONIC_RAW, &ts); err != nil {
		panic("timing: clock_gettime(CLOCK_MONOTONIC_RAW): " + err.Error())
	}
	return ts.Nano()
}
