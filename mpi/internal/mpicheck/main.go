// Command mpicheck exercises every operation of the mpi binding under a real
// mpirun and checks each result element by element. It is run by the
// integration tests of package mpi with 2, 4 and 8 ranks, against Open MPI
// and MPICH. Each rank prints "rank R/P: ok N checks" on success; any failed
// check is printed and the exit status is 1.
package main

import (
	"errors"
	"fmt"
	"math"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/reprobench/reprobench/mpi"
	"github.com/reprobench/reprobench/mpi/internal/badargs"
	"github.com/reprobench/reprobench/mpi/internal/elem"
	"github.com/reprobench/reprobench/mpi/internal/opcheck"
	"github.com/reprobench/reprobench/timing"
)

type checker struct {
	rank, size int
	n          int
	failed     int
}

func (k *checker) ok(cond bool, format string, args ...any) {
	k.n++
	if !cond {
		k.failed++
		fmt.Fprintf(os.Stderr, "rank %d/%d: FAIL: %s\n", k.rank, k.size, fmt.Sprintf(format, args...))
	}
}

func (k *checker) noErr(err error, what string) {
	k.ok(err == nil, "%s: %v", what, err)
}

func main() {
	if err := mpi.Init(); err != nil {
		fmt.Fprintln(os.Stderr, "mpicheck:", err)
		os.Exit(1)
	}
	w := mpi.World()
	k := &checker{rank: w.Rank(), size: w.Size()}
	p2p(k, w)
	collectives(k, w)
	benchmarked(k, w)
	subcomms(k, w)
	errorsAndEdges(k, w)
	allocations(k, w)
	observe(k, w)
	table(k, w)
	persistent(k, w)
	threads(k, w)

	// Agree on the outcome so that every rank reports the same verdict.
	var bad [1]int64
	k.noErr(mpi.Allreduce(w, []int64{int64(k.failed)}, bad[:], mpi.Sum), "final allreduce")
	if err := mpi.Finalize(); err != nil {
		fmt.Fprintln(os.Stderr, "mpicheck: finalize:", err)
		os.Exit(1)
	}
	if bad[0] != 0 || k.failed != 0 {
		fmt.Printf("rank %d/%d: FAILED %d of %d checks (%d failures job-wide)\n", k.rank, k.size, k.failed, k.n, bad[0])
		os.Exit(1)
	}
	fmt.Printf("rank %d/%d: ok %d checks\n", k.rank, k.size, k.n)
}

