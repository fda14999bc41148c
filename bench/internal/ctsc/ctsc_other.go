//go:build !cgo || !amd64

// Package ctsc reads the time-stamp counter, CLOCK_MONOTONIC and
// CLOCK_MONOTONIC_RAW from C; this build has neither cgo nor amd64, so it
// has none of the readers.
package ctsc

// Available reports whether this build has the C readers (cgo on amd64).
const Available = false

func unavailable() { panic("ctsc: no C readers in this build (needs cgo on amd64)") }

// RDTSCP panics: see Available.
func RDTSCP() uint64 { unavailable(); return 0 }

// LfenceRDTSC panics: see Available.
func LfenceRDTSC() uint64 { unavailable(); return 0 }

// MonotonicNs panics: see Available.
func MonotonicNs() int64 { unavailable(); return 0 }

// LoopRDTSCP panics: see Available.
func LoopRDTSCP(n int) int64 { unavailable(); return 0 }

// LoopLfenceRDTSC panics: see Available.
func LoopLfenceRDTSC(n int) int64 { unavailable(); return 0 }

// LoopMonotonic panics: see Available.
func LoopMonotonic(n int) int64 { unavailable(); return 0 }

// MonotonicRawNs panics: see Available.
func MonotonicRawNs() int64 { unavailable(); return 0 }

// LoopMonotonicRaw panics: see Available.
func LoopMonotonicRaw(n int) int64 { unavailable(); return 0 }
