package window

import (
	"fmt"
	"math"
	"strings"
)

// RuntimeType selects how one observation's completion time is computed
// from the ranks' timestamps (paper 000 §4.6).
type RuntimeType int

// The runtime types.
const (
	// RuntimeLocal is the maximum over ranks of end − start, each rank on
	// its own clock: no clock synchronization needed.
	RuntimeLocal RuntimeType = iota
	// RuntimeGlobal is the latest end minus the earliest start, in global time.
	RuntimeGlobal
	// RuntimeLoop is the loop-averaged scheme of IMB and OSU: each
	// observation runs the call n times back to back and the time is the
	// maximum over ranks of (end − start)/n.
	RuntimeLoop
	numRuntimes
)

var runtimeNames = [...]string{"local", "global", "loop"}

// RuntimeTypeNames returns the names of the runtime types, for vocabularies.
func RuntimeTypeNames() []string { return append([]string(nil), runtimeNames[:]...) }

// String returns the name of the runtime type.
func (t RuntimeType) String() string {
	if t < 0 || t >= numRuntimes {
		return fmt.Sprintf("RuntimeType(%d)", int(t))
	}
	return runtimeNames[t]
}

// ParseRuntimeType accepts "local", "global" or "loop" (also "loop_avg").
func ParseRuntimeType(s string) (RuntimeType, error) {
	n := strings.ToLower(strings.TrimSpace(s))
	if n == "loop_avg" || n == "loop-averaged" {
		return RuntimeLoop, nil
	}
	for i, name := range runtimeNames {
		if n == name {
			return RuntimeType(i), nil
		}
	}
	return 0, fmt.Errorf("window: unknown runtime type %q (want local, global or loop)", s)
}

// LocalCompletion returns max over ranks of end[r] − start[r] (seconds,
// each rank's own clock). It panics if the lengths differ.
func LocalCompletion(start, end []float64) float64 {
	if len(start) != len(end) {
		panic("window: LocalCompletion: length mismatch")
	}
	m := math.Inf(-1)
	for r := range start {
		m = math.Max(m, end[r]-start[r])
	}
	return m
}

// GlobalCompletion returns max end − min start (global seconds). It panics
// if the lengths differ.
func GlobalCompletion(globalStart, globalEnd []float64) float64 {
	if len(globalStart) != len(globalEnd) {
		panic("window: GlobalCompletion: length mismatch")
	}
	lo, hi := math.Inf(1), math.Inf(-1)
	for r := range globalStart {
		lo = math.Min(lo, globalStart[r])
		hi = math.Max(hi, globalEnd[r])
	}
	return hi - lo
}
