package reprobench_test

import (
	"errors"
	"math"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/reprobench/reprobench"
	"github.com/reprobench/reprobench/completion"
	"github.com/reprobench/reprobench/internal/memprof"
	"github.com/reprobench/reprobench/mpi"
	"github.com/reprobench/reprobench/mpi/mpitest"
	"github.com/reprobench/reprobench/window"
)

// rank0Experiment runs exps on rank 0 of a simulated world; it is a frame
// of its own so that a heap profile can tell rank 0's allocations from the
// other ranks'.
//
//go:noinline
func rank0Experiment(e *reprobench.Engine, exps []reprobench.Experiment, s reprobench.Sink) error {
	_, err := e.Run(exps, s)
	return err
}

// rank0Bytes returns the bytes rank 0's goroutine allocated in
// rank0Experiment while p simulated ranks ran exps, from a heap profile
// that records every allocation.
func rank0Bytes(t *testing.T, p int, exps []reprobench.Experiment) int64 {
	t.Helper()
	old := runtime.MemProfileRate
	runtime.MemProfileRate = 1
	defer func() { runtime.MemProfileRate = old }()
	before := memprof.AllocatedUnder(".rank0Experiment")
	w, err := mpitest.New(mpitest.Config{Ranks: p, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	err = w.Run(func(r *mpitest.Rank) error {
		e := &reprobench.Engine{Comm: r.Comm(), Clock: r.Clock()}
		if r.ID() == 0 {
			return rank0Experiment(e, exps, &memSink{})
		}
		_, err := e.Run(exps, nil)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return memprof.AllocatedUnder(".rank0Experiment") - before
}

// TestRank0MemoryIndependentOfRanks: the bytes rank 0 allocates for one
// experiment without per-rank rows are the same at 16 and at 4096 ranks,
// apart from a few bytes per rank. Gathering the ranks' timestamps instead
// of reducing them would cost 48 bytes per rank and observation at rank
// 0: 3.9 MB more at 4096 ranks and 20 observations, against the 64 bytes
// per rank (0.26 MB) allowed here.
func TestRank0MemoryIndependentOfRanks(t *testing.T) {
	if testing.Short() {
		t.Skip("4096 simulated ranks")
	}
	const nrep = 20
	exps := []reprobench.Experiment{{Call: mpi.CallAllreduce, MsizeBytes: 8, Type: mpi.Float64, Nrep: nrep,
		Sync: window.Config{Method: window.Barrier}, Runtime: completion.Local}}
	small, large := rank0Bytes(t, 16, exps), rank0Bytes(t, 4096, exps)
	t.Logf("rank 0 allocated %d bytes at 16 ranks, %d at 4096 (%d observations)", small, large, nrep)
	if small <= 0 {
		t.Fatalf("rank 0's allocations not found in the heap profile (%d bytes)", small)
	}
	if d := large - small; d > 64*(4096-16) {
		t.Errorf("rank 0 allocated %d bytes more at 4096 ranks than at 16: %.1f per rank", d, float64(d)/(4096-16))
	}
}

// TestPerRankRowsInChunks: per-rank rows gathered a few observations at a
// time are the ones gathered at once, the rows are those of a run
// without per-rank rows, and each row's global completion time is max end
// − min start of its per-rank rows, bit for bit.
func TestPerRankRowsInChunks(t *testing.T) {
	exps := []reprobench.Experiment{{Call: mpi.CallAllreduce, MsizeBytes: 64, Type: mpi.Float64, Nrep: 23, Warmup: 2,
		Sync: window.Config{Method: window.Barrier}, Runtime: completion.Global}}
	const p = 5
	plain, _ := runEngine(t, p, exps, false)
	whole, _ := runEngine(t, p, exps, true)
	old := reprobench.SetPerRankChunkBytes(3 * 4 * 8 * p) // 3 observations per chunk
	defer reprobench.SetPerRankChunkBytes(old)
	chunked, _ := runEngine(t, p, exps, true)
	if len(chunked.ranks) != 23*p || !slices.Equal(chunked.ranks, whole.ranks) {
		t.Fatalf("%d per-rank rows in chunks, %d at once; equal: %v", len(chunked.ranks), len(whole.ranks), slices.Equal(chunked.ranks, whole.ranks))
	}
	if !slices.Equal(plain.rows, chunked.rows) || !slices.Equal(plain.rows, whole.rows) {
		t.Fatalf("rows differ with per-rank rows")
	}
	for i, row := range chunked.rows {
		lo, hi := math.Inf(1), math.Inf(-1)
		for _, rr := range chunked.ranks[i*p : (i+1)*p] {
			if rr.Rep != i {
				t.Fatalf("per-rank row of rep %d among rep %d's", rr.Rep, i)
			}
			lo, hi = min(lo, rr.GlobalStartS), max(hi, rr.GlobalEndS)
		}
		if row.RuntimeS != hi-lo {
			t.Errorf("rep %d: runtime %v s, per-rank rows give %v s", i, row.RuntimeS, hi-lo)
		}
	}
}

// failingSink fails at its row number failAt.
type failingSink struct {
	memSink
	failAt int
}

func (f *failingSink) Row(r *reprobench.Row) error {
	if len(f.rows) == f.failAt {
		return errors.New("disk full")
	}
	return f.memSink.Row(r)
}

// TestSinkErrorMidChunks: a sink that fails while per-rank rows are still
// being gathered ends the run with its error on rank 0, and the other
// ranks are not left waiting in a gather.
func TestSinkErrorMidChunks(t *testing.T) {
	old := reprobench.SetPerRankChunkBytes(2 * 4 * 8 * 3)
	defer reprobench.SetPerRankChunkBytes(old)
	exps := []reprobench.Experiment{{Call: mpi.CallBcast, MsizeBytes: 8, Type: mpi.Float64, Nrep: 10,
		Sync: window.Config{Method: window.Barrier}, Runtime: completion.Local}}
	w, err := mpitest.New(mpitest.Config{Ranks: 3, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	err = w.Run(func(r *mpitest.Rank) error {
		e := &reprobench.Engine{Comm: r.Comm(), Clock: r.Clock(), PerRank: true}
		var s reprobench.Sink
		if r.ID() == 0 {
			s = &failingSink{failAt: 3}
		}
		_, err := e.Run(exps, s)
		return err
	})
	if err == nil || !strings.Contains(err.Error(), "disk full") {
		t.Fatalf("run ended with %v, want the sink's error", err)
	}
	if strings.Contains(err.Error(), "rank 1") || strings.Contains(err.Error(), "rank 2") {
		t.Errorf("other ranks failed too: %v", err)
	}
}
