package region

import (
	"math"
	"math/rand/v2"
	"runtime"
	"testing"
	"time"

	"github.com/reprobench/reprobench/clocksync"
	"github.com/reprobench/reprobench/internal/memprof"
	"github.com/reprobench/reprobench/mpi/mpitest"
)

// TestReducedRowsMatchPerRank: on 5 simulated ranks (a binomial tree
// that is not full) with offset and drifting clocks, synchronized, where
// the ranks see the regions in different orders, under labels only some
// ranks set, a different number of times, every reduced column of every
// row equals the one computed from the rows' per-rank spans, and the
// totals equal the per-rank sums (seed 7 for the random durations).
func TestReducedRowsMatchPerRank(t *testing.T) {
	const p, seed = 5, 7
	t.Logf("seed %d", seed)
	sp, err := clocksync.ParseSpec("hca3:fitpts=20,exchanges=5")
	if err != nil {
		t.Fatal(err)
	}
	res := run(t, p, func(r *mpitest.Rank) (*Result, error) {
		alg, err := sp.New()
		if err != nil {
			return nil, err
		}
		rec, err := New(r.Comm(), r.Clock(), Options{Capacity: 256, Sync: alg, Notes: &syncBuf{}})
		if err != nil {
			return nil, err
		}
		rec.MarkCompute("b")
		rng := rand.New(rand.NewPCG(seed, uint64(r.ID())))
		names := []string{"a", "b", "c"}
		for it := range 10 + r.ID() { // rank k records 10+k iterations
			rec.SetIter(int64(it))
			if r.ID()%2 == 1 {
				rec.SetLabel("phase", "odd")
			}
			for j := range names {
				name := names[(j+r.ID())%3]
				rec.Begin(name)
				r.Sleep(time.Duration(1000 + rng.IntN(5000)))
				rec.End(name)
			}
		}
		return rec.Close(Output{PerRank: true})
	})
	// (a,b,c) × (no label, phase=odd), with rank 0's own in its order first.
	if len(res.Record.Totals) != 6 || res.Record.Totals[0].Region != "a" || res.Record.Totals[0].Labels != "" {
		t.Fatalf("totals %+v", res.Record.Totals)
	}
	type key struct{ region, labels string }
	type acc struct {
		ranks         int
		sum, max, min float64
		perRank       map[int]float64
	}
	want := map[key]*acc{}
	firstG, lastG := math.Inf(1), math.Inf(-1)
	for _, row := range res.Rows {
		n, dur, iter := 0, 0.0, int64(math.MaxInt64)
		gs0, gs1, ge1 := math.Inf(1), math.Inf(-1), math.Inf(-1)
		for k, s := range row.PerRank {
			if s.Rank < 0 {
				continue
			}
			n++
			dur = math.Max(dur, s.LocalEndS-s.LocalStartS)
			gs0, gs1, ge1 = math.Min(gs0, s.GlobalStartS), math.Max(gs1, s.GlobalStartS), math.Max(ge1, s.GlobalEndS)
			iter = min(iter, int64(row.Rep)) // every rank's iteration is its rep here
			a := want[key{row.Region, row.Labels}]
			if a == nil {
				a = &acc{perRank: map[int]float64{}}
				want[key{row.Region, row.Labels}] = a
			}
			a.perRank[k] += s.LocalEndS - s.LocalStartS
		}
		wantCode := 0
		if n < p {
			wantCode = 16
		}
		if row.Nranks != n || row.RuntimeS != dur || row.StartS != gs0 || row.EntrySpreadS != gs1-gs0 || row.GlobalRuntimeS != ge1-gs0 ||
			row.Iter != iter || row.ErrorCode != wantCode {
			t.Errorf("row %v: want ranks %d, runtime %g, start %g, spread %g, global %g, iter %d, code %d", row, n, dur, gs0, gs1-gs0, ge1-gs0, iter, wantCode)
		}
		firstG, lastG = math.Min(firstG, gs0), math.Max(lastG, ge1)
	}
	for _, tot := range res.Record.Totals {
		a := want[key{tot.Region, tot.Labels}]
		if a == nil {
			t.Fatalf("totals %+v: no rows", tot)
		}
		a.min = math.Inf(1)
		for _, v := range a.perRank {
			a.ranks++
			a.sum += v
			a.max, a.min = math.Max(a.max, v), math.Min(a.min, v)
		}
		// The sums are added in another order: a relative 1e-12.
		if tot.Ranks != a.ranks || math.Abs(tot.SumS-a.sum) > 1e-12*a.sum || math.Abs(tot.MaxS-a.max) > 1e-12*a.max || math.Abs(tot.MinS-a.min) > 1e-12*a.min {
			t.Errorf("totals %+v, want ranks %d sum %g max %g min %g", tot, a.ranks, a.sum, a.max, a.min)
		}
	}
	rec := res.Record
	if rec.BoundS == nil || rec.RunS != lastG-firstG || !(rec.RunLocalS > 0) || len(rec.Compute) != 1 || rec.Compute[0] != "b" || len(rec.PerRank) != p {
		t.Errorf("record: bound %v, run_s %g (want %g), run_local_s %g, compute %v, %d per-rank logs", rec.BoundS, rec.RunS, lastG-firstG, rec.RunLocalS, rec.Compute, len(rec.PerRank))
	}
	var maxBound float64
	for _, l := range rec.PerRank {
		maxBound = math.Max(maxBound, *l.BoundS)
	}
	if rec.BoundS != nil && *rec.BoundS != maxBound {
		t.Errorf("bound_s %g, want the largest per-rank %g", *rec.BoundS, maxBound)
	}
}

