package mpitest

import (
	"fmt"
	"math"
	"testing"

	"github.com/reprobench/reprobench/mpi"
	"github.com/reprobench/reprobench/mpi/internal/elem"
)

var vcollCalls = []mpi.Call{mpi.CallAllgatherv, mpi.CallAlltoallv, mpi.CallGatherv, mpi.CallScatterv,
	mpi.CallReduceScatter, mpi.CallSendrecv, mpi.CallNeighborAlltoall}

// ident is element i of rank r's send buffer in the data-movement checks:
// it names both, in every type (bytes modulo 251).
func ident(dt mpi.Datatype, r, i int) float64 {
	if dt == mpi.Byte {
		return float64((r*37 + i*5 + 1) % 251)
	}
	return float64(r*1000 + i)
}

// blockOf returns the count and displacement of rank i's block, written
// out independently of mpi.VCounts: the heavy rank is the last, so every
// block before it starts at i·count.
func blockOf(count, skew, p, i int) (n, displ int) {
	n = count
	if i == p-1 && skew > 1 {
		n *= skew
	}
	return n, i * count
}

// vcollWant returns, for rank r, the expected receive buffer (as element
// values) of call, given every rank's send buffer as ident or val.
func vcollWant(call mpi.Call, dt mpi.Datatype, op mpi.ReduceOp, count, skew, p, r, root int) []float64 {
	var want []float64
	switch call {
	case mpi.CallAllgatherv, mpi.CallGatherv:
		if call == mpi.CallGatherv && r != root {
			return nil
		}
		for i := range p {
			n, _ := blockOf(count, skew, p, i)
			for e := range n {
				want = append(want, ident(dt, i, e))
			}
		}
	case mpi.CallScatterv:
		n, d := blockOf(count, skew, p, r)
		for e := range n {
			want = append(want, ident(dt, root, d+e))
		}
	case mpi.CallAlltoallv:
		for s := range p {
			// s's blocks all have its own count; block r starts at r·that.
			ns, _ := blockOf(count, skew, p, s)
			for e := range ns {
				want = append(want, ident(dt, s, r*ns+e))
			}
		}
	case mpi.CallReduceScatter:
		n, d := blockOf(count, skew, p, r)
		for e := range n {
			want = append(want, reduceRef(dt, op, seq(0, p), d+e))
		}
	case mpi.CallSendrecv:
		for e := range count {
			want = append(want, ident(dt, (r-1+p)%p, e))
		}
	case mpi.CallNeighborAlltoall:
		nb := mpi.CartNeighbors(mpi.Dims2(p), r)
		for j := range 4 {
			for e := range count {
				want = append(want, ident(dt, nb[j], (j^1)*count+e))
			}
		}
	}
	return want
}

// TestVCollResults runs every vcoll call through Observe on 1 to 7 ranks,
// uniform and skewed, and checks every received element.
func TestVCollResults(t *testing.T) {
	for _, p := range []int{1, 2, 3, 4, 5, 6, 7} {
		for _, call := range vcollCalls {
			skews := []int{1}
			if call.Skewable() {
				skews = []int{0, 1, 3}
			}
			for _, skew := range skews {
				for _, dt := range []mpi.Datatype{mpi.Byte, mpi.Int32, mpi.Float64} {
					if call.Reduces() && dt == mpi.Byte {
						continue
					}
					for _, root := range []int{0, p - 1} {
						name := fmt.Sprintf("p%d/%v/skew%d/%v/root%d", p, call, skew, dt, root)
						if err := vcollResult(call, dt, p, 5, skew, root); err != nil {
							t.Errorf("%s: %v", name, err)
						}
					}
				}
			}
		}
	}
}

