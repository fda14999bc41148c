package mpitest

import (
	"fmt"
	"math"
	"testing"

	"github.com/reprobench/reprobench/mpi"
	"github.com/reprobench/reprobench/mpi/internal/elem"
)

var (
	testSizes = []int{1, 2, 3, 5, 8}
	numTypes  = []mpi.Datatype{mpi.Int32, mpi.Int64, mpi.Float32, mpi.Float64}
	allOps    = []mpi.ReduceOp{mpi.Sum, mpi.Min, mpi.Max}
)

// val is element i of rank r's contribution: small integers (and halves for
// floats), exact in every type, so that reductions are exact in any order.
func val(dt mpi.Datatype, r, i int) float64 {
	v := float64((r*7+i*3)%11 - 5)
	if dt == mpi.Float32 || dt == mpi.Float64 {
		v += 0.5 * float64((r+i)%2)
	}
	return v
}

// contribution returns rank r's buffer of n elements, element i = val(r, off+i).
func contribution(dt mpi.Datatype, r, off, n int) []byte {
	b := make([]byte, n*dt.Size())
	for i := range n {
		v := val(dt, r, off+i)
		if dt == mpi.Byte {
			v = float64((r*31 + off + i) % 251)
		}
		elem.Put(dt, b, i, v)
	}
	return b
}

func reduceRef(dt mpi.Datatype, op mpi.ReduceOp, ranks []int, i int) float64 {
	acc := val(dt, ranks[0], i)
	for _, r := range ranks[1:] {
		v := val(dt, r, i)
		switch op {
		case mpi.Sum:
			acc += v
		case mpi.Min:
			acc = math.Min(acc, v)
		case mpi.Max:
			acc = math.Max(acc, v)
		}
	}
	return acc
}

func seq(lo, hi int) []int {
	var s []int
	for i := lo; i < hi; i++ {
		s = append(s, i)
	}
	return s
}