// rank0Close closes rank 0's recorder in a frame of its own, so that the
// heap profile can tell rank 0's allocations from the other ranks'.
//
//go:noinline
func rank0Close(rec *Recorder) (*Result, error) {
	return rec.Close(Output{})
}

// rank0CloseBytes returns the bytes rank 0 allocated in Close while p
// simulated ranks closed full buffers of capacity records (heap profile of
// every allocation, as the root package's rows_test.go does).
func rank0CloseBytes(t *testing.T, p, capacity int) int64 {
	t.Helper()
	old := runtime.MemProfileRate
	runtime.MemProfileRate = 1
	defer func() { runtime.MemProfileRate = old }()
	before := memprof.AllocatedUnder(".rank0Close")
	w, err := mpitest.New(mpitest.Config{Ranks: p, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	err = w.Run(func(r *mpitest.Rank) error {
		rec, err := New(r.Comm(), r.Clock(), Options{Capacity: capacity, Notes: &syncBuf{}, NoProvenance: true})
		if err != nil {
			return err
		}
		for it := range capacity / 2 {
			rec.SetIter(int64(it))
			rec.Begin("halo")
			rec.End("halo")
			rec.Begin("compute")
			rec.End("compute")
		}
		if r.ID() == 0 {
			_, err = rank0Close(rec)
		} else {
			_, err = rec.Close(Output{})
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return memprof.AllocatedUnder(".rank0Close") - before
}

// TestCloseMemoryAtScale: rank 0's allocations in Close with full buffers
// of 10,000 records are within 2× at 4096 simulated ranks of those at 64.
// Gathering the records instead of reducing them would cost 64 bytes per
// record and rank at rank 0: 2.6 GB at 4096 ranks against 41 MB at 64.
func TestCloseMemoryAtScale(t *testing.T) {
	if testing.Short() {
		t.Skip("4096 simulated ranks")
	}
	const capacity = 10000
	small := rank0CloseBytes(t, 64, capacity)
	large := rank0CloseBytes(t, 4096, capacity)
	t.Logf("rank 0 allocated %d bytes in Close at 64 ranks, %d at 4096 (%d records per rank)", small, large, capacity)
	if small <= 0 {
		t.Fatalf("rank 0's allocations not found in the heap profile (%d bytes)", small)
	}
	if large > 2*small {
		t.Errorf("rank 0 allocated %d bytes at 4096 ranks, %.2f× the %d at 64 (want ≤ 2×)", large, float64(large)/float64(small), small)
	}
}