func p2p(k *checker, w mpi.Comm) {
	r, p := w.Rank(), w.Size()
	next, prev := (r+1)%p, (r-1+p)%p
	// Ring with Sendrecv of float64s.
	send := []float64{float64(r), float64(r) * 1.5, -float64(r)}
	recv := make([]float64, 3)
	k.noErr(mpi.Sendrecv(w, send, next, 1, recv, prev, 1), "sendrecv")
	k.ok(recv[0] == float64(prev) && recv[1] == float64(prev)*1.5 && recv[2] == -float64(prev), "sendrecv got %v from %d", recv, prev)

	// Blocking send/recv of int64s, ordered by rank parity to avoid deadlock.
	si := []int64{int64(r) << 40, 7}
	ri := make([]int64, 2)
	if r%2 == 0 {
		k.noErr(mpi.Send(w, si, next, 2), "send int64")
		k.noErr(mpi.Recv(w, ri, prev, 2), "recv int64")
	} else {
		k.noErr(mpi.Recv(w, ri, prev, 2), "recv int64")
		k.noErr(mpi.Send(w, si, next, 2), "send int64")
	}
	k.ok(ri[0] == int64(prev)<<40 && ri[1] == 7, "recv int64 got %v", ri)

	// Scalars and bytes between 0 and 1.
	if p >= 2 && r < 2 {
		other := 1 - r
		if r == 0 {
			k.noErr(w.SendFloat64(math.Pi, other, 3), "send float64")
			k.noErr(w.SendInt64(-42, other, 4), "send int64 scalar")
			k.noErr(w.Send([]byte("hello"), other, 5), "send bytes")
			v, err := w.RecvFloat64(other, 6)
			k.noErr(err, "recv float64 reply")
			k.ok(v == math.E, "float64 reply %v", v)
		} else {
			v, err := w.RecvFloat64(other, 3)
			k.noErr(err, "recv float64")
			k.ok(v == math.Pi, "float64 got %v", v)
			iv, err := w.RecvInt64(other, 4)
			k.noErr(err, "recv int64 scalar")
			k.ok(iv == -42, "int64 scalar got %d", iv)
			b := make([]byte, 5)
			k.noErr(w.Recv(b, other, 5), "recv bytes")
			k.ok(string(b) == "hello", "bytes got %q", b)
			k.noErr(w.SendFloat64(math.E, other, 6), "send float64 reply")
		}
	}

	// Non-blocking ring: post the receive first, then the send; the buffers
	// are allocated in a helper so that nothing but the request keeps them.
	rq, sq, rb := postRing(k, w, next, prev)
	if rq != nil && sq != nil {
		done := false
		for !done {
			var err error
			done, err = sq.Test()
			k.noErr(err, "test")
		}
		k.noErr(rq.Wait(), "wait irecv")
		k.noErr(rq.Wait(), "second wait is a no-op")
		for i, v := range rb {
			if v != float64(prev*1000+i) {
				k.ok(false, "irecv element %d = %v, want %v", i, v, prev*1000+i)
				break
			}
		}
		k.ok(true, "irecv")
	}
}

func postRing(k *checker, w mpi.Comm, next, prev int) (rq, sq mpi.Request, rb []float64) {
	rb = make([]float64, 1000)
	sb := make([]float64, 1000)
	for i := range sb {
		sb[i] = float64(w.Rank()*1000 + i)
	}
	var err error
	rq, err = w.Irecv(mpi.Bytes(rb), prev, 7)
	k.noErr(err, "irecv")
	sq, err = w.Isend(mpi.Bytes(sb), next, 7)
	k.noErr(err, "isend")
	return rq, sq, rb
}

func collectives(k *checker, w mpi.Comm) {
	r, p := w.Rank(), w.Size()
	k.noErr(w.Barrier(), "barrier")

	for root := 0; root < p; root++ {
		b := []float64{0, 0, 0}
		if r == root {
			b = []float64{1.25, float64(root), -3}
		}
		k.noErr(mpi.Bcast(w, b, root), "bcast")
		k.ok(b[0] == 1.25 && b[1] == float64(root) && b[2] == -3, "bcast root %d got %v", root, b)
	}

	// Reduce/Allreduce with sum, min, max on float64 and int64.
	sf := []float64{float64(r + 1), float64(-r), 0.5}
	sumWant := []float64{float64(p * (p + 1) / 2), -float64(p * (p - 1) / 2), 0.5 * float64(p)}
	minWant := []float64{1, -float64(p - 1), 0.5}
	maxWant := []float64{float64(p), 0, 0.5}
	for _, tc := range []struct {
		op   mpi.ReduceOp
		want []float64
	}{{mpi.Sum, sumWant}, {mpi.Min, minWant}, {mpi.Max, maxWant}} {
		got := make([]float64, 3)
		k.noErr(mpi.Allreduce(w, sf, got, tc.op), "allreduce float64")
		k.ok(equalF(got, tc.want), "allreduce %v float64 got %v want %v", tc.op, got, tc.want)
		si := []int64{int64(r + 1), int64(-r), 1 << 40}
		gi := make([]int64, 3)
		k.noErr(mpi.Allreduce(w, si, gi, tc.op), "allreduce int64")
		wi := []int64{int64(tc.want[0]), int64(tc.want[1]), 1 << 40}
		if tc.op == mpi.Sum {
			wi[2] = int64(p) << 40
		}
		k.ok(equalI(gi, wi), "allreduce %v int64 got %v want %v", tc.op, gi, wi)
		gr := make([]float64, 3)
		k.noErr(mpi.Reduce(w, sf, gr, tc.op, p-1), "reduce")
		if r == p-1 {
			k.ok(equalF(gr, tc.want), "reduce %v got %v want %v", tc.op, gr, tc.want)
		}
	}

	// Gather, Scatter, Allgather.
	g := make([]int64, 2*p)
	k.noErr(mpi.Gather(w, []int64{int64(r), int64(10 * r)}, g, 0), "gather")
	if r == 0 {
		for i := 0; i < p; i++ {
			k.ok(g[2*i] == int64(i) && g[2*i+1] == int64(10*i), "gather slot %d got %v", i, g[2*i:2*i+2])
		}
	}
	var scat []float64
	if r == 0 {
		scat = make([]float64, 2*p)
		for i := range scat {
			scat[i] = float64(i) / 4
		}
	}
	sr := make([]float64, 2)
	k.noErr(mpi.Scatter(w, scat, sr, 0), "scatter")
	k.ok(sr[0] == float64(2*r)/4 && sr[1] == float64(2*r+1)/4, "scatter got %v", sr)
	ag := make([]float64, p)
	k.noErr(mpi.Allgather(w, []float64{float64(r * r)}, ag), "allgather")
	for i := range ag {
		k.ok(ag[i] == float64(i*i), "allgather slot %d = %v", i, ag[i])
	}
}

