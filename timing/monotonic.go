package timing

import (
	_ "unsafe" // for go:linkname
)

// nanotime is the Go runtime's monotonic clock: on Linux, CLOCK_MONOTONIC
// in nanoseconds read through the vDSO, the clock behind time.Now's
// monotonic reading. The runtime keeps this linkname working on purpose
// (go.dev/issue/67401).
//
//go:linkname nanotime runtime.nanotime
func nanotime() int64

// MonotonicNs returns CLOCK_MONOTONIC in nanoseconds (the Go runtime's
// monotonic clock; on Linux CLOCK_MONOTONIC itself): the time axis of
// NoiseProbe.EpochNs.
func MonotonicNs() int64 { return nanotime() }

// Monotonic is a Clock on CLOCK_MONOTONIC in nanoseconds, read the way the Go
// runtime reads it (cheaper than time.Now, which also reads the wall clock).
// C code reads the same clock with clock_gettime(CLOCK_MONOTONIC) minus
// Source().Epoch. It is safe for concurrent use.
type Monotonic struct {
	epoch int64
}

var _ Clock = (*Monotonic)(nil)

// NewMonotonic returns a monotonic clock whose epoch is now.
func NewMonotonic() *Monotonic {
	return &Monotonic{epoch: nanotime()}
}

// Now returns the nanoseconds since the clock was made.
func (m *Monotonic) Now() Ticks { return Ticks(nanotime() - m.epoch) }

// Freq returns 1 GHz: a tick is a nanosecond.
func (m *Monotonic) Freq() Freq { return NewFreq(1e9) }

// Name returns "monotonic".
func (m *Monotonic) Name() string { return "monotonic" }

// Source returns SourceMonotonic with the CLOCK_MONOTONIC value at the epoch.
func (m *Monotonic) Source() Source {
	return Source{Kind: SourceMonotonic, Epoch: m.epoch, Hz: 1e9}
}
