// Command nbccheck exercises the non-blocking collectives of the mpi
// binding under a real mpirun: for every call, the
// result of an observation (post, then wait, in one C call) is compared
// element by element with its blocking twin's, in single observations,
// loops, OSU's per-call loop and batches; the overlap measurement is
// checked for its invariants (pure > 0, compute ≥ 0, total ≥ compute, the
// result still right, with and without MPI_Test in the kernel); the Go path
// refuses them. Each rank prints "rank R/P: ok N checks" on success.
// Run by TestNBCIntegration with 2 and oversubscribed 4 ranks, Open MPI and
// MPICH.
package main

import (
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/reprobench/reprobench/mpi"
	"github.com/reprobench/reprobench/mpi/internal/elem"
	"github.com/reprobench/reprobench/timing"
)

type checker struct {
	rank, size, n, failed int
}

func (k *checker) ok(cond bool, format string, args ...any) {
	k.n++
	if !cond {
		k.failed++
		fmt.Fprintf(os.Stderr, "rank %d/%d: FAIL: %s\n", k.rank, k.size, fmt.Sprintf(format, args...))
	}
}

func main() {
	if err := mpi.Init(); err != nil {
		fmt.Fprintln(os.Stderr, "nbccheck:", err)
		os.Exit(1)
	}
	w := mpi.World()
	k := &checker{rank: w.Rank(), size: w.Size()}
	clk := timing.NewMonotonic()
	for _, dt := range []mpi.Datatype{mpi.Float64, mpi.Int32} {
		for _, nb := range mpi.NonBlockingCalls() {
			for _, count := range []int{1, 1000} {
				latency(k, w, clk, nb, dt, count)
			}
		}
	}
	for _, nb := range mpi.NonBlockingCalls() {
		overlap(k, w, clk, nb)
	}
	refusals(k, w)

	var bad [1]int64
	err := mpi.Allreduce(w, []int64{int64(k.failed)}, bad[:], mpi.Sum)
	k.ok(err == nil, "final allreduce: %v", err)
	if err := mpi.Finalize(); err != nil {
		fmt.Fprintln(os.Stderr, "nbccheck: finalize:", err)
		os.Exit(1)
	}
	if bad[0] != 0 || k.failed != 0 {
		fmt.Printf("rank %d/%d: FAILED %d of %d checks (%d failures job-wide)\n", k.rank, k.size, k.failed, k.n, bad[0])
		os.Exit(1)
	}
	fmt.Printf("rank %d/%d: ok %d checks\n", k.rank, k.size, k.n)
}

// newObs returns an observation of call with buffers filled with distinct
// values per rank and element (small integers, exact in every type), the
// receive buffer poisoned.
func newObs(w mpi.Comm, call mpi.Call, dt mpi.Datatype, count int) *mpi.Observation {
	p, r := w.Size(), w.Rank()
	s, rb := mpi.BufferSizes(call, count, dt, p)
	if b, _ := call.Blocking(); b == mpi.CallBcast {
		rb = max(rb, s)
	}
	o := &mpi.Observation{Call: call, Count: count, Type: dt, Op: mpi.Sum, Root: p - 1, Peer: 0,
		Send: make([]byte, s), Recv: make([]byte, rb)}
	for i := range s / dt.Size() {
		elem.Put(dt, o.Send, i, float64((r*31+i)%97+1))
	}
	for i := range o.Recv {
		o.Recv[i] = 0xA5
	}
	return o
}

// compare checks got's result against want's element by element: the
// receive buffer wherever the blocking call defines it on this rank
// (Bcast's is the root's send buffer, received into Recv elsewhere).
func compare(k *checker, what string, got, want *mpi.Observation) {
	b, _ := got.Call.Blocking()
	r, root := 0, got.Root
	if mpi.World() != nil {
		r = mpi.World().Rank()
	}
	// Where MPI leaves the receive buffer undefined, do not compare.
	if (b == mpi.CallReduce || b == mpi.CallGather) && r != root || b == mpi.CallBarrier || (b == mpi.CallBcast && r == root) {
		return
	}
	n := len(want.Recv) / got.Type.Size()
	bad := 0
	for i := range n {
		if g, w := elem.Get(got.Type, got.Recv, i), elem.Get(got.Type, want.Recv, i); g != w {
			if bad < 3 {
				k.ok(false, "%s: element %d is %v, blocking %v", what, i, g, w)
			}
			bad++
		}
	}
	k.ok(bad == 0, "%s: %d of %d elements differ from the blocking call's", what, bad, n)
}

