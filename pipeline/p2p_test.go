package pipeline_test

import (
	"testing"

	"github.com/reprobench/reprobench/design"
	"github.com/reprobench/reprobench/engine"
	"github.com/reprobench/reprobench/mpi"
	"github.com/reprobench/reprobench/pipeline"
)

// TestFromDesignP2P: a design row's bw_window and rma_sync override the
// run's; empty cells keep them; mbw_mr on an odd np is refused.
func TestFromDesignP2P(t *testing.T) {
	base := engine.Experiment{Type: mpi.Float64, Nrep: 10, BWWindow: 64, RMASync: mpi.RMAFence}
	ex, err := pipeline.FromDesign(design.Experiment{Call: "bw", MsizeBytes: 8, BWWindow: 16}, pipeline.Base{Experiment: base}, 1, 2)
	if err != nil || ex.BWWindow != 16 || ex.RMASync != mpi.RMAFence {
		t.Errorf("bw row: %v, window %d sync %v", err, ex.BWWindow, ex.RMASync)
	}
	ex, err = pipeline.FromDesign(design.Experiment{Call: "MPI_Get", MsizeBytes: 8, RMASync: "flush"}, pipeline.Base{Experiment: base}, 1, 2)
	if err != nil || ex.BWWindow != 64 || ex.RMASync != mpi.RMAFlush {
		t.Errorf("Get row: %v, window %d sync %v", err, ex.BWWindow, ex.RMASync)
	}
	if _, err := pipeline.FromDesign(design.Experiment{Call: "MPI_Get", MsizeBytes: 8, RMASync: "never"}, pipeline.Base{Experiment: base}, 1, 2); err == nil {
		t.Error("an unknown rma_sync was accepted")
	}
	if _, err := pipeline.FromDesign(design.Experiment{Call: "mbw_mr", MsizeBytes: 8}, pipeline.Base{Experiment: base}, 1, 3); err == nil {
		t.Error("mbw_mr on 3 ranks was accepted")
	}
}
