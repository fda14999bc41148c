// Command p2pcheck exercises the bandwidth (bw, bibw, mbw_mr) and
// one-sided (MPI_Put, MPI_Get, MPI_Accumulate under fence, lock and flush)
// observations of the mpi binding under a real mpirun, checking results
// element by element: the receive buffers after a bandwidth window, the
// target's window after Put and Accumulate, the origin's buffer after Get.
// It runs every process synchronization, the Go path (a clock C cannot
// read) and a batch, and checks that unprepared calls and mbw_mr on an odd
// number of ranks are refused. Each rank prints "rank R/P: ok N checks".
package main

import (
	"encoding/binary"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/reprobench/reprobench/mpi"
	"github.com/reprobench/reprobench/timing"
)

type checker struct {
	rank, size int
	n, failed  int
}

func (k *checker) ok(cond bool, format string, args ...any) {
	k.n++
	if !cond {
		k.failed++
		fmt.Fprintf(os.Stderr, "rank %d/%d: FAIL: %s\n", k.rank, k.size, fmt.Sprintf(format, args...))
	}
}

// goClock is a monotonic clock that C cannot read, forcing Observe's Go path.
type goClock struct{ timing.Clock }

func (goClock) Source() timing.Source { return timing.Source{} }

func main() {
	if err := mpi.Init(); err != nil {
		fmt.Fprintln(os.Stderr, "p2pcheck:", err)
		os.Exit(1)
	}
	w := mpi.World()
	k := &checker{rank: w.Rank(), size: w.Size()}
	clocks := []timing.Clock{timing.NewMonotonic(), goClock{timing.NewMonotonic()}}
	if len(os.Args) > 1 && os.Args[1] == "-quick" {
		// Oversubscribed runs: MPICH's busy-polling ranks make every
		// step slow; the C path only.
		clocks = clocks[:1]
	}
	for _, clk := range clocks {
		for sync := mpi.SyncNone; sync <= mpi.SyncDeadline; sync++ {
			for _, call := range []mpi.Call{mpi.CallBW, mpi.CallBiBW, mpi.CallMBWMR} {
				if call == mpi.CallMBWMR && w.Size()%2 == 1 {
					continue // refused: see refusals
				}
				bandwidth(k, w, call, sync, clk)
			}
			for _, call := range []mpi.Call{mpi.CallPut, mpi.CallGet, mpi.CallAccumulate} {
				for _, rs := range mpi.RMASyncs() {
					oneSided(k, w, call, rs, sync, clk)
				}
			}
		}
	}
	refusals(k, w)
	var bad [1]int64
	err := mpi.Allreduce(w, []int64{int64(k.failed)}, bad[:], mpi.Sum)
	k.ok(err == nil, "final allreduce: %v", err)
	if err := mpi.Finalize(); err != nil {
		fmt.Fprintln(os.Stderr, "p2pcheck: finalize:", err)
		os.Exit(1)
	}
	if bad[0] != 0 || k.failed != 0 {
		fmt.Printf("rank %d/%d: FAILED %d of %d checks (%d failures job-wide)\n", k.rank, k.size, k.failed, k.n, bad[0])
		os.Exit(1)
	}
	fmt.Printf("rank %d/%d: ok %d checks\n", k.rank, k.size, k.n)
}

// observation returns an observation of call with int64 buffers of count
// elements: rank r sends 1000·(r+1)+i in element i; the receive buffer is
// filled with −1.
func observation(w mpi.Comm, call mpi.Call, count int, sync mpi.SyncKind, clk timing.Clock) (*mpi.Observation, []int64, []int64) {
	r, p := w.Rank(), w.Size()
	send, recv := make([]int64, count), make([]int64, count)
	for i := range send {
		send[i] = int64(1000*(r+1) + i)
		recv[i] = -1
	}
	o := &mpi.Observation{Call: call, Send: mpi.Bytes(send), Recv: mpi.Bytes(recv), Count: count, Type: mpi.Int64,
		Op: mpi.Sum, Root: 0, Peer: p - 1, Reps: 3, Sync: sync, BWWindow: 5}
	if sync == mpi.SyncDeadline {
		o.Deadline = clk.Now() + clk.Freq().Ticks(2*time.Millisecond)
	}
	return o, send, recv
}

func sent(r, i int) int64 { return int64(1000*(r+1) + i) }

