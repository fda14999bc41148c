package reprobench_test

import (
	"strconv"
	"testing"
	"time"

	"github.com/reprobench/reprobench"
	"github.com/reprobench/reprobench/cache"
	"github.com/reprobench/reprobench/factor"
	"github.com/reprobench/reprobench/mpi"
	"github.com/reprobench/reprobench/mpi/mpitest"
	"github.com/reprobench/reprobench/window"
)

// TestBufOffset: a buf_offset level reaches the buffers of calls of every
// family under the warm and cycle cache modes (the simulator refuses an
// observation whose buffers start elsewhere, mpitest's checkBufOffset),
// the results stay right, and the raw data record the level.
func TestBufOffset(t *testing.T) {
	var exps []reprobench.Experiment
	for _, call := range []mpi.Call{mpi.CallBcast, mpi.CallAllreduce, mpi.CallGatherv, mpi.CallPingPong, mpi.CallIallreduce, mpi.CallBW, mpi.CallGet} {
		for _, cache := range []cache.Mode{cache.Warm, cache.Cycle} {
			for _, off := range []int64{3, 100} {
				exps = append(exps, reprobench.Experiment{Exp: len(exps), Call: call, MsizeBytes: 24, Type: mpi.Int64, Nrep: 4, Warmup: 1,
					VerifyResults: true, Cache: cache, Params: factor.Of(factor.BufOffset, off),
					Sync: window.Config{Method: window.Barrier, Window: 300 * time.Microsecond, Batch: 4}})
			}
		}
	}
	s := runChecked(t, mpitest.Config{Ranks: 4, Seed: 9}, exps)
	if w := wrongRows(s); len(w) != 0 {
		t.Errorf("wrong-result rows %v, want none", w)
	}
	if len(s.rows) < len(exps)*4 {
		t.Errorf("%d rows, want at least %d", len(s.rows), len(exps)*4)
	}
	for _, ex := range exps {
		off, _ := ex.Params.Get(factor.BufOffset)
		if got := ex.Raw().Factors.Cell(factor.BufOffset); got != strconv.FormatInt(off, 10) {
			t.Errorf("%v: raw buf_offset %q, want %d", ex.Call, got, off)
		}
	}
}
