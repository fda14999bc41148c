// Command vcollcheck runs the vcoll calls of package mpi (MPI_Allgatherv,
// Alltoallv, Gatherv, Scatterv, Reduce_scatter, the MPI_Sendrecv ring,
// MPI_Neighbor_alltoall) under a real mpirun, through Observe and
// ObserveBatch, with and without mpi.Prepare, on the C path and on the Go
// path (a clock C cannot read), uniform and skewed, under every process
// synchronization, and checks every received element. It is run by the
// integration test of package mpi (TestVCollIntegration). Each rank prints
// "rank R/P: ok N checks" on success; any failed check is printed and the
// exit status is 1.
package main

import (
	"fmt"
	"os"
	"time"

	"github.com/reprobench/reprobench/factor"
	"github.com/reprobench/reprobench/mpi"
	"github.com/reprobench/reprobench/mpi/internal/elem"
	"github.com/reprobench/reprobench/timing"
)

type checker struct {
	rank, size int
	n, failed  int
}

func (k *checker) ok(cond bool, format string, args ...any) bool {
	k.n++
	if !cond {
		k.failed++
		fmt.Fprintf(os.Stderr, "rank %d/%d: FAIL: %s\n", k.rank, k.size, fmt.Sprintf(format, args...))
	}
	return cond
}

var calls = []mpi.Call{mpi.CallAllgatherv, mpi.CallAlltoallv, mpi.CallGatherv, mpi.CallScatterv,
	mpi.CallReduceScatter, mpi.CallSendrecv, mpi.CallNeighborAlltoall}

func main() {
	if err := mpi.Init(); err != nil {
		fmt.Fprintln(os.Stderr, "vcollcheck:", err)
		os.Exit(1)
	}
	w := mpi.World()
	k := &checker{rank: w.Rank(), size: w.Size()}
	mono := timing.NewMonotonic()
	goClock := timing.NewSkewed(mono, 0, 0) // Source none: Observe's Go path
	for _, call := range calls {
		skews := []int{1}
		if call.Skewable() {
			skews = []int{1, 3}
		}
		for _, skew := range skews {
			for _, dt := range []mpi.Datatype{mpi.Byte, mpi.Int32, mpi.Float64} {
				if call.Reduces() && dt == mpi.Byte {
					continue
				}
				for _, root := range []int{0, w.Size() - 1} {
					for sync := mpi.SyncNone; sync <= mpi.SyncDeadline; sync++ {
						run(k, w, call, dt, 5, skew, root, sync, mono, true)
					}
					run(k, w, call, dt, 5, skew, root, mpi.SyncBarrier, goClock, false)
				}
			}
		}
		// Observe without Prepare, then a new count on the same
		// communicator: the vectors follow the observation.
		run(k, w, call, mpi.Float64, 3, 1, 0, mpi.SyncBarrier, mono, false)
		run(k, w, call, mpi.Float64, 7, 1, 0, mpi.SyncNone, mono, false)
		batch(k, w, call, mono)
	}
	rootShift(k, w, mono, goClock)
	refusals(k, w, mono)
	dims(k)

	var bad [1]int64
	if err := mpi.Allreduce(w, []int64{int64(k.failed)}, bad[:], mpi.Sum); err != nil {
		k.ok(false, "final allreduce: %v", err)
	}
	if err := mpi.Finalize(); err != nil {
		fmt.Fprintln(os.Stderr, "vcollcheck: finalize:", err)
		os.Exit(1)
	}
	if bad[0] != 0 || k.failed != 0 {
		fmt.Printf("rank %d/%d: FAILED %d of %d checks (%d failures job-wide)\n", k.rank, k.size, k.failed, k.n, bad[0])
		os.Exit(1)
	}
	fmt.Printf("rank %d/%d: ok %d checks\n", k.rank, k.size, k.n)
}