func latency(k *checker, w mpi.Comm, clk timing.Clock, nb mpi.Call, dt mpi.Datatype, count int) {
	if nb.Reduces() && dt == mpi.Byte {
		return
	}
	b, _ := nb.Blocking()
	for _, mode := range []string{"single", "loop", "osu", "batch"} {
		got, want := newObs(w, nb, dt, count), newObs(w, b, dt, count)
		what := fmt.Sprintf("%v %v×%d %s", nb, dt, count, mode)
		for _, o := range []*mpi.Observation{got, want} {
			o.Sync = mpi.SyncBarrier
			switch mode {
			case "loop":
				o.Reps = 5
			case "osu":
				o.Reps, o.TimeEach = 5, true
			}
			var err error
			if mode == "batch" {
				starts, ends := make([]timing.Ticks, 4), make([]timing.Ticks, 4)
				err = mpi.ObserveBatch(w, o, clk, nil, starts, ends)
				for i := range starts {
					k.ok(ends[i] >= starts[i], "%s: observation %d ends before it starts", what, i)
				}
			} else {
				err = w.Observe(o, clk)
			}
			k.ok(err == nil, "%s (%v): %v", what, o.Call, err)
			k.ok(o.End >= o.Start && o.Pure == 0 && o.Compute == 0, "%s: start %d end %d pure %d compute %d",
				what, o.Start, o.End, o.Pure, o.Compute)
		}
		compare(k, what, got, want)
	}
}

func overlap(k *checker, w mpi.Comm, clk timing.Clock, nb mpi.Call) {
	b, _ := nb.Blocking()
	for _, each := range []bool{false, true} {
		for _, every := range []int64{0, 50} {
			syncs := []mpi.SyncKind{mpi.SyncNone, mpi.SyncBarrier, mpi.SyncDoubleBarrier, mpi.SyncDissemination}
			if each || every > 0 {
				syncs = syncs[1:2] // the rest once, to keep the oversubscribed runs short
			}
			for _, sync := range syncs {
				what := fmt.Sprintf("%v overlap each=%v test-every=%d sync=%v", nb, each, every, sync)
				got, want := newObs(w, nb, mpi.Float64, 64), newObs(w, b, mpi.Float64, 64)
				got.Overlap, got.KernelIters, got.TestEvery, got.TimeEach, got.Reps, got.Sync = true, 10000, every, each, 3, sync
				err := w.Observe(got, clk)
				k.ok(err == nil, "%s: %v", what, err)
				k.ok(w.Observe(want, clk) == nil, "%s: blocking", what)
				total := got.End - got.Start
				k.ok(got.Pure > 0 && got.Compute > 0 && total >= got.Compute,
					"%s: pure %d compute %d total %d ticks", what, got.Pure, got.Compute, total)
				// 3 × 10000 dependent multiply-adds take well over 5 µs.
				k.ok(clk.Freq().Seconds(got.Compute) > 5e-6, "%s: compute %v s is too short for 30000 iterations", what, clk.Freq().Seconds(got.Compute))
				compare(k, what, got, want)
			}
		}
	}
}

func refusals(k *checker, w mpi.Comm) {
	skew := timing.NewSkewed(timing.NewMonotonic(), time.Millisecond, 10) // not readable from C
	o := newObs(w, mpi.CallIallreduce, mpi.Float64, 1)
	err := w.Observe(o, skew)
	k.ok(err != nil && strings.Contains(err.Error(), "only in C"), "Go path: %v", err)
	o = newObs(w, mpi.CallIallreduce, mpi.Float64, 1)
	o.Overlap, o.Sync = true, mpi.SyncDeadline
	err = w.Observe(o, timing.NewMonotonic())
	k.ok(err != nil && strings.Contains(err.Error(), "deadline"), "overlap with a deadline: %v", err)
	o = newObs(w, mpi.CallAllreduce, mpi.Float64, 1)
	o.Overlap = true
	err = w.Observe(o, timing.NewMonotonic())
	k.ok(err != nil && strings.Contains(err.Error(), "non-blocking"), "overlap of a blocking call: %v", err)
}