// benchmarked checks the byte-buffer operations users time, on every datatype.
func benchmarked(k *checker, w mpi.Comm) {
	r, p := w.Rank(), w.Size()
	const count = 5
	for dt := mpi.Byte; dt <= mpi.Float64; dt++ {
		es := dt.Size()
		val := func(rank, i int) float64 { return float64(rank*7 + i + 1) }
		fill := func(b []byte, rank, base int, n int) {
			for i := 0; i < n; i++ {
				elem.Put(dt, b, i, val(rank, base+i))
			}
		}
		// Bcast from the last rank.
		b := make([]byte, count*es)
		if r == p-1 {
			fill(b, p-1, 0, count)
		}
		k.noErr(w.Bcast(b, count, dt, p-1), "bcast "+dt.String())
		for i := 0; i < count; i++ {
			k.ok(elem.Get(dt, b, i) == val(p-1, i), "bcast %v elem %d", dt, i)
		}
		// Alltoall: element j of rank r's block for rank d is val(r, d*count+j).
		s := make([]byte, p*count*es)
		fill(s, r, 0, p*count)
		rcv := make([]byte, p*count*es)
		k.noErr(w.Alltoall(s, rcv, count, dt), "alltoall "+dt.String())
		for src := 0; src < p; src++ {
			for j := 0; j < count; j++ {
				got := elem.Get(dt, rcv, src*count+j)
				k.ok(got == val(src, r*count+j), "alltoall %v from %d elem %d = %v", dt, src, j, got)
			}
		}
		if dt == mpi.Byte {
			err := w.Allreduce(b, make([]byte, len(b)), count, dt, mpi.Sum)
			var me *mpi.Error
			k.ok(errors.As(err, &me) && me.Code == -1, "allreduce on MPI_BYTE must be refused, got %v", err)
			continue
		}
		// Scan / Exscan with sum: prefix sums of val(q, i) over q.
		in := make([]byte, count*es)
		fill(in, r, 0, count)
		sc := make([]byte, count*es)
		k.noErr(w.Scan(in, sc, count, dt, mpi.Sum), "scan "+dt.String())
		ex := make([]byte, count*es)
		k.noErr(w.Exscan(in, ex, count, dt, mpi.Sum), "exscan "+dt.String())
		for i := 0; i < count; i++ {
			var pre float64
			for q := 0; q < r; q++ {
				pre += val(q, i)
			}
			k.ok(elem.Get(dt, sc, i) == pre+val(r, i), "scan %v elem %d", dt, i)
			if r > 0 {
				k.ok(elem.Get(dt, ex, i) == pre, "exscan %v elem %d", dt, i)
			}
		}
		// Reduce_scatter_block with max: block d element j = max_q val(q, d*count+j) = val(p-1, …).
		rs := make([]byte, p*count*es)
		fill(rs, r, 0, p*count)
		out := make([]byte, count*es)
		k.noErr(w.ReduceScatterBlock(rs, out, count, dt, mpi.Max), "reduce_scatter_block "+dt.String())
		for j := 0; j < count; j++ {
			k.ok(elem.Get(dt, out, j) == val(p-1, r*count+j), "reduce_scatter_block %v elem %d", dt, j)
		}
	}
}

