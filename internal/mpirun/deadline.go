package mpirun

import (
	"os"
	"runtime"
	"strconv"
	"strings"
	"time"
)

// maxScale caps the load-derived TimeoutScale, so that a hang still fails
// within go test's per-package -timeout (30 minutes in make test) rather
// than being killed by it without the test's own message.
const maxScale = 8

// TimeoutScale is the factor by which the tests stretch every deadline that
// guards against a hang: RB_TEST_TIMEOUT_SCALE when it is set to a number of
// at least 1; otherwise the 1-minute load average per CPU (/proc/loadavg,
// read at the call), at least 1 and at most 8.
//
// A test's deadline (a launcher timeout, a wait for a file, a context
// passed to a command) states when the test stops waiting for something
// that would otherwise never happen. It is not a bound on how fast the
// machine is: a machine with twice as many runnable threads as CPUs gives
// each about half the CPU time, so the same work takes about twice as long
// in wall-clock time. The scale keeps the deadlines generous under that load
// and unchanged on a quiet machine. A test that must bound the speed of
// something bounds its CPU time, or a count, not its wall-clock time.
func TimeoutScale() float64 {
	if s, err := strconv.ParseFloat(os.Getenv("RB_TEST_TIMEOUT_SCALE"), 64); err == nil && s >= 1 {
		return s
	}
	return loadScale(readLoad(), runtime.NumCPU())
}

// loadScale is the load-derived factor of TimeoutScale: load1 per CPU,
// clamped to [1, maxScale]. A load that could not be read (negative) gives 1.
func loadScale(load1 float64, cpus int) float64 {
	if load1 < 0 || cpus < 1 {
		return 1
	}
	return min(max(load1/float64(cpus), 1), maxScale)
}

// readLoad returns the 1-minute load average, or -1 when /proc/loadavg
// cannot be read.
func readLoad() float64 {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return -1
	}
	f := strings.Fields(string(b))
	if len(f) == 0 {
		return -1
	}
	l, err := strconv.ParseFloat(f[0], 64)
	if err != nil {
		return -1
	}
	return l
}

// Deadline returns d, a deadline against a hang, stretched by TimeoutScale.
func Deadline(d time.Duration) time.Duration {
	return time.Duration(float64(d) * TimeoutScale())
}
