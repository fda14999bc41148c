package reprobench

import (
	"fmt"

	"github.com/reprobench/reprobench/factor"
	"github.com/reprobench/reprobench/mpi"
)

// checkParams refuses call parameters out of their rows' bounds (package
// factor), a skew the call cannot take (mpi.CheckSkew: above 1 for a call
// without count vectors, or counts beyond MPI's int), and what mbw_mr
// cannot do on p ranks, before any rank starts the experiment (the rows'
// MinRanks is checked with every call's); count is the elements per rank.
func (e *Experiment) checkParams(p, count int) error {
	for _, id := range factor.CallParams() {
		if v, ok := e.Params.Get(id); ok {
			f := id.Row()
			if _, err := f.Parse(f.Format(v)); err != nil {
				return err
			}
		}
	}
	skew, _ := e.Params.Get(factor.Skew)
	if err := mpi.CheckSkew(e.Call, count, p, int(skew)); err != nil {
		return err
	}
	if e.Call == mpi.CallMBWMR && p%2 != 0 {
		return fmt.Errorf("mbw_mr pairs rank i with rank i+P/2 and needs an even number of ranks, have %d", p)
	}
	return nil
}

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
