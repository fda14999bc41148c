package reprobench_test

import (
	"testing"
	"time"

	"github.com/reprobench/reprobench"
	"github.com/reprobench/reprobench/cache"
	"github.com/reprobench/reprobench/clocksync"
	"github.com/reprobench/reprobench/mpi"
	"github.com/reprobench/reprobench/mpi/mpitest"
	"github.com/reprobench/reprobench/window"
)

// runChecked synchronizes the clocks once, runs exps on a simulated world
// of cfg and returns rank 0's rows.
func runChecked(t *testing.T, cfg mpitest.Config, exps []reprobench.Experiment) *memSink {
	t.Helper()
	w, err := mpitest.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	sink := &memSink{}
	err = w.Run(func(r *mpitest.Rank) error {
		c, clk := r.Comm(), r.Clock()
		g := clocksync.NewGlobalClock(clk)
		sp, err := clocksync.ParseSpec("hca3:fitpts=20,exchanges=5")
		if err != nil {
			return err
		}
		alg, err := sp.New()
		if err != nil {
			return err
		}
		if _, err := alg.Sync(c, g); err != nil {
			return err
		}
		e := &reprobench.Engine{Comm: c, Clock: clk, Global: g}
		var s reprobench.Sink
		if r.ID() == 0 {
			s = sink
		}
		_, err = e.Run(append([]reprobench.Experiment(nil), exps...), s)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return sink
}

// checkedExperiments: every blocking collective with a result, and the
// ping-pong, under barrier and window sync, warm and cycling buffers.
func checkedExperiments() []reprobench.Experiment {
	var exps []reprobench.Experiment
	calls := []mpi.Call{mpi.CallBcast, mpi.CallReduce, mpi.CallAllreduce, mpi.CallScan, mpi.CallExscan, mpi.CallGather,
		mpi.CallScatter, mpi.CallAllgather, mpi.CallAlltoall, mpi.CallReduceScatterBlock, mpi.CallPingPong,
		mpi.CallAllgatherv, mpi.CallIallreduce}
	for _, m := range []window.Method{window.Barrier, window.Fixed, window.RoundTime} {
		for _, cache := range []cache.Mode{cache.Warm, cache.Cycle} {
			for _, call := range calls {
				exps = append(exps, reprobench.Experiment{Exp: len(exps), Call: call, MsizeBytes: 24, Type: mpi.Int64, Nrep: 8, Warmup: 2,
					Cache: cache, CacheSlots: 3, VerifyResults: true,
					Sync: window.Config{Method: m, Window: 300 * time.Microsecond, Batch: 4}})
			}
		}
	}
	return exps
}

// runCorrupted is runChecked on 3 simulated ranks whose rank corrupts
// every result of call (mpitest.Config.CorruptResult).
func runCorrupted(t *testing.T, exps []reprobench.Experiment, rank int, call mpi.Call) *memSink {
	t.Helper()
	return runChecked(t, mpitest.Config{Ranks: 3, Seed: 5, CorruptResult: func(r int, c mpi.Call, _ int64) bool {
		return r == rank && c == call
	}}, exps)
}

// wrongRows maps each experiment to the reps of its rows marked wrong.
func wrongRows(s *memSink) map[int][]int {
	out := map[int][]int{}
	for _, r := range s.rows {
		if window.Code(r.ErrorCode)&window.CodeWrongResult != 0 {
			out[r.Exp] = append(out[r.Exp], r.Rep)
		}
	}
	return out
}

// TestVerifyResultsClean: correct results give no wrong-result row.
func TestVerifyResultsClean(t *testing.T) {
	s := runChecked(t, mpitest.Config{Ranks: 3, Seed: 5}, checkedExperiments())
	if w := wrongRows(s); len(w) != 0 {
		t.Errorf("clean run: wrong-result rows %v, want none", w)
	}
}

// TestVerifyResultsCaught: the simulator corrupts every MPI_Alltoall
// result on rank 2 (Config.CorruptResult); the check marks the last row of
// each MPI_Alltoall experiment, whose buffer it checks, and no other.
func TestVerifyResultsCaught(t *testing.T) {
	exps := checkedExperiments()
	s := runCorrupted(t, exps, 2, mpi.CallAlltoall)
	wrong := wrongRows(s)
	last := map[int]int{} // the last rep of each experiment (round-time redoes late ones)
	for _, r := range s.rows {
		last[r.Exp] = max(last[r.Exp], r.Rep)
	}
	n := 0
	for _, ex := range exps {
		got := wrong[ex.Exp]
		if ex.Call == mpi.CallAlltoall {
			n++
			if len(got) != 1 || got[0] != last[ex.Exp] {
				t.Errorf("exp %d (%v, %v, %v): wrong-result reps %v, want [%d]", ex.Exp, ex.Call, ex.Sync.Method, ex.Cache, got, last[ex.Exp])
			}
		} else if len(got) > 0 {
			t.Errorf("exp %d (%v): wrong-result reps %v, want none", ex.Exp, ex.Call, got)
		}
	}
	invalid := 0
	for _, sum := range s.sums {
		invalid += sum.Invalid
	}
	if n != 6 || invalid < n {
		t.Errorf("%d MPI_Alltoall experiments, %d invalid rows counted in the summaries; want 6 and ≥ 6", n, invalid)
	}
}

// TestVerifyResultsUntimed: the check changes no timed interval. The first
// experiment's runtimes are equal, bit for bit, with and without it (the
// simulator's virtual time is deterministic for a seed; the check runs
// after that experiment's observations, so only later experiments could
// see its traffic).
func TestVerifyResultsUntimed(t *testing.T) {
	exps := checkedExperiments()[:2]
	plain := append([]reprobench.Experiment(nil), exps...)
	for i := range plain {
		plain[i].VerifyResults = false
	}
	a := runChecked(t, mpitest.Config{Ranks: 3, Seed: 9}, plain)
	b := runChecked(t, mpitest.Config{Ranks: 3, Seed: 9}, exps)
	for i, r := range a.rows {
		if r.Exp != 0 {
			break
		}
		if b.rows[i].RuntimeS != r.RuntimeS || b.rows[i].ErrorCode != r.ErrorCode {
			t.Fatalf("rep %d: runtime %g s code %d with the check, %g s %d without", r.Rep, b.rows[i].RuntimeS, b.rows[i].ErrorCode, r.RuntimeS, r.ErrorCode)
		}
	}
}
