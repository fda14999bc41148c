package reprobench_test

import (
	"testing"
	"time"

	"github.com/reprobench/reprobench"
	"github.com/reprobench/reprobench/factor"
	"github.com/reprobench/reprobench/mpi"
	"github.com/reprobench/reprobench/mpi/mpitest"
	"github.com/reprobench/reprobench/window"
)

// inPlaceExperiments: every call that takes in_place, in place, checked,
// with a reduction whose repeated in-place calls change their input (sum).
func inPlaceExperiments() []reprobench.Experiment {
	var exps []reprobench.Experiment
	for _, call := range mpi.CallsTaking(mpi.FactorParam(factor.InPlace)) {
		for _, root := range []int{0, 2} {
			exps = append(exps, reprobench.Experiment{Exp: len(exps), Call: call, MsizeBytes: 24, Type: mpi.Int64, Nrep: 6, Warmup: 2,
				Root: root, VerifyResults: true, Params: factor.Of(factor.InPlace, 1),
				Sync: window.Config{Method: window.Barrier, Window: 300 * time.Microsecond, Batch: 4}})
		}
	}
	return exps
}

// TestInPlaceChecked: the in-place calls compute the row's result from
// the input mpi.InPlaceInput puts in the receive buffer (ground truth: the
// rows' Result), and the raw data record in_place on for them.
func TestInPlaceChecked(t *testing.T) {
	checkedOn(t, inPlaceExperiments(), 10, factor.InPlace) // 5 calls × 2 roots
}

// checkedOn runs exps (want of them) checked on 3 simulated ranks and
// asserts that no row's result is wrong and that the raw data record
// factor id on for every experiment.
func checkedOn(t *testing.T, exps []reprobench.Experiment, want int, id factor.ID) {
	t.Helper()
	if len(exps) != want {
		t.Fatalf("%d experiments, want %d", len(exps), want)
	}
	s := runChecked(t, mpitest.Config{Ranks: 3, Seed: 5}, exps)
	if w := wrongRows(s); len(w) != 0 {
		t.Errorf("wrong-result rows %v, want none", w)
	}
	for _, ex := range exps {
		if got := ex.Raw().Factors.Cell(id); got != "on" {
			t.Errorf("%v: raw %s %q, want on", ex.Call, id.Row().Name, got)
		}
	}
}

// TestInPlaceCaught: a corrupted in-place MPI_Allreduce result is found.
func TestInPlaceCaught(t *testing.T) {
	exps := inPlaceExperiments()
	wrong := wrongRows(runCorrupted(t, exps, 1, mpi.CallAllreduce))
	for _, ex := range exps {
		if (len(wrong[ex.Exp]) > 0) != (ex.Call == mpi.CallAllreduce) {
			t.Errorf("%v root %d: wrong rows %v", ex.Call, ex.Root, wrong[ex.Exp])
		}
	}
}