func runWorld(t *testing.T, p int, fn func(r *Rank) error) *World {
	t.Helper()
	w, err := New(Config{Ranks: p, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Run(fn); err != nil {
		t.Fatal(err)
	}
	return w
}

func checkElems(dt mpi.Datatype, name string, r int, got []byte, n int, want func(i int) float64) error {
	for i := range n {
		if g, w := elem.Get(dt, got, i), want(i); g != w {
			return fmt.Errorf("%s %v: rank %d element %d = %v, want %v", name, dt, r, i, g, w)
		}
	}
	return nil
}

func TestReductions(t *testing.T) {
	for _, p := range testSizes {
		for _, dt := range numTypes {
			for _, op := range allOps {
				for _, count := range []int{0, 1, 5} {
					name := fmt.Sprintf("P=%d/%v/%v/count=%d", p, dt, op, count)
					t.Run(name, func(t *testing.T) { testReductions(t, p, dt, op, count) })
				}
			}
		}
	}
}

func testReductions(t *testing.T, p int, dt mpi.Datatype, op mpi.ReduceOp, count int) {
	sz := dt.Size()
	runWorld(t, p, func(rk *Rank) error {
		c := rk.Comm()
		r := c.Rank()
		send := contribution(dt, r, 0, count)
		root := p - 1
		// Reduce
		recv := make([]byte, count*sz)
		if err := c.Reduce(send, recv, count, dt, op, root); err != nil {
			return err
		}
		if r == root {
			if err := checkElems(dt, "Reduce", r, recv, count, func(i int) float64 { return reduceRef(dt, op, seq(0, p), i) }); err != nil {
				return err
			}
		}
		// Allreduce
		clear(recv)
		if err := c.Allreduce(send, recv, count, dt, op); err != nil {
			return err
		}
		if err := checkElems(dt, "Allreduce", r, recv, count, func(i int) float64 { return reduceRef(dt, op, seq(0, p), i) }); err != nil {
			return err
		}
		// Scan
		clear(recv)
		if err := c.Scan(send, recv, count, dt, op); err != nil {
			return err
		}
		if err := checkElems(dt, "Scan", r, recv, count, func(i int) float64 { return reduceRef(dt, op, seq(0, r+1), i) }); err != nil {
			return err
		}
		// Exscan: rank 0 unchanged
		for i := range count {
			elem.Put(dt, recv, i, 99)
		}
		if err := c.Exscan(send, recv, count, dt, op); err != nil {
			return err
		}
		if err := checkElems(dt, "Exscan", r, recv, count, func(i int) float64 {
			if r == 0 {
				return 99
			}
			return reduceRef(dt, op, seq(0, r), i)
		}); err != nil {
			return err
		}
		// ReduceScatterBlock: element i of block r is element r*count+i.
		big := contribution(dt, r, 0, count*p)
		clear(recv)
		if err := c.ReduceScatterBlock(big, recv, count, dt, op); err != nil {
			return err
		}
		return checkElems(dt, "ReduceScatterBlock", r, recv, count, func(i int) float64 { return reduceRef(dt, op, seq(0, p), r*count+i) })
	})
}

func TestDataMovement(t *testing.T) {
	for _, p := range testSizes {
		for _, dt := range append([]mpi.Datatype{mpi.Byte}, numTypes...) {
			for _, count := range []int{0, 1, 3} {
				t.Run(fmt.Sprintf("P=%d/%v/count=%d", p, dt, count), func(t *testing.T) { testDataMovement(t, p, dt, count) })
			}
		}
	}
}

func testDataMovement(t *testing.T, p int, dt mpi.Datatype, count int) {
	sz := dt.Size()
	n := count * sz
	runWorld(t, p, func(rk *Rank) error {
		c := rk.Comm()
		r := c.Rank()
		for root := range p {
			// Bcast
			buf := make([]byte, n)
			if r == root {
				copy(buf, contribution(dt, root, 0, count))
			}
			if err := c.Bcast(buf, count, dt, root); err != nil {
				return err
			}
			want := contribution(dt, root, 0, count)
			if string(buf) != string(want) {
				return fmt.Errorf("Bcast root %d: rank %d got %v want %v", root, r, buf, want)
			}
			// Gather: block i from rank i.
			all := make([]byte, n*p)
			if err := c.Gather(contribution(dt, r, 0, count), all, count, dt, root); err != nil {
				return err
			}
			if r == root {
				for i := range p {
					if string(all[i*n:(i+1)*n]) != string(contribution(dt, i, 0, count)) {
						return fmt.Errorf("Gather root %d: block %d wrong", root, i)
					}
				}
			}
			// Scatter: rank i gets block i of root's buffer.
			var src []byte
			if r == root {
				src = contribution(dt, root, 0, count*p)
			}
			got := make([]byte, n)
			if err := c.Scatter(src, got, count, dt, root); err != nil {
				return err
			}
			if string(got) != string(contribution(dt, root, r*count, count)) {
				return fmt.Errorf("Scatter root %d: rank %d block wrong", root, r)
			}
		}
		// Allgather
		all := make([]byte, n*p)
		if err := c.Allgather(contribution(dt, r, 0, count), all, count, dt); err != nil {
			return err
		}
		for i := range p {
			if string(all[i*n:(i+1)*n]) != string(contribution(dt, i, 0, count)) {
				return fmt.Errorf("Allgather: rank %d block %d wrong", r, i)
			}
		}
		// Alltoall: rank r sends block j = contribution(r, j*count) to j;
		// receives block i from i = contribution(i, r*count).
		out := make([]byte, n*p)
		if err := c.Alltoall(contribution(dt, r, 0, count*p), out, count, dt); err != nil {
			return err
		}
		for i := range p {
			if string(out[i*n:(i+1)*n]) != string(contribution(dt, i, r*count, count)) {
				return fmt.Errorf("Alltoall: rank %d block from %d wrong", r, i)
			}
		}
		return c.Barrier()
	})
}

func TestGenericHelpers(t *testing.T) {
	runWorld(t, 5, func(rk *Rank) error {
		c := rk.Comm()
		x := []float64{float64(c.Rank()), 1}
		sum := make([]float64, 2)
		if err := mpi.Allreduce(c, x, sum, mpi.Sum); err != nil {
			return err
		}
		if sum[0] != 10 || sum[1] != 5 {
			return fmt.Errorf("Allreduce float64 = %v", sum)
		}
		ix := []int64{int64(c.Rank())}
		all := make([]int64, 5)
		if err := mpi.Allgather(c, ix, all); err != nil {
			return err
		}
		for i, v := range all {
			if v != int64(i) {
				return fmt.Errorf("Allgather int64 = %v", all)
			}
		}
		return nil
	})
}

func TestCollectiveErrors(t *testing.T) {
	runWorld(t, 3, func(rk *Rank) error {
		c := rk.Comm()
		b := make([]byte, 64)
		cases := []struct {
			name string
			err  error
		}{
			{"bad root", c.Bcast(b, 1, mpi.Int64, 3)},
			{"negative count", c.Bcast(b, -1, mpi.Int64, 0)},
			{"bad type", c.Bcast(b, 1, mpi.Datatype(42), 0)},
			{"short buffer", c.Allreduce(b, b[:8], 2, mpi.Int64, mpi.Sum)},
			{"byte reduction", c.Allreduce(b, b, 1, mpi.Byte, mpi.Sum)},
			{"bad op", c.Allreduce(b, b, 1, mpi.Int64, mpi.ReduceOp(9))},
			{"gather recv", c.Gather(b, b[:8], 2, mpi.Int64, c.Rank())},
		}
		for _, tc := range cases {
			var me *mpi.Error
			if tc.err == nil || !errorsAs(tc.err, &me) {
				return fmt.Errorf("%s: got %v, want *mpi.Error", tc.name, tc.err)
			}
		}
		return nil
	})
}

// The cost model: with an exact 1 µs latency, a barrier of 8 ranks takes
// log2(8) = 3 rounds on every rank, and a binomial broadcast reaches its
// deepest leaf after 3 hops.
func TestCollectiveCost(t *testing.T) {
	w, _ := New(Config{Ranks: 8, Latency: exactNet})
	ends := make([]float64, 8)
	err := w.Run(func(r *Rank) error {
		c := r.Comm()
		if err := c.Barrier(); err != nil {
			return err
		}
		if r.TrueNow() != 3e-6 {
			return fmt.Errorf("rank %d leaves the barrier at %v", r.ID(), r.TrueNow())
		}
		if err := c.Bcast(make([]byte, 8), 1, mpi.Float64, 0); err != nil {
			return err
		}
		ends[r.ID()] = r.TrueNow() - 3e-6
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	// Depth in the binomial tree: popcount of the rank.
	want := []float64{0, 1, 1, 2, 1, 2, 2, 3}
	for i, e := range ends {
		if !near(e, want[i]*1e-6, 1e-15) {
			t.Errorf("rank %d: Bcast done after %v, want %v µs", i, e, want[i])
		}
	}
}

// A receiver's ingress bandwidth is shared: a linear Gather of six 1000-byte
// blocks at 1 GB/s completes one block per µs at the root.
func TestIngressBandwidth(t *testing.T) {
	lat := exactNet
	lat.BytesPerSecond = 1e9
	w, _ := New(Config{Ranks: 7, Latency: lat})
	var end float64
	err := w.Run(func(r *Rank) error {
		c := r.Comm()
		if err := c.Gather(make([]byte, 1000), make([]byte, 7000), 1000, mpi.Byte, 0); err != nil {
			return err
		}
		if r.ID() == 0 {
			end = r.TrueNow()
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	// Every block leaves after 1 µs of injection and arrives at 2 µs; the
	// root then takes them in one after the other.
	if !near(end, 7e-6, 1e-15) {
		t.Errorf("root done at %v, want 7 µs", end)
	}
}

func TestAllEqual(t *testing.T) {
	runWorld(t, 5, func(rk *Rank) error {
		c := rk.Comm()
		same, err := mpi.AllEqual(c, "node-a")
		if err != nil || !same {
			return fmt.Errorf("AllEqual of equal strings = %v, %v", same, err)
		}
		name := "node-a"
		if c.Rank() == 3 {
			name = "node-b"
		}
		same, err = mpi.AllEqual(c, name)
		if err != nil || same {
			return fmt.Errorf("rank %d: AllEqual with rank 3 different = %v, %v", c.Rank(), same, err)
		}
		return nil
	})
}

// TestNodeSize: mpi.NodeSize gives every rank the size of the communicator
// SplitShared would return (nodes of RanksPerNode ranks, the last one
// short), on the world and on a sub-communicator, and creates none.
func TestNodeSize(t *testing.T) {
	w, err := New(Config{Ranks: 5, RanksPerNode: 2, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	err = w.Run(func(rk *Rank) error {
		c := rk.Comm()
		for _, cc := range []mpi.Comm{c, nil} {
			if cc == nil { // ranks 1..4: nodes {1}, {2, 3}, {4}
				sub, err := c.Sub([]int{1, 2, 3, 4})
				if err != nil || sub == nil {
					return err
				}
				defer sub.Free()
				cc = sub
			}
			n, err := mpi.NodeSize(cc)
			if err != nil {
				return err
			}
			node, err := cc.SplitShared()
			if err != nil {
				return err
			}
			want := node.Size()
			if err := node.Free(); err != nil {
				return err
			}
			if n != want {
				return fmt.Errorf("rank %d of %d: NodeSize %d, SplitShared's size %d", cc.Rank(), cc.Size(), n, want)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
