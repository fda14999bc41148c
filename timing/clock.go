package timing

import (
	"fmt"
	"math"
	"time"
)

// Clock is a source of timestamps for benchmarking.
//
// A Clock reads Ticks since a per-process epoch (never absolute float
// seconds: a float64 holding Unix time resolves only about 0.24 µs). Its
// frequency, a Freq, owns every conversion of ticks: to a time.Duration in
// the Go API, to float seconds at the data boundary (raw data, analysis).
// Implementations must be safe to read from the goroutine that owns them;
// they need not be safe for concurrent use unless documented.
type Clock interface {
	// Now returns the ticks elapsed since the clock's epoch.
	Now() Ticks
	// Freq returns the clock's frequency, which converts its ticks.
	Freq() Freq
	// Name is a short human-readable name such as "tsc", "monotonic",
	// "monotonic_raw" or "mpi_wtime".
	Name() string
	// Source identifies the hardware or OS counter behind the clock, so that
	// C code on the critical path can read exactly the same counter.
	Source() Source
}

// SourceKind names a counter that both Go and C code can read.
type SourceKind int

// The counters a Clock can be built on.
const (
	// SourceNone is a clock that C code cannot read (for example a simulated
	// clock of mpitest, or a decorated clock). The critical path must then be
	// driven through the Clock's own methods.
	SourceNone SourceKind = iota
	// SourceMonotonic is CLOCK_MONOTONIC in nanoseconds, which is also what the Go
	// runtime's monotonic clock reads on Linux.
	SourceMonotonic
	// SourceTSC is the time-stamp counter read with RDTSCP.
	SourceTSC
	// SourceTSCFenced is the time-stamp counter read with LFENCE; RDTSC.
	SourceTSCFenced
	// SourceWtime is MPI_Wtime, as nanoseconds.
	SourceWtime
	// SourceMonotonicRaw is CLOCK_MONOTONIC_RAW in nanoseconds.
	SourceMonotonicRaw
)

var sourceNames = [...]string{"none", "monotonic", "tsc_rdtscp", "tsc_lfence", "mpi_wtime", "monotonic_raw"}

// String returns the name used in metadata and on the command line:
// "none", "monotonic", "tsc_rdtscp", "tsc_lfence", "mpi_wtime" or
// "monotonic_raw".
func (k SourceKind) String() string {
	if k < 0 || int(k) >= len(sourceNames) {
		return fmt.Sprintf("SourceKind(%d)", int(k))
	}
	return sourceNames[k]
}

// Source describes how to read a Clock's ticks from C: read the raw counter
// named by Kind and subtract Epoch. Conversions to seconds use Hz.
type Source struct {
	Kind  SourceKind // the counter
	Epoch int64      // raw counter value at the clock's epoch
	Hz    float64    // ticks per second
}

// Ticks counts a clock's ticks: a reading since the clock's epoch, or the
// difference of two readings of one clock. Only the clock's Freq gives it a
// unit. It is an int64, so that it crosses to C (int64_t) and into slices
// without conversion.
type Ticks int64

// Freq is a clock's frequency in ticks per second, and the owner of the
// conversions between its ticks, time.Duration and (at the data boundary)
// float seconds. The zero Freq is invalid; make one with NewFreq.
type Freq struct {
	hz float64
}

// NewFreq returns conversions for a clock ticking hz times per second.
// It panics if hz is not a positive finite number.
func NewFreq(hz float64) Freq {
	if !(hz > 0) || math.IsInf(hz, 0) {
		panic(fmt.Sprintf("timing: invalid clock frequency %v Hz", hz))
	}
	return Freq{hz: hz}
}

// Hz returns the ticks per second.
func (f Freq) Hz() float64 { return f.hz }

// Seconds converts ticks to float seconds, for the data boundary (raw
// data, analysis) and the clock models.
func (f Freq) Seconds(t Ticks) float64 { return float64(t) / f.hz }

// Duration converts ticks to a time.Duration rounded to the nearest nanosecond.
func (f Freq) Duration(t Ticks) time.Duration {
	if f.hz == 1e9 {
		return time.Duration(t)
	}
	return time.Duration(math.Round(float64(t) * 1e9 / f.hz))
}

// Ticks converts a duration to ticks rounded to the nearest tick.
func (f Freq) Ticks(d time.Duration) Ticks {
	if f.hz == 1e9 {
		return Ticks(d)
	}
	return Ticks(math.Round(float64(d) * f.hz / 1e9))
}

// FromSeconds converts float seconds (a clock model's time) to ticks
// rounded to the nearest tick: the inverse of Seconds.
func (f Freq) FromSeconds(seconds float64) Ticks { return Ticks(math.Round(seconds * f.hz)) }