func subcomms(k *checker, w mpi.Comm) {
	r, p := w.Rank(), w.Size()
	// Split by parity, reversed key order.
	sc, err := w.Split(r%2, -r)
	k.noErr(err, "split")
	if sc != nil {
		want := (p - r%2 + 1) / 2
		k.ok(sc.Size() == want, "split size %d want %d", sc.Size(), want)
		sum := make([]int64, 1)
		k.noErr(mpi.Allreduce(sc, []int64{int64(r)}, sum, mpi.Sum), "split allreduce")
		var ws int64
		for q := r % 2; q < p; q += 2 {
			ws += int64(q)
		}
		k.ok(sum[0] == ws, "split allreduce %d want %d", sum[0], ws)
		// Highest world rank has the lowest key, hence rank 0.
		k.noErr(sc.Free(), "free split")
		k.ok(sc.Barrier() != nil, "barrier on a freed communicator must fail")
	}
	// Negative color: not a member.
	nc, err := w.Split(-1, 0)
	k.noErr(err, "split undefined")
	k.ok(nc == nil, "negative color gives nil communicator")

	// Explicit rank list: the last rank and rank 0, in that order.
	list := []int{p - 1, 0}
	sub, err := w.Sub(list)
	k.noErr(err, "sub")
	if r == 0 || r == p-1 {
		k.ok(sub != nil, "member has a communicator")
		if sub != nil {
			want := 1
			if r == p-1 {
				want = 0
			}
			k.ok(sub.Rank() == want && sub.Size() == 2, "sub rank %d size %d", sub.Rank(), sub.Size())
			k.noErr(sub.Free(), "free sub")
		}
	} else {
		k.ok(sub == nil, "non-member has nil communicator")
	}
	_, err = w.Sub([]int{0, 0})
	k.ok(err != nil, "duplicate rank in Sub must fail")

	// Node-local: on one host every rank shares memory.
	nl, err := w.SplitShared()
	k.noErr(err, "split shared")
	if nl != nil {
		k.ok(nl.Size() == p && nl.Rank() == r, "shared comm rank %d size %d (one host)", nl.Rank(), nl.Size())
		k.noErr(nl.Free(), "free shared")
	}
	// NodeSize: the same count from processor names, no communicator.
	ns, err := mpi.NodeSize(w)
	k.noErr(err, "node size")
	k.ok(ns == p, "NodeSize %d, want %d (one host)", ns, p)
	k.ok(w.Free() != nil, "freeing the world must fail")
}

