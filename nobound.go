package reprobench

import (
	"fmt"
	"strings"

	"github.com/reprobench/reprobench/completion"
	"github.com/reprobench/reprobench/rawdata"
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

// applyNoBound acts on an experiment before it runs when the clock
// synchronization in force stated no bound (why is the reason, "" when a
// bound was stated): nothing for a method that is not windowed or when a
// bound was stated; else, by policy, an error, or ex switched to
// FallbackMethod with the local completion time, and the fallback
// returned for the record. Every rank calls it with the same why (agreed
// at the synchronization), so every rank runs the same method.
func applyNoBound(ex *Experiment, why string, policy NoBound) (*rawdata.ProcSyncFallback, error) {
	if why == "" || !ex.Sync.Method.Windowed() {
		return nil, nil
	}
	if policy == NoBoundRefuse {
		return nil, fmt.Errorf("reprobench: experiment %d (%v): the clock synchronization before it stated no error bound (%s), and the no-bound policy is refuse", ex.Exp, ex.Sync.Method, why)
	}
	fb := &rawdata.ProcSyncFallback{Exp: ex.Exp, Declared: ex.Sync.Method.String(), DeclaredRuntime: ex.Runtime.String(),
		Why: "the clock synchronization before it stated no error bound: " + why}
	ex.Sync.Method = FallbackMethod
	if ex.Runtime == completion.Global {
		ex.Runtime = completion.Local
	}
	fb.Ran, fb.RanRuntime = ex.Sync.Method.String(), ex.Runtime.String()
	return fb, nil
}
