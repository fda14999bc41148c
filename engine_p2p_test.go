package reprobench_test

import (
	"strings"
	"testing"
	"time"

	"github.com/reprobench/reprobench"
	"github.com/reprobench/reprobench/completion"
	"github.com/reprobench/reprobench/factor"
	"github.com/reprobench/reprobench/mpi"
	"github.com/reprobench/reprobench/window"
)

// TestP2PExperiments runs every bandwidth and one-sided call through the
// engine on 4 simulated ranks (Prepare per experiment), under every
// runtime type but global, and checks the rows, the recorded factors and,
// for osu, that the value is the sender's time per window.
func TestP2PExperiments(t *testing.T) {
	var exps []reprobench.Experiment
	for _, rt := range []completion.Type{completion.Local, completion.Loop, completion.OSU, completion.IMB} {
		for _, call := range []mpi.Call{mpi.CallBW, mpi.CallBiBW, mpi.CallMBWMR, mpi.CallPut, mpi.CallGet, mpi.CallAccumulate} {
			for _, rs := range mpi.RMASyncs() {
				if rs != mpi.RMAFence && !call.OneSided() {
					continue
				}
				exps = append(exps, reprobench.Experiment{Exp: len(exps), Call: call, MsizeBytes: 1024, Type: mpi.Int64,
					Nrep: 6, Warmup: 2, Sync: window.Config{Method: window.Barrier}, Runtime: rt, LoopReps: 3,
					Params: factor.Of(factor.BWWindow, 7).With(factor.RMASync, int64(rs))})
			}
		}
	}
	// The windowed methods too (start deadlines from synchronized clocks).
	for _, m := range []window.Method{window.Fixed, window.AdaptiveSKaMPI, window.AdaptiveNBCBench, window.RoundTime, window.Dissemination, window.DoubleBarrier} {
		for _, call := range []mpi.Call{mpi.CallBW, mpi.CallMBWMR, mpi.CallPut} {
			exps = append(exps, reprobench.Experiment{Exp: len(exps), Call: call, MsizeBytes: 1024, Type: mpi.Int64,
				Nrep: 6, Warmup: 2, Sync: window.Config{Method: m, Window: 300 * time.Microsecond, Batch: 3}, Params: factor.Of(factor.BWWindow, 7).With(factor.RMASync, int64(mpi.RMALock))})
		}
	}
	sink, _ := runEngine(t, 4, exps, false)
	if len(sink.sums) != len(exps) {
		t.Fatalf("%d summaries for %d experiments", len(sink.sums), len(exps))
	}
	for i, s := range sink.sums {
		ex := exps[i]
		wantW, wantRS := 0, ""
		if ex.Call.Bandwidth() {
			wantW = 7
		} else {
			wantRS = ex.Params.Cell(factor.RMASync)
		}
		if s.BWWindow != wantW || s.RMASync != wantRS || s.Rows < ex.Nrep {
			t.Errorf("experiment %d (%v %v): summary window %d sync %q rows %d, want %d %q %d", i, ex.Call, ex.Params, s.BWWindow, s.RMASync, s.Rows, wantW, wantRS, ex.Nrep)
		}
		f := ex.Raw().Factors
		if w, _ := f.Get(factor.BWWindow); int(w) != wantW || f.Cell(factor.RMASync) != wantRS {
			t.Errorf("experiment %d: raw factors %v", i, f)
		}
	}
	for _, r := range sink.rows {
		ex := exps[r.Exp]
		// The model's default network: 1 µs latency, 10 GB/s; one call
		// is at least a latency and well below a millisecond.
		// A windowed method may flag a start late: the model's latency
		// spikes (1% of messages, 20 µs) can delay the start's broadcast.
		if !(r.RuntimeS > 0.5e-6 && r.RuntimeS < 1e-3) || (r.ErrorCode != 0 && !ex.Sync.Method.Windowed()) {
			t.Errorf("%v %v %v: implausible row %+v", ex.Call, ex.Params, ex.Runtime, r)
		}
		// osu is the sender's time per window: at least the injection of
		// 7 messages and, but for bibw (whose back-to-back windows
		// overlap), the acknowledgement's round trip.
		lat := 2e-6
		if ex.Call == mpi.CallBiBW {
			lat = 0
		}
		if ex.Call.Bandwidth() && ex.Runtime == completion.OSU && r.RuntimeS < 7*1024/10e9+lat {
			t.Errorf("%v osu: %.3g s per window is below the model's minimum", ex.Call, r.RuntimeS)
		}
	}
}

// TestP2PRefused: mbw_mr on an odd number of ranks and a bad window are
// refused before the experiment starts, naming the reason.
func TestP2PRefused(t *testing.T) {
	for _, c := range []struct {
		ex   reprobench.Experiment
		np   int
		want string
	}{
		{reprobench.Experiment{Call: mpi.CallMBWMR, MsizeBytes: 8, Type: mpi.Byte, Nrep: 1, Sync: window.Config{Method: window.Barrier}}, 3, "even"},
		{reprobench.Experiment{Call: mpi.CallBW, MsizeBytes: 8, Type: mpi.Byte, Nrep: 1, Params: factor.Of(factor.BWWindow, -2), Sync: window.Config{Method: window.Barrier}}, 2, "window"},
		{reprobench.Experiment{Call: mpi.CallPut, MsizeBytes: 8, Type: mpi.Byte, Nrep: 1, Params: factor.Of(factor.RMASync, 9), Sync: window.Config{Method: window.Barrier}}, 2, "rma_sync"},
	} {
		if err := c.ex.Check(c.np); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v on %d ranks: got %v, want an error about %q", c.ex.Call, c.np, err, c.want)
		}
	}
}