func errorsAndEdges(k *checker, w mpi.Comm) {
	p := w.Size()
	var me *mpi.Error
	err := w.Send([]byte{1}, p, 0)
	k.ok(errors.As(err, &me) && me.Func == "MPI_Send", "send to rank out of range: %v", err)
	err = w.Send([]byte{1}, 0, mpi.TagInternal)
	k.ok(err != nil, "reserved tag must be refused: %v", err)
	// The invalid calls mpitest's TestBadArguments also makes: same errors.
	for _, c := range badargs.Cases() {
		got := fmt.Sprint(c.Call(w))
		k.ok(got == c.Want(p), "%s: %q, want %q", c.Name, got, c.Want(p))
	}
	// Empty slices everywhere are valid.
	k.noErr(mpi.Bcast[float64](w, nil, 0), "empty bcast")
	k.noErr(mpi.Allreduce[float64](w, nil, nil, mpi.Sum), "empty allreduce")
	k.noErr(mpi.Allgather[int64](w, nil, nil), "empty allgather")
	k.noErr(mpi.Sendrecv[byte](w, nil, (w.Rank()+1)%p, 9, nil, (w.Rank()-1+p)%p, 9), "empty sendrecv")
	// Short receive buffer.
	err = mpi.Allreduce(w, []float64{1, 2}, make([]float64, 1), mpi.Sum)
	k.ok(err != nil, "short receive buffer must be refused")
	// An MPI-detected error carries MPI's message: receive fewer bytes than sent.
	if p >= 2 && w.Rank() < 2 {
		if w.Rank() == 0 {
			k.noErr(w.Send(make([]byte, 16), 1, 10), "send 16 bytes")
		} else {
			err := w.Recv(make([]byte, 8), 0, 10)
			k.ok(errors.As(err, &me) && me.Code > 0 && me.Msg != "", "truncation error from MPI: %v", err)
		}
	}
	name, err := mpi.ProcessorName()
	k.ok(err == nil && name != "", "processor name %q %v", name, err)
	v, err := mpi.LibraryVersion()
	k.ok(err == nil && v != "", "library version %q %v", v, err)
	ok, err := mpi.Initialized()
	k.ok(ok && err == nil, "initialized")
	// Open MPI counts MPI_Wtime from initialization, so only its order is checked.
	t1 := mpi.Wtime()
	t2 := mpi.Wtime()
	k.ok(mpi.Wtick() > 0 && t2 >= t1 && t1 >= 0, "wtime %v then %v, wtick %v", t1, t2, mpi.Wtick())
}

// allocations checks that hot paths do not allocate. Every rank runs the
// same number of iterations, so the collectives match.
func allocations(k *checker, w mpi.Comm) {
	r, p := w.Rank(), w.Size()
	buf := make([]byte, 8)
	f := make([]float64, 1)
	g := make([]float64, 1)
	check := func(name string, fn func()) {
		a := testing.AllocsPerRun(200, fn)
		k.ok(a == 0, "%s allocates %v times per call", name, a)
	}
	check("Rank", func() { _ = w.Rank() })
	check("Bcast", func() { _ = w.Bcast(buf, 8, mpi.Byte, 0) })
	check("Allreduce", func() { _ = mpi.Allreduce(w, f, g, mpi.Sum) })
	if p >= 2 && r < 2 {
		other := 1 - r
		check("Send/Recv", func() {
			if r == 0 {
				_ = w.Send(buf, other, 11)
				_ = w.Recv(buf, other, 11)
			} else {
				_ = w.Recv(buf, other, 11)
				_ = w.Send(buf, other, 11)
			}
		})
		check("SendFloat64/RecvFloat64", func() {
			if r == 0 {
				_ = w.SendFloat64(1, other, 12)
				_, _ = w.RecvFloat64(other, 12)
			} else {
				v, _ := w.RecvFloat64(other, 12)
				_ = w.SendFloat64(v, other, 12)
			}
		})
	}
	clk := mpi.WtimeClock()
	o := &mpi.Observation{Call: mpi.CallAllreduce, Send: buf, Recv: make([]byte, 8), Count: 1, Type: mpi.Float64, Sync: mpi.SyncBarrier}
	check("Observe", func() { _ = w.Observe(o, clk) })
	// Two observations per batch: the count per call is what matters, and
	// 201 batches of barrier + allreduce are slow when oversubscribed.
	starts, ends := make([]timing.Ticks, 2), make([]timing.Ticks, 2)
	check("ObserveBatch", func() { _ = mpi.ObserveBatch(w, o, clk, nil, starts, ends) })
}

