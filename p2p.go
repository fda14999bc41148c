package reprobench

import (
	"github.com/reprobench/reprobench/factor"
)

// vcollParams are the vcoll family's call parameters, typed.
type vcollParams struct {
	skew int // factor.Skew: the heavy rank's count factor k
}

// p2pParams are the p2p family's call parameters, typed.
type p2pParams struct {
	bwWindow int    // factor.BWWindow: messages per bandwidth window
	rmaSync  string // factor.RMASync: the one-sided synchronization, by its level's name
}

// familyParams returns the vcoll and p2p parameters among the levels of a
// call's parameters (mpi.Call.Levels), typed as the sidecar records them:
// zero values for the ones the call does not take.
func familyParams(l factor.Values) (v vcollParams, q p2pParams) {
	if x, ok := l.Get(factor.Skew); ok {
		v.skew = int(x)
	}
	if x, ok := l.Get(factor.BWWindow); ok {
		q.bwWindow = int(x)
	}
	if _, ok := l.Get(factor.RMASync); ok {
		q.rmaSync = l.Cell(factor.RMASync)
	}
	return v, q
}
