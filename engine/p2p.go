package engine

import (
	"fmt"

	"github.com/reprobench/reprobench/mpi"
)

// p2pFactors returns the raw data's bw_window and rma_sync of e: the
// effective window for the bandwidth calls (0 for others), the
// synchronization for the one-sided calls ("" for others).
func (e *Experiment) p2pFactors() (int, string) {
	w, rs := 0, ""
	if e.Call.Bandwidth() {
		w = e.BWWindow
		if w == 0 {
			w = mpi.DefaultBWWindow
		}
	}
	if e.Call.OneSided() {
		rs = e.RMASync.String()
	}
	return w, rs
}

// checkP2P refuses what the bandwidth and one-sided calls cannot do on p
// ranks, before any rank starts the experiment (their rows' MinRanks is
// checked with every call's).
func (e *Experiment) checkP2P(p int) error {
	switch {
	case e.Call == mpi.CallMBWMR && p%2 != 0:
		return fmt.Errorf("mbw_mr pairs rank i with rank i+P/2 and needs an even number of ranks, have %d", p)
	case e.Call.Bandwidth() && (e.BWWindow < 0 || e.BWWindow > mpi.MaxBWWindow):
		return fmt.Errorf("bw window %d out of range [1,%d] (0: %d)", e.BWWindow, mpi.MaxBWWindow, mpi.DefaultBWWindow)
	case e.Call.OneSided() && !e.RMASync.Valid():
		return fmt.Errorf("invalid one-sided synchronization %v", e.RMASync)
	}
	return nil
}