// observe runs every call under every sync kind through Observe and checks
// timestamps and results.
func observe(k *checker, w mpi.Comm) {
	r, p := w.Rank(), w.Size()
	clocks := []timing.Clock{mpi.WtimeClock(), timing.NewMonotonic(), timing.NewMonotonicRaw()}
	if p > 2 {
		// Oversubscribed runs check function, not timing: every
		// collective step there waits for a descheduled busy-polling rank
		// (MPICH at 8 ranks on 2 cores takes milliseconds per step).
		clocks = clocks[:1]
	}
	for _, clk := range clocks {
		for _, call := range mpi.Calls() {
			if call.NonBlocking() && p > 2 {
				continue // nbc: nbccheck checks them oversubscribed; with them MPICH np 8 took 164 s of its 240 s timeout at load 20
			}
			for sync := mpi.SyncNone; sync <= mpi.SyncDeadline; sync++ {
				count := 4
				s, rc := mpi.BufferSizes(call, count, mpi.Float64, p)
				send := make([]float64, s/8)
				for i := range send {
					send[i] = float64(r + 1)
				}
				recv := make([]float64, rc/8)
				o := &mpi.Observation{Call: call, Send: mpi.Bytes(send), Recv: mpi.Bytes(recv), Count: count,
					Type: mpi.Float64, Op: mpi.Sum, Root: 0, Peer: p - 1, Reps: 3, Sync: sync}
				if sync == mpi.SyncDeadline {
					// A deadline 2 ms ahead on each rank's own clock.
					o.Deadline = clk.Now() + clk.Freq().Ticks(2*time.Millisecond)
				}
				release, err := mpi.Prepare(w, o) // p2p: bandwidth and one-sided calls need it
				k.noErr(err, fmt.Sprintf("prepare %v %v", call, sync))
				g0 := clk.Now()
				err = w.Observe(o, clk)
				g1 := clk.Now()
				k.noErr(err, fmt.Sprintf("observe %v %v", call, sync))
				if release != nil {
					k.noErr(release(), fmt.Sprintf("release %v %v", call, sync))
				}
				k.ok(o.End >= o.Start, "observe %v %v: end %d < start %d", call, sync, o.End, o.Start)
				// C read the clock Go reads: its timestamps lie between Go's
				// readings around the call.
				k.ok(o.Start >= g0 && o.End <= g1, "observe %v %v on %s: C read [%d, %d] outside Go's [%d, %d]",
					call, sync, clk.Name(), o.Start, o.End, g0, g1)
				if sync == mpi.SyncDeadline {
					k.ok(o.Start >= o.Deadline, "observe %v started at %d before deadline %d", call, o.Start, o.Deadline)
				}
				if call == mpi.CallAllreduce {
					want := float64(p * (p + 1) / 2)
					k.ok(recv[0] == want && recv[3] == want, "observed allreduce result %v want %v", recv, want)
				}
				if call == mpi.CallPingPong && r == 0 {
					k.ok(recv[0] == float64(p), "ping-pong returned %v want %v", recv[0], p)
				}
			}
		}
	}
	// A batch: barrier-synchronized, then deadlines 50 µs apart on each
	// rank's own clock; every observation in order, none before its deadline.
	nb := 64
	if p > 2 {
		nb = 8
	}
	starts, ends, dl := make([]timing.Ticks, nb), make([]timing.Ticks, nb), make([]timing.Ticks, nb)
	send, recv := []float64{float64(r + 1)}, make([]float64, 1)
	o := &mpi.Observation{Call: mpi.CallAllreduce, Send: mpi.Bytes(send), Recv: mpi.Bytes(recv), Count: 1,
		Type: mpi.Float64, Op: mpi.Sum, Sync: mpi.SyncBarrier}
	for _, clk := range clocks {
		k.noErr(mpi.ObserveBatch(w, o, clk, nil, starts, ends), "barrier batch")
		for i := 0; i < nb; i++ {
			k.ok(ends[i] >= starts[i] && (i == 0 || starts[i] >= ends[i-1]), "barrier batch %d: [%d,%d] after %d", i, starts[i], ends[i], ends[max(i-1, 0)])
		}
		k.ok(o.Start == starts[nb-1] && o.End == ends[nb-1], "batch leaves the last observation in o")
		k.ok(recv[0] == float64(p*(p+1)/2), "batch allreduce result %v", recv[0])
		o.Sync = mpi.SyncDeadline
		t0 := clk.Now() + clk.Freq().Ticks(time.Millisecond)
		for i := range dl {
			dl[i] = t0 + timing.Ticks(i)*clk.Freq().Ticks(50*time.Microsecond)
		}
		k.noErr(mpi.ObserveBatch(w, o, clk, dl, starts, ends), "deadline batch")
		for i := 0; i < nb; i++ {
			k.ok(starts[i] >= dl[i] && ends[i] >= starts[i], "deadline batch %d: start %d before deadline %d", i, starts[i], dl[i])
		}
		k.ok(mpi.ObserveBatch(w, o, clk, dl[:1], starts, ends) != nil, "too few deadlines must be refused")
		k.ok(mpi.ObserveBatch(w, o, clk, dl, starts, ends[:1]) != nil, "mismatched starts and ends must be refused")
		o.Sync = mpi.SyncBarrier

		// Cache control inside the batch: observation i uses the buffers
		// at Offsets[i] (slot j sends (r+1)·(j+1)), and Flush is written.
		const slots = 3
		sendAll, recvAll := make([]float64, slots), make([]float64, slots)
		for j := range sendAll {
			sendAll[j] = float64((r + 1) * (j + 1))
		}
		flush := make([]byte, 4096)
		ob := *o
		ob.Send, ob.Recv, ob.Flush = mpi.Bytes(sendAll), mpi.Bytes(recvAll), flush
		ob.Offsets = make([]int64, nb)
		for i := range ob.Offsets {
			ob.Offsets[i] = int64(8 * ((i * 2) % slots))
		}
		k.noErr(mpi.ObserveBatch(w, &ob, clk, nil, starts, ends), "batch with offsets and flush")
		for j := range recvAll {
			k.ok(recvAll[j] == float64((j+1)*p*(p+1)/2), "offset batch: slot %d received %v", j, recvAll[j])
		}
		k.ok(flush[0] != 0 && flush[64] == flush[0], "flush buffer not written: %d %d", flush[0], flush[64])
		ob.Offsets[nb-1] = 8 * slots
		k.ok(mpi.ObserveBatch(w, &ob, clk, nil, starts, ends) != nil, "an offset past the buffers must be refused")
		ob.Offsets = ob.Offsets[:1]
		k.ok(mpi.ObserveBatch(w, &ob, clk, nil, starts, ends) != nil, "too few offsets must be refused")
	}

	// Observe validates its input.
	bad := &mpi.Observation{Call: mpi.CallAllreduce, Count: 4, Type: mpi.Float64}
	k.ok(w.Observe(bad, mpi.WtimeClock()) != nil, "observe with missing buffers must fail")
}

