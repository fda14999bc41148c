package mpitest_test

import (
	"slices"
	"testing"
	"time"

	"github.com/reprobench/reprobench/mpi"
	"github.com/reprobench/reprobench/mpi/mpitest"
)

// TestCallDelay: the latency-model hook adds exactly its delay to the
// observed call at the chosen count, and nothing to other counts or calls
// (two worlds with the same seed draw the same latencies).
func TestCallDelay(t *testing.T) {
	const d = 5 * time.Microsecond
	measure := func(delay func(mpi.Call, int, mpi.Datatype) time.Duration) map[[2]int]float64 {
		w, err := mpitest.New(mpitest.Config{Ranks: 3, Seed: 9, CallDelay: delay})
		if err != nil {
			t.Fatal(err)
		}
		got := map[[2]int]float64{}
		err = w.Run(func(r *mpitest.Rank) error {
			for _, call := range []mpi.Call{mpi.CallAllreduce, mpi.CallBcast, mpi.CallReduceBcast} {
				for _, count := range []int{4, 8} {
					s, rb := mpi.BufferSizes(call, count, mpi.Float64, 3)
					o := &mpi.Observation{Call: call, Send: make([]byte, max(s, rb)), Recv: make([]byte, max(s, rb)), Count: count,
						Type: mpi.Float64, Sync: mpi.SyncBarrier}
					if err := r.Comm().Observe(o, r.Clock()); err != nil {
						return err
					}
					if r.ID() == 0 {
						got[[2]int{int(call), count}] = r.Clock().Freq().Seconds(o.End - o.Start)
					}
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		return got
	}
	base := measure(nil)
	slow := measure(func(c mpi.Call, count int, dt mpi.Datatype) time.Duration {
		if c == mpi.CallAllreduce && count == 4 {
			return d
		}
		return 0
	})
	for k, v := range base {
		want := v
		if k == [2]int{int(mpi.CallAllreduce), 4} {
			want += d.Seconds()
		}
		if diff := slow[k] - want; diff > 2e-9 || diff < -2e-9 {
			t.Errorf("%v count %d: %.9f s, want %.9f s", mpi.Call(k[0]), k[1], slow[k], want)
		}
	}
}

// TestMockupsVirtualTime: without jitter and spikes every message costs
// Base + bytes/bandwidth, and the simulator composes its Allreduce,
// Allgather, Reduce_scatter_block and Scan exactly as the mock-ups compose
// them (coll.go), so each mock-up, started at true time 0 on every rank of
// a fresh world, ends at exactly the time its left-hand side ends, on every
// rank; the split mock-ups (two collectives of two steps each against one
// of two) end later.
func TestMockupsVirtualTime(t *testing.T) {
	end := func(p int, call mpi.Call) []float64 {
		w, err := mpitest.New(mpitest.Config{Ranks: p, Seed: 3,
			Latency: mpitest.Latency{Jitter: mpitest.Off, SpikeProb: mpitest.Off}})
		if err != nil {
			t.Fatal(err)
		}
		ends := make([]float64, p)
		err = w.Run(func(r *mpitest.Rank) error {
			s, rb := mpi.BufferSizes(call, 64, mpi.Float64, p)
			o := &mpi.Observation{Call: call, Send: make([]byte, max(s, rb)), Recv: make([]byte, max(s, rb)), Count: 64, Type: mpi.Float64}
			err := r.Comm().Observe(o, r.Clock())
			ends[r.ID()] = r.TrueNow()
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		return ends
	}
	for _, p := range []int{2, 4} {
		for _, pair := range [][2]mpi.Call{{mpi.CallAllreduce, mpi.CallReduceBcast}, {mpi.CallAllgather, mpi.CallGatherBcast},
			{mpi.CallReduceScatterBlock, mpi.CallReducePlusScatter}, {mpi.CallScan, mpi.CallExscanReduceLocal}} {
			a, b := end(p, pair[0]), end(p, pair[1])
			for r := range p {
				if d := a[r] - b[r]; d > 1e-12 || d < -1e-12 {
					t.Errorf("np %d rank %d: %v ends at %.9f s, %v at %.9f s", p, r, pair[0], a[r], pair[1], b[r])
				}
			}
		}
		for _, pair := range [][2]mpi.Call{{mpi.CallAllreduce, mpi.CallReduceScatterBlockAllgather}, {mpi.CallBcast, mpi.CallScatterAllgather}} {
			a, b := end(p, pair[0]), end(p, pair[1])
			if !(slices.Max(b) > slices.Max(a)) {
				t.Errorf("np %d: %v ends at %v, %v at %v: want the split mock-up later", p, pair[0], a, pair[1], b)
			}
		}
	}
}
