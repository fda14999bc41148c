package engine

import (
	"fmt"

	"github.com/reprobench/reprobench/factor"
	"github.com/reprobench/reprobench/mpi"
)

// checkParams refuses call parameters out of their rows' bounds (package
// factor), a skew the call cannot take (mpi.CheckSkew: above 1 for a call
// without count vectors, or counts beyond MPI's int), and what mbw_mr
// cannot do on p ranks, before any rank starts the experiment (the rows'
// MinRanks is checked with every call's).
func (e *Experiment) checkParams(p int) error {
	for _, id := range factor.CallParams() {
		if v, ok := e.Params.Get(id); ok {
			f := id.Row()
			if _, err := f.Parse(f.Format(v)); err != nil {
				return err
			}
		}
	}
	skew, _ := e.Params.Get(factor.Skew)
	if err := mpi.CheckSkew(e.Call, e.Count(), p, int(skew)); err != nil {
		return err
	}
	if e.Call == mpi.CallMBWMR && p%2 != 0 {
		return fmt.Errorf("mbw_mr pairs rank i with rank i+P/2 and needs an even number of ranks, have %d", p)
	}
	return nil
}

// summaryParams returns the sidecar's skew, bw_window and rma_sync of the
// levels of a call's parameters (mpi.Call.Levels): zero values for the
// ones the call does not take.
func summaryParams(l factor.Values) (skew, bwWindow int, rmaSync string) {
	if v, ok := l.Get(factor.Skew); ok {
		skew = int(v)
	}
	if v, ok := l.Get(factor.BWWindow); ok {
		bwWindow = int(v)
	}
	if _, ok := l.Get(factor.RMASync); ok {
		rmaSync = l.Cell(factor.RMASync)
	}
	return skew, bwWindow, rmaSync
}