func bandwidth(k *checker, w mpi.Comm, call mpi.Call, sync mpi.SyncKind, clk timing.Clock) {
	r, p := w.Rank(), w.Size()
	what := fmt.Sprintf("%v sync %v clock %s", call, sync, clk.Name())
	const count = 1000 // 8000 bytes: above the eager limits
	o, _, recv := observation(w, call, count, sync, clk)
	release, err := mpi.Prepare(w, o)
	if !k.okErr(err, "prepare "+what) {
		return
	}
	err = w.Observe(o, clk)
	k.ok(err == nil, "observe %s: %v", what, err)
	k.ok(o.End >= o.Start, "%s: end %d < start %d", what, o.End, o.Start)
	// Who received from whom.
	from := -1
	switch call {
	case mpi.CallBW:
		if r == p-1 {
			from = 0
		}
	case mpi.CallBiBW:
		if r == 0 {
			from = p - 1
		} else if r == p-1 {
			from = 0
		}
	case mpi.CallMBWMR:
		if r >= p/2 {
			from = r - p/2
		}
	}
	for i := range recv {
		want := int64(-1)
		if from >= 0 {
			want = sent(from, i)
		}
		if recv[i] != want {
			k.ok(false, "%s: element %d = %d, want %d", what, i, recv[i], want)
			break
		}
	}
	k.ok(true, "%s elements", what)
	// A batch of 4 observations in one call.
	starts, ends := make([]timing.Ticks, 4), make([]timing.Ticks, 4)
	var dl []timing.Ticks
	if sync == mpi.SyncDeadline {
		t0 := clk.Now() + clk.Freq().Ticks(2*time.Millisecond)
		dl = []timing.Ticks{t0, t0 + clk.Freq().Ticks(time.Millisecond), t0 + clk.Freq().Ticks(2*time.Millisecond), t0 + clk.Freq().Ticks(3*time.Millisecond)}
	}
	k.okErr(mpi.ObserveBatch(w, o, clk, dl, starts, ends), "batch "+what)
	for i := range starts {
		k.ok(ends[i] >= starts[i] && (i == 0 || starts[i] >= ends[i-1]), "%s batch %d: [%d,%d]", what, i, starts[i], ends[i])
	}
	k.okErr(release(), "release "+what)
}

func (k *checker) okErr(err error, what string) bool {
	k.ok(err == nil, "%s: %v", what, err)
	return err == nil
}

func oneSided(k *checker, w mpi.Comm, call mpi.Call, rs mpi.RMASync, sync mpi.SyncKind, clk timing.Clock) {
	r, p := w.Rank(), w.Size()
	what := fmt.Sprintf("%v %v sync %v clock %s", call, rs, sync, clk.Name())
	const count = 64
	o, _, recv := observation(w, call, count, sync, clk)
	o.RMASync = rs
	release, err := mpi.Prepare(w, o)
	if !k.okErr(err, "prepare "+what) {
		return
	}
	win := mpi.WindowBytes(w)
	k.ok(len(win) == 8*count, "%s: window of %d bytes, want %d", what, len(win), 8*count)
	if r == p-1 && call == mpi.CallGet {
		// The target's window holds what Get must fetch. The barrier
		// below orders this store before the origin's first Get.
		for i := 0; i < count; i++ {
			binary.NativeEndian.PutUint64(win[8*i:], uint64(sent(p-1, i)*7))
		}
	}
	k.okErr(w.Barrier(), "barrier "+what)
	err = w.Observe(o, clk)
	k.ok(err == nil, "observe %s: %v", what, err)
	k.ok(o.End >= o.Start, "%s: end %d < start %d", what, o.End, o.Start)
	reps := int64(o.Reps)
	// Every synchronization completes the operations at the target
	// before the origin's call returns (fence, unlock, flush); a barrier
	// orders that before the target reads its window.
	k.okErr(w.Barrier(), "barrier after "+what)
	if r == p-1 && call != mpi.CallGet {
		for i := range count {
			v := int64(binary.NativeEndian.Uint64(win[8*i:]))
			want := sent(0, i)
			if call == mpi.CallAccumulate {
				want *= reps
			}
			if v != want {
				k.ok(false, "%s: target window element %d = %d, want %d", what, i, v, want)
				break
			}
		}
		k.ok(true, "%s target window", what)
	}
	if r == 0 && call == mpi.CallGet {
		for i := range recv {
			if recv[i] != sent(p-1, i)*7 {
				k.ok(false, "%s: origin element %d = %d, want %d", what, i, recv[i], sent(p-1, i)*7)
				break
			}
		}
	}
	k.okErr(release(), "release "+what)
	k.ok(mpi.WindowBytes(w) == nil, "%s: window still held after release", what)
}

func refusals(k *checker, w mpi.Comm) {
	p := w.Size()
	clk := timing.NewMonotonic()
	o, _, _ := observation(w, mpi.CallBW, 8, mpi.SyncBarrier, clk)
	err := w.Observe(o, clk)
	k.ok(err != nil && strings.Contains(err.Error(), "Prepare"), "unprepared bw must be refused, got %v", err)
	o.Call = mpi.CallPut
	err = w.Observe(o, clk)
	k.ok(err != nil && strings.Contains(err.Error(), "Prepare"), "unprepared MPI_Put must be refused, got %v", err)
	o.Call = mpi.CallAccumulate
	o.Type, o.Count = mpi.Byte, 8
	_, err = mpi.Prepare(w, o)
	k.ok(err != nil, "MPI_Accumulate on bytes must be refused")
	if p%2 == 1 {
		o, _, _ := observation(w, mpi.CallMBWMR, 8, mpi.SyncBarrier, clk)
		_, err := mpi.Prepare(w, o)
		k.ok(err != nil && strings.Contains(err.Error(), "even"), "mbw_mr on %d ranks must be refused, got %v", p, err)
	}
}
