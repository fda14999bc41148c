package timing

import "github.com/reprobench/reprobench/timing/internal/craw"

// MonotonicRawClock is a Clock on CLOCK_MONOTONIC_RAW in nanoseconds: the
// kernel's clock at the rate of its hardware counter, which no time daemon
// (NTP, PTP) slews. A slew changes CLOCK_MONOTONIC's rate by up to 500 ppm
// at moments of the daemon's choosing, and a clock synchronization learns
// one rate per link, so a slew makes its model and its stated bound wrong
// (docs/clock-sync.md). C code reads the same ticks with
// clock_gettime(CLOCK_MONOTONIC_RAW) minus Source().Epoch.
//
// Go reads it through one cgo call to the C library's clock_gettime (the Go
// runtime reads only CLOCK_MONOTONIC through the vDSO), or, in a build
// without cgo, with a system call, which costs microseconds. It is safe for
// concurrent use.
type MonotonicRawClock struct {
	epoch int64
}

var _ Clock = (*MonotonicRawClock)(nil)

// NewMonotonicRaw returns a CLOCK_MONOTONIC_RAW clock whose epoch is now.
func NewMonotonicRaw() *MonotonicRawClock {
	return &MonotonicRawClock{epoch: craw.Ns()}
}

// Now returns the nanoseconds since the clock was made.
func (m *MonotonicRawClock) Now() Ticks { return Ticks(craw.Ns() - m.epoch) }

// Freq returns 1 GHz: a tick is a nanosecond.
func (m *MonotonicRawClock) Freq() Freq { return NewFreq(1e9) }

// Name returns "monotonic_raw".
func (m *MonotonicRawClock) Name() string { return "monotonic_raw" }

// Source returns SourceMonotonicRaw with the CLOCK_MONOTONIC_RAW value at
// the epoch.
func (m *MonotonicRawClock) Source() Source {
	return Source{Kind: SourceMonotonicRaw, Epoch: m.epoch, Hz: 1e9}
}