// run observes call twice (Reps 2) and checks the result; prepare says
// whether to call mpi.Prepare first (and release after).
func run(k *checker, w mpi.Comm, call mpi.Call, dt mpi.Datatype, count, skew, root int, sync mpi.SyncKind, clk timing.Clock, prepare bool) {
	p, r := w.Size(), w.Rank()
	name := fmt.Sprintf("%v %v count %d skew %d root %d sync %v clock %s prepare %v", call, dt, count, skew, root, sync, clk.Name(), prepare)
	o := observation(w, call, dt, count, skew, root)
	o.Reps, o.Sync = 2, sync
	if sync == mpi.SyncDeadline {
		o.Deadline = clk.Now() + clk.Freq().Ticks(2*time.Millisecond)
	}
	release := func() error { return nil }
	if prepare {
		var err error
		if release, err = mpi.Prepare(w, o); !k.ok(err == nil, "%s: prepare: %v", name, err) {
			return
		}
	}
	err := w.Observe(o, clk)
	k.ok(err == nil, "%s: %v", name, err)
	k.ok(o.End >= o.Start, "%s: end %d < start %d", name, o.End, o.Start)
	if sync == mpi.SyncDeadline {
		k.ok(o.Start >= o.Deadline, "%s: started at %d before the deadline %d", name, o.Start, o.Deadline)
	}
	checkRecv(k, name, o, p, r)
	k.ok(release() == nil, "%s: release", name)
}

func observation(w mpi.Comm, call mpi.Call, dt mpi.Datatype, count, skew, root int) *mpi.Observation {
	p, r := w.Size(), w.Rank()
	s, rv := mpi.SkewedBufferSizes(call, count, dt, p, skew)
	send := make([]byte, s)
	for i := range s / dt.Size() {
		elem.Put(dt, send, i, value(call, dt, r, i))
	}
	return &mpi.Observation{Call: call, Send: send, Recv: make([]byte, rv), Count: count, Type: dt, Op: mpi.Sum,
		Root: root, Skew: skew}
}

// value is element i of rank r's send buffer: it names both (bytes modulo
// 251); for Reduce_scatter small integers, so that sums are exact.
func value(call mpi.Call, dt mpi.Datatype, r, i int) float64 {
	if call.Reduces() {
		return float64((r*7+i*3)%11 - 5)
	}
	if dt == mpi.Byte {
		return float64((r*37 + i*5 + 1) % 251)
	}
	return float64(r*1000 + i)
}

// want returns the expected receive buffer of rank r, written out from
// the definitions in docs/data-format.md (not from mpi.VCounts): every
// block has count elements except the heavy rank p−1's, which has
// skew·count, so block i starts at i·count.
func want(o *mpi.Observation, p, r int) []float64 {
	count, skew, call, dt := o.Count, max(o.Skew, 1), o.Call, o.Type
	blk := func(i int) int {
		if i == p-1 {
			return count * skew
		}
		return count
	}
	var w []float64
	switch call {
	case mpi.CallAllgatherv, mpi.CallGatherv:
		if call == mpi.CallGatherv && r != o.Root {
			return nil
		}
		for i := range p {
			for e := range blk(i) {
				w = append(w, value(call, dt, i, e))
			}
		}
	case mpi.CallScatterv:
		for e := range blk(r) {
			w = append(w, value(call, dt, o.Root, r*count+e))
		}
	case mpi.CallAlltoallv:
		for s := range p {
			for e := range blk(s) {
				w = append(w, value(call, dt, s, r*blk(s)+e))
			}
		}
	case mpi.CallReduceScatter:
		for e := range blk(r) {
			var sum float64
			for s := range p {
				sum += value(call, dt, s, r*count+e)
			}
			w = append(w, sum)
		}
	case mpi.CallSendrecv:
		for e := range count {
			w = append(w, value(call, dt, (r-1+p)%p, e))
		}
	case mpi.CallNeighborAlltoall:
		nb := mpi.CartNeighbors(mpi.Dims2(p), r)
		for j := range 4 {
			for e := range count {
				w = append(w, value(call, dt, nb[j], (j^1)*count+e))
			}
		}
	}
	return w
}

func checkRecv(k *checker, name string, o *mpi.Observation, p, r int) {
	wv := want(o, p, r)
	if !k.ok(len(wv)*o.Type.Size() <= len(o.Recv), "%s: want %d elements, buffer %d bytes", name, len(wv), len(o.Recv)) {
		return
	}
	for i, v := range wv {
		if g := elem.Get(o.Type, o.Recv, i); g != v {
			k.ok(false, "%s: rank %d element %d = %v, want %v", name, r, i, g, v)
			return
		}
	}
	k.ok(true, "")
}