// table checks every row of the operation table against its Result
// (opcheck): through the C critical path, and, on 2 ranks, through the
// rows' Go reference semantics (a skewed clock, which C cannot read; the
// rows without Go semantics are left out there).
func table(k *checker, w mpi.Comm) {
	p := w.Size()
	types := []mpi.Datatype{mpi.Byte, mpi.Int32, mpi.Int64, mpi.Float32, mpi.Float64}
	counts, roots := []int{1, 7}, []int{0, p - 1}
	if p > 2 {
		// Oversubscribed: fewer cases (see observe).
		types, counts, roots = []mpi.Datatype{mpi.Int32, mpi.Float64}, []int{3}, []int{p - 1}
	}
	mono := timing.NewMonotonic()
	clocks := []timing.Clock{mono, timing.NewSkewed(mono, 0, 0)}
	if p > 2 {
		clocks = clocks[:1]
	}
	for _, clk := range clocks {
		for _, c := range opcheck.Cases(p, types, counts, roots, mpi.Sum) {
			if clk.Source().Kind == timing.SourceNone && c.Call.Op().Go == nil {
				continue
			}
			err := opcheck.Run(w, clk, c)
			k.ok(err == nil, "table, %s clock: %v", clk.Name(), err)
		}
	}
}

// persistent checks what the binding refuses of a persistent collective
// (its results are table's): a call before Prepare, a second Prepare, a
// call on other buffers than those Prepare bound, a call after the release.
func persistent(k *checker, w mpi.Comm) {
	clk := timing.NewMonotonic()
	o := &mpi.Observation{Call: mpi.CallAllreduceInit, Count: 2, Type: mpi.Float64, Op: mpi.Sum, Sync: mpi.SyncBarrier,
		Send: mpi.Bytes([]float64{1, 2}), Recv: make([]byte, 16)}
	refused := func(what string, err error, text string) {
		var me *mpi.Error
		k.ok(errors.As(err, &me) && strings.Contains(me.Msg, text), "persistent, %s: %v, want %q", what, err, text)
	}
	refused("unprepared", w.Observe(o, clk), "needs the resources of mpi.Prepare")
	release, err := mpi.Prepare(w, o)
	k.noErr(err, "persistent prepare")
	if err != nil {
		return
	}
	_, err = mpi.Prepare(w, o)
	refused("second Prepare", err, "still holds")
	moved := *o
	moved.Send = mpi.Bytes([]float64{1, 2})
	refused("other buffers", w.Observe(&moved, clk), "bound to the buffers")
	k.noErr(w.Observe(o, clk), "persistent observe")
	got := []float64{elem.Get(mpi.Float64, o.Recv, 0), elem.Get(mpi.Float64, o.Recv, 1)}
	p := float64(w.Size())
	k.ok(got[0] == p && got[1] == 2*p, "persistent allreduce %v, want [%v %v]", got, p, 2*p)
	k.noErr(release(), "persistent release")
	refused("released", w.Observe(o, clk), "needs the resources of mpi.Prepare")
}

