//go:build !amd64

package timing

const tscArchSupported = false

func cpuidFacts(f *TSCFacts) {}

// The readers are never called: NewTSC refuses to build a TSC clock on
// architectures other than amd64.
func rdtscp() uint64                        { panic("timing: no TSC on this architecture") }
func rdtscpAux() (ticks uint64, aux uint32) { panic("timing: no TSC on this architecture") }
func rdtscFenced() uint64                   { panic("timing: no TSC on this architecture") }
