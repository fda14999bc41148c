package mpitest_test

import (
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
						got[[2]int{int(call), count}] = r.Clock().Seconds(o.End - o.Start)
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