func equalF(a, b []float64) bool {
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return len(a) == len(b)
}

func equalI(a, b []int64) bool {
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return len(a) == len(b)
}

// threads checks the thread level (Init requests SINGLE, the provided level
// is recorded) and that the observation paths refuse, without entering MPI,
// a call from an OS thread other than the one that called Init; and it
// checks OSU's per-call timing (TimeEach) on that thread.
func threads(k *checker, w mpi.Comm) {
	k.ok(mpi.ThreadRequested() == mpi.ThreadSingle && mpi.Thread() >= mpi.ThreadSingle,
		"Init: granted %v, requested %v; want single", mpi.Thread(), mpi.ThreadRequested())
	k.ok(strings.HasPrefix(mpi.ThreadProvided(), "MPI_THREAD_"), "provided level %q", mpi.ThreadProvided())
	send, recv := []float64{1}, make([]float64, 1)
	o := &mpi.Observation{Call: mpi.CallAllreduce, Send: mpi.Bytes(send), Recv: mpi.Bytes(recv), Count: 1,
		Type: mpi.Float64, Op: mpi.Sum, Sync: mpi.SyncBarrier, Reps: 20, TimeEach: true}
	clk := timing.NewMonotonic()
	// The main goroutine is locked to its thread by Init, so this
	// goroutine runs on another OS thread: both paths must refuse.
	errs := make(chan error, 2)
	go func() {
		errs <- w.Observe(o, clk)
		errs <- mpi.ObserveBatch(w, o, clk, nil, make([]timing.Ticks, 2), make([]timing.Ticks, 2))
	}()
	for i := range 2 {
		err := <-errs
		k.ok(err != nil && strings.Contains(err.Error(), "thread"), "observe path %d from another thread: %v", i, err)
	}
	// TimeEach: End − Start is the sum of the 20 calls' durations, the
	// barriers after them excluded, so below the wall time around it.
	before := clk.Now()
	k.noErr(w.Observe(o, clk), "observe TimeEach")
	wall := clk.Now() - before
	k.ok(o.End > o.Start && o.End-o.Start < wall, "TimeEach: sum %d ticks, wall %d", o.End-o.Start, wall)
	k.ok(recv[0] == float64(w.Size()), "TimeEach allreduce result %v", recv[0])
}
