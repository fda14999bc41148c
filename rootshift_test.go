package reprobench_test

import (
	"testing"
	"time"

	"github.com/reprobench/reprobench"
	"github.com/reprobench/reprobench/completion"
	"github.com/reprobench/reprobench/factor"
	"github.com/reprobench/reprobench/mpi"
	"github.com/reprobench/reprobench/window"
)

// rootShiftExperiments: every call that takes root_shift, rotating, in a
// loop of 5 calls per observation (on 3 ranks the last call's root is
// root + 1, not root), checked; MPI_Gather and MPI_Scatter also in place.
func rootShiftExperiments() []reprobench.Experiment {
	var exps []reprobench.Experiment
	for _, call := range mpi.CallsTaking(mpi.FactorParam(factor.RootShift)) {
		for _, root := range []int{0, 2} {
			params := factor.Of(factor.RootShift, 1)
			if call.Op().TakesFactor(factor.InPlace) && root == 2 {
				params.Set(factor.InPlace, 1)
			}
			exps = append(exps, reprobench.Experiment{Exp: len(exps), Call: call, MsizeBytes: 24, Type: mpi.Int64, Nrep: 4, Warmup: 1,
				Root: root, VerifyResults: true, Params: params, Runtime: completion.Loop, LoopReps: 5,
				Sync: window.Config{Method: window.Barrier, Window: 300 * time.Microsecond, Batch: 4}})
		}
	}
	return exps
}

// TestRootShiftChecked: the rotating calls' results agree with the rows'
// Result for the last call's root (ground truth). Had the calls not
// rotated, the last root (never a root then) would hold no result; had the
// check used the first root, the rows of the calls whose receivers get a
// root-dependent block (MPI_Bcast, MPI_Scatter, MPI_Scatterv, the twins)
// would be wrong. The raw data record root_shift on for them.
func TestRootShiftChecked(t *testing.T) {
	checkedOn(t, rootShiftExperiments(), 20, factor.RootShift) // 10 calls × 2 roots
}

// TestRootShiftCaught: rank 1 corrupts every result of MPI_Gather (and
// of MPI_Igather, which the simulator runs as its twin); the check finds
// it where rank 1 is the last call's root, (0 + 4) mod 3 = 1 for the
// experiments at root 0, and nowhere else (at root 2 the last root is 0,
// and the in-place check's extra call has root 2).
func TestRootShiftCaught(t *testing.T) {
	exps := rootShiftExperiments()
	wrong := wrongRows(runCorrupted(t, exps, 1, mpi.CallGather))
	for _, ex := range exps {
		want := (ex.Call == mpi.CallGather || ex.Call == mpi.CallIgather) && ex.Root == 0
		if (len(wrong[ex.Exp]) > 0) != want {
			t.Errorf("%v root %d: wrong rows %v", ex.Call, ex.Root, wrong[ex.Exp])
		}
	}
}
