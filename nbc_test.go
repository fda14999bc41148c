package reprobench_test

import (
	"strings"
	"testing"
	"time"

	"github.com/reprobench/reprobench"
	"github.com/reprobench/reprobench/completion"
	"github.com/reprobench/reprobench/mpi"
	"github.com/reprobench/reprobench/mpi/mpitest"
	"github.com/reprobench/reprobench/window"
)

// runProgress runs exps on 4 simulated ranks with the given progress model
// and no latency spikes (they would make single rows far from the median
// the kernel is calibrated to).
func runProgress(t *testing.T, prog mpitest.Progress, exps []reprobench.Experiment) *memSink {
	t.Helper()
	w, err := mpitest.New(mpitest.Config{Ranks: 4, Seed: 5, Progress: prog, Latency: mpitest.Latency{SpikeProb: mpitest.Off}})
	if err != nil {
		t.Fatal(err)
	}
	sink := &memSink{}
	err = w.Run(func(r *mpitest.Rank) error {
		e := &reprobench.Engine{Comm: r.Comm(), Clock: r.Clock(), PerRank: true}
		var s reprobench.Sink
		if r.ID() == 0 {
			s = sink
		}
		_, err := e.Run(exps, s)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return sink
}

// TestNBCLatencyRowsMatchBlocking: in the same simulated world, every
// non-blocking call's rows (post, then wait) are its blocking twin's, under
// the local, loop and osu runtime types.
func TestNBCLatencyRowsMatchBlocking(t *testing.T) {
	for _, rt := range []completion.Type{completion.Local, completion.Loop, completion.OSU} {
		for _, nb := range mpi.NonBlockingCalls() {
			b, _ := nb.Blocking()
			exp := func(c mpi.Call) []reprobench.Experiment {
				return []reprobench.Experiment{{Call: c, MsizeBytes: 64, Type: mpi.Float64, Root: 2, Nrep: 5, Warmup: 2,
					Sync: window.Config{Method: window.Barrier}, Runtime: rt, LoopReps: 3}}
			}
			got, want := runProgress(t, mpitest.ProgressInWait, exp(nb)), runProgress(t, mpitest.ProgressInWait, exp(b))
			if len(got.rows) != 5 || len(want.rows) != 5 {
				t.Fatalf("%v: %d and %d rows", nb, len(got.rows), len(want.rows))
			}
			for i := range got.rows {
				g, w := got.rows[i], want.rows[i]
				if g.Call != nb.String() || g.RuntimeS != w.RuntimeS || g.RuntimeS <= 0 {
					t.Errorf("%v %v rep %d: %s %g s, blocking %g s", nb, rt, i, g.Call, g.RuntimeS, w.RuntimeS)
				}
				if g.PureS != 0 || g.OverlapFrac != 0 {
					t.Errorf("%v: latency row has overlap values %+v", nb, g)
				}
			}
		}
	}
}

// TestNBCOverlapEngine: the engine calibrates the kernel to the pure time
// (recorded per rank in the summary), and the rows' overlap follows the
// simulator's progress model: about 0 when progress happens only in
// MPI_Wait, about 1 with asynchronous progress; pure, compute and total
// are per call, averaged over ranks, and overlap_frac is computed from them.
func TestNBCOverlapEngine(t *testing.T) {
	for _, tc := range []struct {
		prog     mpitest.Progress
		rt       completion.Type
		min, max float64
	}{
		{mpitest.ProgressInWait, completion.Local, 0, 0.15},
		{mpitest.ProgressInWait, completion.OSU, 0, 0.15},
		{mpitest.ProgressAsync, completion.Local, 0.85, 1},
		{mpitest.ProgressAsync, completion.OSU, 0.85, 1},
	} {
		// MPI_Test every 64 iterations, or (osu) OSU's -t 2: the kernel in
		// two parts, each at least one pass.
		te := int64(64)
		if tc.rt == completion.OSU {
			te = 2
		}
		exps := []reprobench.Experiment{{Call: mpi.CallIallreduce, MsizeBytes: 1024, Type: mpi.Float64, Nrep: 20, Warmup: 3,
			Sync: window.Config{Method: window.Barrier}, Runtime: tc.rt, LoopReps: 5, Overlap: &reprobench.Overlap{TestEvery: te}}}
		sink := runProgress(t, tc.prog, exps)
		if len(sink.rows) != 20 || len(sink.sums) != 1 {
			t.Fatalf("%d rows, %d summaries", len(sink.rows), len(sink.sums))
		}
		cal := sink.sums[0].Overlap
		if tc.rt == completion.OSU {
			// OSU's time-targeted kernel: nothing calibrated, and the
			// compute time per call reaches the pure time it aims at.
			if cal == nil || !cal.TimeTargeted || len(cal.KernelIters) != 0 || cal.TestEvery != te {
				t.Fatalf("osu: calibration %+v", cal)
			}
			for _, row := range sink.rows {
				if row.ComputeS < row.PureS {
					t.Errorf("osu: compute %g s below the pure time %g s it aims at", row.ComputeS, row.PureS)
				}
			}
		} else if cal == nil || cal.TimeTargeted || len(cal.KernelIters) != 4 || cal.Given || cal.TestEvery != 64 {
			t.Fatalf("calibration %+v", cal)
		}
		for r, k := range cal.KernelIters {
			// The simulated kernel costs 1 ns per iteration plus a clock
			// read: calibrated, it lasts the rank's median pure time.
			if k < 1000 || rel(cal.KernelS[r], cal.TargetPureS[r]) > 0.1 {
				t.Errorf("%v rank %d: %d iterations, kernel %g s for a pure time of %g s", tc.prog, r, k, cal.KernelS[r], cal.TargetPureS[r])
			}
		}
		var ov float64
		for _, row := range sink.rows {
			if row.PureS <= 0 || row.ComputeS <= 0 || row.TotalS < row.ComputeS {
				t.Fatalf("%v: row %+v", tc.prog, row)
			}
			if want := mpi.Overlap(row.PureS, row.ComputeS, row.TotalS); row.OverlapFrac != want {
				t.Errorf("overlap %g, from the row's times %g", row.OverlapFrac, want)
			}
			if rel(row.ComputeS, row.PureS) > 0.5 {
				t.Errorf("%v: compute %g s is far from pure %g s", tc.prog, row.ComputeS, row.PureS)
			}
			ov += row.OverlapFrac / float64(len(sink.rows))
		}
		if ov < tc.min || ov > tc.max {
			t.Errorf("%v %v: mean overlap %.3f outside [%v, %v]", tc.prog, tc.rt, ov, tc.min, tc.max)
		}
		// runtime_s is the overlapped phase's completion time: for osu
		// the rank average of total per call, as total_s.
		if tc.rt == completion.OSU {
			for _, row := range sink.rows {
				if rel(row.RuntimeS, row.TotalS) > 1e-9 {
					t.Errorf("osu: runtime %g s, total %g s", row.RuntimeS, row.TotalS)
				}
			}
		}
	}
}

func rel(a, b float64) float64 {
	if b == 0 {
		return a
	}
	d := (a - b) / b
	if d < 0 {
		return -d
	}
	return d
}

// TestNBCOverlapRefused: what the overlap measurement cannot do is refused
// before any observation, saying why.
func TestNBCOverlapRefused(t *testing.T) {
	base := reprobench.Experiment{Call: mpi.CallIallreduce, MsizeBytes: 8, Type: mpi.Float64, Nrep: 1, Overlap: &reprobench.Overlap{},
		Sync: window.Config{Method: window.Barrier}}
	for _, tc := range []struct {
		edit func(*reprobench.Experiment)
		want string
	}{
		{func(e *reprobench.Experiment) { e.Call = mpi.CallAllreduce }, "non-blocking"},
		{func(e *reprobench.Experiment) {
			e.Sync = window.Config{Method: window.Fixed, Window: time.Millisecond}
		}, "one start time"},
		{func(e *reprobench.Experiment) { e.Sync = window.Config{Method: window.RoundTime} }, "one start time"},
		{func(e *reprobench.Experiment) { e.Runtime = completion.IMB }, "imb"},
		{func(e *reprobench.Experiment) { e.Overlap = &reprobench.Overlap{TestEvery: -1} }, "negative"},
		{func(e *reprobench.Experiment) {
			e.Runtime, e.Overlap = completion.OSU, &reprobench.Overlap{KernelIters: 100}
		}, "time-targeted"},
	} {
		ex := base
		tc.edit(&ex)
		if err := ex.Check(2); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: %v, want an error mentioning %q", ex, err, tc.want)
		}
	}
	if err := base.Check(2); err != nil {
		t.Errorf("valid overlap experiment refused: %v", err)
	}
	if m := base.NBCMode(); m != "overlap" {
		t.Errorf("mode %q", m)
	}
	base.Overlap = &reprobench.Overlap{TestEvery: 10}
	if m := base.NBCMode(); m != "overlap_test10" {
		t.Errorf("mode %q", m)
	}
}