func vcollResult(call mpi.Call, dt mpi.Datatype, p, count, skew, root int) error {
	w, err := New(Config{Ranks: p, Seed: 3})
	if err != nil {
		return err
	}
	return w.Run(func(rk *Rank) error {
		r := rk.ID()
		s, rv := mpi.SkewedBufferSizes(call, count, dt, p, skew)
		send, recv := make([]byte, s), make([]byte, rv)
		for i := range s / dt.Size() {
			v := ident(dt, r, i)
			if call.Reduces() {
				v = val(dt, r, i)
			}
			elem.Put(dt, send, i, v)
		}
		o := &mpi.Observation{Call: call, Send: send, Recv: recv, Count: count, Type: dt, Op: mpi.Max,
			Root: root, Reps: 2, Skew: skew, Sync: mpi.SyncBarrier}
		if call == mpi.CallReduceScatter {
			o.Op = mpi.Sum
		}
		if err := rk.Comm().Observe(o, rk.Clock()); err != nil {
			return err
		}
		if o.End <= o.Start && p > 1 {
			return fmt.Errorf("rank %d: end %d ≤ start %d", r, o.End, o.Start)
		}
		want := vcollWant(call, dt, o.Op, count, skew, p, r, root)
		if len(want)*dt.Size() > len(recv) {
			return fmt.Errorf("rank %d: want %d elements, receive buffer has room for %d", r, len(want), len(recv)/dt.Size())
		}
		return checkElems(dt, call.String(), r, recv, len(want), func(i int) float64 { return want[i] })
	})
}

// TestVCollTime checks the virtual time of each call against the latency
// model: 1 µs per message, no jitter, and (where set) 1 GB/s, so a
// 1000-byte block takes 1 µs to inject and 1 µs of the receiver's ingress.
// Every rank starts at the same true time (after a barrier); the durations
// are from that start to the call's return on each rank.
func TestVCollTime(t *testing.T) {
	const us = 1e-6
	bw := exactNet
	bw.BytesPerSecond = 1e9
	cases := []struct {
		call  mpi.Call
		p     int
		skew  int
		net   Latency
		want  []float64 // per rank, µs
		about string
	}{
		// Linear Gatherv at 0: blocks arrive at 2 µs (3+1 from the
		// heavy rank when skewed); the root's ingress takes them one after
		// the other, 1 µs each (3 µs for the heavy one).
		{mpi.CallGatherv, 4, 1, bw, []float64{4, 1, 1, 1}, "root takes 3 blocks from 2 µs on"},
		{mpi.CallGatherv, 4, 3, bw, []float64{6, 1, 1, 3}, "the heavy block ends the root's ingress at 3+3"},
		// Linear Scatterv from 0: the root injects the blocks in rank
		// order; block i arrives 1 µs after its injection ends.
		{mpi.CallScatterv, 4, 1, bw, []float64{3, 2, 3, 4}, "injection 1+1+1"},
		{mpi.CallScatterv, 4, 3, bw, []float64{5, 2, 3, 6}, "injection 1+1+3"},
		// Pairwise Alltoallv on 2 ranks: each injects its block, the
		// other receives it 1 µs later; the heavy rank 1 injects 3 µs.
		{mpi.CallAlltoallv, 2, 1, bw, []float64{2, 2}, "1 µs injection + 1 µs"},
		{mpi.CallAlltoallv, 2, 3, bw, []float64{4, 3}, "rank 0 waits for 3+1, rank 1 for its own injection"},
		// Pairwise exchange in P−1 rounds of one latency each.
		{mpi.CallAlltoallv, 5, 1, exactNet, []float64{4, 4, 4, 4, 4}, "4 rounds"},
		{mpi.CallAlltoallv, 5, 7, exactNet, []float64{4, 4, 4, 4, 4}, "skew costs nothing without bandwidth"},
		// Allgatherv: Gatherv to 0 (1 µs), then a binomial Bcast.
		{mpi.CallAllgatherv, 4, 1, exactNet, []float64{1, 2, 2, 3}, "gather, then tree depth"},
		// Reduce_scatter: binomial Reduce to 0 (2 µs on 4 ranks), then
		// Scatterv (one more µs).
		{mpi.CallReduceScatter, 4, 1, exactNet, []float64{2, 3, 3, 3}, "reduce depth 2, scatter 1"},
		// The ring: one message in, one out.
		{mpi.CallSendrecv, 5, 1, exactNet, []float64{1, 1, 1, 1, 1}, "one latency"},
		{mpi.CallSendrecv, 3, 1, bw, []float64{2, 2, 2}, "injection + latency"},
		{mpi.CallSendrecv, 1, 1, bw, []float64{0}, "a copy to itself"},
		// Neighbor_alltoall: four sends then four receives, all in flight
		// at once; blocks to itself are copies.
		{mpi.CallNeighborAlltoall, 4, 1, exactNet, []float64{1, 1, 1, 1}, "2×2 torus"},
		{mpi.CallNeighborAlltoall, 6, 1, exactNet, []float64{1, 1, 1, 1, 1, 1}, "3×2 torus"},
		{mpi.CallNeighborAlltoall, 1, 1, exactNet, []float64{0}, "1×1: all copies"},
		// 2×1 with bandwidth: each rank injects its blocks 0 and 1 to
		// the other (arriving at 2 and 3 µs). Receives complete in block
		// order: block 0 is the other's block 1 (3 µs), then block 1 is
		// its block 0, which arrived at 2 µs but waits for the ingress
		// (free from 3 µs) for 1 µs: 4 µs.
		{mpi.CallNeighborAlltoall, 2, 1, bw, []float64{4, 4}, "two blocks each way, ingress in block order"},
	}
	for _, tc := range cases {
		name := fmt.Sprintf("%v/p%d/skew%d", tc.call, tc.p, tc.skew)
		got, err := vcollTimes(tc.call, tc.p, tc.skew, tc.net)
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		for r := range tc.p {
			// Two clock reads (20 ns each) inside the measured interval.
			if math.Abs(got[r]-tc.want[r]*us) > 41e-9 {
				t.Errorf("%s (%s): rank %d took %.4g µs, want %g", name, tc.about, r, got[r]/us, tc.want[r])
			}
		}
	}
}

