package window_test

import (
	"encoding/binary"
	"fmt"
	"math"
	"slices"
	"testing"
	"time"

	"github.com/reprobench/reprobench/cache"
	"github.com/reprobench/reprobench/mpi"
	"github.com/reprobench/reprobench/mpi/mpitest"
	"github.com/reprobench/reprobench/window"
)

// Cache control stays inside the batches: the offsets of a cycled or
// random placement reach the MPI call (each slot's receive buffer holds
// the sum of that slot's send buffers), Record.Offset says which slot each
// observation used, and batched and unbatched runs choose the same ones.
func TestBuffersInBatches(t *testing.T) {
	const p, n = 3, 8
	for _, m := range []window.Method{window.Barrier, window.Fixed} {
		w := newWorld(t, p, 21)
		err := w.Run(func(r *mpitest.Rank) error {
			c := r.Comm()
			s, err := window.New(c, r.Clock(), truth{w, c.Rank()}, window.Config{Method: m, Window: 50 * time.Microsecond, Batch: 4})
			if err != nil {
				return err
			}
			b := cache.NewBuffers(cache.Cycle, 8, 8, 4, 0, 1)
			for k := range 4 { // slot k sends (rank+1)·(k+1)
				copy(b.Send, mpi.Bytes([]float64{float64((c.Rank() + 1) * (k + 1))}))
				b.Before(k)
			}
			s.Buffers = b
			o := &mpi.Observation{Call: mpi.CallAllreduce, Send: b.Send, Recv: b.Recv, Count: 1, Type: mpi.Float64, Op: mpi.Sum}
			rec := window.NewRecord(s.Config().Capacity(n))
			if err := s.Run(o, n, rec, false); err != nil {
				return err
			}
			for i := range n {
				if want := int64(((i + 1) % 4) * 64); rec.Offset[i] != want {
					return fmt.Errorf("%v: observation %d used offset %d, want %d", m, i, rec.Offset[i], want)
				}
			}
			if o.Offsets != nil || o.Flush != nil || &o.Send[0] != &b.Send[0] {
				return fmt.Errorf("%v: Run left the batch plan in the observation", m)
			}
			for k := range 4 {
				b.Before(k)
				got := math.Float64frombits(binary.NativeEndian.Uint64(b.Recv))
				slot := int(b.Offset() / 64)
				if want := float64((slot + 1) * p * (p + 1) / 2); got != want {
					return fmt.Errorf("%v: slot %d received %v, want %v", m, b.Offset()/64, got, want)
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	// Random slots: the batched run uses the sequence Before would give.
	offsets := func(batched bool) []int64 {
		w := newWorld(t, 2, 22)
		var out []int64
		err := w.Run(func(r *mpitest.Rank) error {
			c := r.Comm()
			s, err := window.New(c, r.Clock(), nil, window.Config{Method: window.Barrier})
			if err != nil {
				return err
			}
			s.Buffers = cache.NewBuffers(cache.Random, 8, 8, 16, 0, 7)
			if !batched {
				s.Before = func(int) {} // any hook takes the observations out of the batch
			}
			o := &mpi.Observation{Call: mpi.CallAllreduce, Send: s.Buffers.Send, Recv: s.Buffers.Recv, Count: 1, Type: mpi.Float64}
			rec := window.NewRecord(50)
			if err := s.Run(o, 50, rec, false); err != nil {
				return err
			}
			if c.Rank() == 0 {
				out = slices.Clone(rec.Offset[:50])
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	a, b := offsets(true), offsets(false)
	if !slices.Equal(a, b) || len(slices.Compact(slices.Sorted(slices.Values(a)))) < 8 {
		t.Errorf("random offsets, batched %v, unbatched %v: want equal, over at least 8 slots", a, b)
	}
}