// rootShift observes the rooted v-collectives with root_shift on, p calls
// from root 0, in C (clk) and on the Go path (goClock, through
// rb_call_once), and checks the result of the last call, whose root is
// p−1 (mpi.Observation.RootOf).
func rootShift(k *checker, w mpi.Comm, clk, goClock timing.Clock) {
	p, r := w.Size(), w.Rank()
	for _, call := range []mpi.Call{mpi.CallGatherv, mpi.CallScatterv} {
		for _, c := range []timing.Clock{clk, goClock} {
			name := fmt.Sprintf("%v root_shift clock %s", call, c.Name())
			o := observation(w, call, mpi.Int32, 5, 3, 0)
			o.Reps, o.Sync = p, mpi.SyncBarrier
			o.SetParams(factor.Of(factor.RootShift, 1).With(factor.Skew, 3))
			if !k.ok(o.RootOf(p-1, p) == p-1, "%s: last root %d, want %d", name, o.RootOf(p-1, p), p-1) {
				continue
			}
			if !k.ok(w.Observe(o, c) == nil, "%s: observe", name) {
				continue
			}
			last := *o
			last.Root = p - 1
			checkRecv(k, name, &last, p, r)
		}
	}
}

// batch runs 8 observations in one ObserveBatch, skewed where possible,
// deadlines 50 µs apart after a barrier.
func batch(k *checker, w mpi.Comm, call mpi.Call, clk timing.Clock) {
	skew := 1
	if call.Skewable() {
		skew = 2
	}
	o := observation(w, call, mpi.Int32, 4, skew, 0)
	rel, err := mpi.Prepare(w, o)
	if !k.ok(err == nil, "batch %v: prepare: %v", call, err) {
		return
	}
	const nb = 8
	starts, ends, dl := make([]timing.Ticks, nb), make([]timing.Ticks, nb), make([]timing.Ticks, nb)
	k.ok(w.Barrier() == nil, "barrier")
	t0 := clk.Now() + clk.Freq().Ticks(time.Millisecond)
	for i := range dl {
		dl[i] = t0 + clk.Freq().Ticks(time.Duration(i)*50*time.Microsecond)
	}
	o.Sync = mpi.SyncDeadline
	err = mpi.ObserveBatch(w, o, clk, dl, starts, ends)
	k.ok(err == nil, "batch %v: %v", call, err)
	for i := range nb {
		k.ok(starts[i] >= dl[i] && ends[i] >= starts[i], "batch %v: observation %d: deadline %d start %d end %d", call, i, dl[i], starts[i], ends[i])
	}
	checkRecv(k, fmt.Sprintf("batch %v", call), o, w.Size(), w.Rank())
	k.ok(rel() == nil, "batch %v: release", call)
}

func refusals(k *checker, w mpi.Comm, clk timing.Clock) {
	for _, call := range []mpi.Call{mpi.CallSendrecv, mpi.CallNeighborAlltoall} {
		o := observation(w, call, mpi.Float64, 2, 1, 0)
		o.Skew = 2
		_, err := mpi.Prepare(w, o)
		k.ok(err != nil, "%v: prepare with skew 2 accepted", call)
		k.ok(w.Observe(o, clk) != nil, "%v: observe with skew 2 accepted", call)
	}
	o := observation(w, mpi.CallAlltoallv, mpi.Float64, 2, 1, 0)
	o.Skew = 4 // buffers sized for uniform counts
	k.ok(w.Observe(o, clk) != nil, "Alltoallv with skew 4 accepted buffers sized for 1")
}

// dims checks that mpi.Dims2 agrees with the grid the neighbours reveal:
// Neighbor_alltoall above already failed if they disagree; here the
// function's own cases.
func dims(k *checker) {
	for p, d := range map[int][2]int{1: {1, 1}, 2: {2, 1}, 3: {3, 1}, 4: {2, 2}, 6: {3, 2}, 8: {4, 2}, 12: {4, 3}, 16: {4, 4}} {
		k.ok(mpi.Dims2(p) == d, "Dims2(%d) = %v, want %v", p, mpi.Dims2(p), d)
	}
}