// vcollTimes returns each rank's true duration of one call of 1000-byte
// blocks, all ranks starting together.
func vcollTimes(call mpi.Call, p, skew int, net Latency) ([]float64, error) {
	w, err := New(Config{Ranks: p, Seed: 5, Latency: net})
	if err != nil {
		return nil, err
	}
	got := make([]float64, p)
	err = w.Run(func(rk *Rank) error {
		s, rv := mpi.SkewedBufferSizes(call, 125, mpi.Float64, p, skew)
		o := &mpi.Observation{Call: call, Send: make([]byte, s), Recv: make([]byte, rv), Count: 125,
			Type: mpi.Float64, Op: mpi.Sum, Skew: skew}
		c := rk.Comm()
		if err := c.Barrier(); err != nil {
			return err
		}
		t0 := rk.TrueNow()
		if err := c.Observe(o, rk.Clock()); err != nil {
			return err
		}
		got[rk.ID()] = rk.TrueNow() - t0
		return nil
	})
	return got, err
}

// Skew above 1 is refused where there are no count vectors, and a
// negative skew everywhere.
func TestVCollRefusals(t *testing.T) {
	w, _ := New(Config{Ranks: 3})
	err := w.Run(func(rk *Rank) error {
		for _, tc := range []struct {
			call mpi.Call
			skew int
		}{{mpi.CallSendrecv, 2}, {mpi.CallNeighborAlltoall, 2}, {mpi.CallAlltoall, 2}, {mpi.CallAlltoallv, -1}} {
			o := &mpi.Observation{Call: tc.call, Count: 1, Type: mpi.Float64, Skew: tc.skew,
				Send: make([]byte, 1<<10), Recv: make([]byte, 1<<10)}
			if err := rk.Comm().Observe(o, rk.Clock()); err == nil {
				return fmt.Errorf("%v with skew %d accepted", tc.call, tc.skew)
			}
		}
		// Buffers sized for uniform counts are too small for a skew.
		s, rv := mpi.BufferSizes(mpi.CallGatherv, 4, mpi.Float64, 3)
		o := &mpi.Observation{Call: mpi.CallGatherv, Count: 4, Type: mpi.Float64, Skew: 2,
			Send: make([]byte, s), Recv: make([]byte, rv)}
		if err := rk.Comm().Observe(o, rk.Clock()); err == nil {
			return fmt.Errorf("skewed Gatherv accepted uniform-sized buffers")
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
