package reprobench_test

import (
	"testing"

	"github.com/reprobench/reprobench"
	"github.com/reprobench/reprobench/design"
	"github.com/reprobench/reprobench/factor"
	"github.com/reprobench/reprobench/mpi"
)

// TestFromDesignP2P: a design row's bw_window and rma_sync override the
// run's; empty cells keep them; mbw_mr on an odd np is refused.
func TestFromDesignP2P(t *testing.T) {
	base := reprobench.Experiment{Type: mpi.Float64, Nrep: 10, Params: factor.Of(factor.BWWindow, 64).With(factor.RMASync, int64(mpi.RMAFence))}
	ex, err := reprobench.FromDesign(design.Experiment{Call: "bw", MsizeBytes: 8, Factors: factor.Of(factor.BWWindow, 16)}, reprobench.Base{Experiment: base}, 1, 2)
	if err != nil || ex.Params.Cell(factor.BWWindow) != "16" || ex.Params.Cell(factor.RMASync) != "" {
		t.Errorf("bw row: %v, params %v", err, ex.Params)
	}
	ex, err = reprobench.FromDesign(design.Experiment{Call: "MPI_Get", MsizeBytes: 8, Factors: factor.Of(factor.RMASync, int64(mpi.RMAFlush))}, reprobench.Base{Experiment: base}, 1, 2)
	if err != nil || ex.Params.Cell(factor.BWWindow) != "" || ex.Params.Cell(factor.RMASync) != "flush" {
		t.Errorf("Get row: %v, params %v", err, ex.Params)
	}
	if _, err := reprobench.FromDesign(design.Experiment{Call: "MPI_Get", MsizeBytes: 8, Factors: factor.Of(factor.RMASync, 9)}, reprobench.Base{Experiment: base}, 1, 2); err == nil {
		t.Error("an unknown rma_sync was accepted")
	}
	if _, err := reprobench.FromDesign(design.Experiment{Call: "mbw_mr", MsizeBytes: 8}, reprobench.Base{Experiment: base}, 1, 3); err == nil {
		t.Error("mbw_mr on 3 ranks was accepted")
	}
}
