package reprobench

import (
	"fmt"
	"strings"
)

// NoBound says what Run does with an experiment under a windowed process
// synchronization (window.Method.Windowed) when the clock synchronization
// in force before it stated no error bound (clocksync.Bound.Unknown: too
// few undisturbed fit points, or ranks descheduled with no worst case to
// state; not an offset-only algorithm, which never states one and was
// chosen so). A window's start times are global deadlines, so their
// meaning rests on that bound.
type NoBound int

const (
	// NoBoundFallback runs the experiment with the tool's own
	// dissemination barrier (FallbackMethod: the same code on every
	// MPI library, unlike MPI_Barrier) and the local completion time, and
	// records it (rawdata.Metadata.ProcSyncFallbacks, and a note). The
	// default.
	NoBoundFallback NoBound = iota
	// NoBoundRefuse fails the run before the experiment.
	NoBoundRefuse
)

var noBoundNames = [...]string{"fallback", "refuse"}

// String returns "fallback" or "refuse", the flag's values.
func (n NoBound) String() string {
	if n < 0 || int(n) >= len(noBoundNames) {
		return fmt.Sprintf("NoBound(%d)", int(n))
	}
	return noBoundNames[n]
}

// ParseNoBound parses "fallback" or "refuse" (case-insensitive).
func ParseNoBound(s string) (NoBound, error) {
	for i, n := range noBoundNames {
		if strings.EqualFold(strings.TrimSpace(s), n) {
			return NoBound(i), nil
		}
	}
	return 0, fmt.Errorf("reprobench: no-bound policy %q: want fallback or refuse", s)
}
