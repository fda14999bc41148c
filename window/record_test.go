package window_test

import (
	"fmt"
	"slices"
	"testing"

	"github.com/reprobench/reprobench/cache"
	"github.com/reprobench/reprobench/mpi"
	"github.com/reprobench/reprobench/mpi/mpitest"
	"github.com/reprobench/reprobench/timing"
	"github.com/reprobench/reprobench/window"
)

// TestRecordOverlapPhases: for the overlap measurement of a non-blocking
// collective, Run records each observation's pure and compute ticks as the
// communicator reported them. The simulated world is deterministic for a
// seed, so the same observations taken directly (Observe after a barrier,
// one at a time, as Run's barrier method takes them) in a second world of
// the same seed give the ground truth, tick for tick. Cold caches, whose
// flush runs between the observations, must not change that; a built-in
// call without Overlap records zeros.
func TestRecordOverlapPhases(t *testing.T) {
	const p, n, seed = 3, 12, 31
	type phases struct{ start, end, pure, compute []timing.Ticks }
	newObs := func(c mpi.Comm) *mpi.Observation {
		return &mpi.Observation{Call: mpi.CallIallreduce, Count: 16, Type: mpi.Float64, Op: mpi.Sum,
			Send: make([]byte, 128), Recv: make([]byte, 128), Overlap: true, KernelIters: 200}
	}
	run := func(direct bool) phases {
		w := newWorld(t, p, seed)
		var got phases
		err := w.Run(func(r *mpitest.Rank) error {
			c := r.Comm()
			o := newObs(c)
			var mine phases
			if direct {
				o.Sync = mpi.SyncBarrier
				for range n {
					if err := c.Observe(o, r.Clock()); err != nil {
						return err
					}
					mine.start, mine.end = append(mine.start, o.Start), append(mine.end, o.End)
					mine.pure, mine.compute = append(mine.pure, o.Pure), append(mine.compute, o.Compute)
				}
			} else {
				s, err := window.New(c, r.Clock(), nil, window.Config{Method: window.Barrier, Batch: 5})
				if err != nil {
					return err
				}
				s.Buffers = cache.NewBuffers(cache.Cold, 128, 128, 1, 4096, 1)
				o.Send, o.Recv = s.Buffers.Send, s.Buffers.Recv
				rec := window.NewRecord(s.Config().Capacity(n))
				if err := s.Run(o, n, rec, false); err != nil {
					return err
				}
				if rec.N != n {
					return fmt.Errorf("rec.N = %d, want %d", rec.N, n)
				}
				mine = phases{rec.Start[:n], rec.End[:n], rec.Pure[:n], rec.Compute[:n]}
				if o.Flush != nil || o.Offsets != nil {
					return fmt.Errorf("Run left the batch plan in the observation")
				}
			}
			if c.Rank() == 1 {
				got = mine
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		return got
	}
	want, got := run(true), run(false)
	for i := range n {
		if want.pure[i] <= 0 || want.compute[i] <= 0 {
			t.Fatalf("ground truth observation %d: pure %d, compute %d ticks", i, want.pure[i], want.compute[i])
		}
	}
	if !slices.Equal(got.pure, want.pure) || !slices.Equal(got.compute, want.compute) ||
		!slices.Equal(got.start, want.start) || !slices.Equal(got.end, want.end) {
		t.Errorf("Run recorded pure %v compute %v start %v end %v;\nwant pure %v compute %v start %v end %v",
			got.pure, got.compute, got.start, got.end, want.pure, want.compute, want.start, want.end)
	}

	// Without Overlap the phases are zero, even in a Record reused after
	// an overlap run.
	w := newWorld(t, p, seed)
	err := w.Run(func(r *mpitest.Rank) error {
		c := r.Comm()
		s, err := window.New(c, r.Clock(), nil, window.Config{Method: window.Barrier})
		if err != nil {
			return err
		}
		rec := window.NewRecord(n)
		o := newObs(c)
		if err := s.Run(o, n, rec, false); err != nil {
			return err
		}
		o.Overlap, o.KernelIters = false, 0
		if err := s.Run(o, n, rec, false); err != nil {
			return err
		}
		for i := range n {
			if rec.Pure[i] != 0 || rec.Compute[i] != 0 {
				return fmt.Errorf("observation %d without Overlap: pure %d, compute %d ticks, want 0", i, rec.Pure[i], rec.Compute[i])
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
