package mpitest

import (
	"errors"
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"runtime"
	"testing"
	"time"

	"github.com/reprobench/reprobench/mpi"
	"github.com/reprobench/reprobench/mpi/internal/elem"
	"github.com/reprobench/reprobench/timing"
)

var exactNet = Latency{Base: time.Microsecond, Jitter: Off, SpikeProb: Off, BytesPerSecond: Off}
var perfectClocks = ClockDist{Offset: Off, DriftPPM: Off}

func TestObservePingPong(t *testing.T) {
	w, _ := New(Config{Ranks: 3, Latency: exactNet, Clock: perfectClocks})
	obs := make([]mpi.Observation, 3)
	err := w.Run(func(r *Rank) error {
		o := &obs[r.ID()]
		*o = mpi.Observation{Call: mpi.CallPingPong, Count: 4, Type: mpi.Float64, Root: 0, Peer: 2, Reps: 3,
			Send: make([]byte, 32), Recv: make([]byte, 32)}
		switch r.ID() {
		case 0:
			elem.Put(mpi.Float64, o.Send, 3, 42)
		case 2:
			elem.Put(mpi.Float64, o.Send, 3, 7)
		}
		return r.Comm().Observe(o, r.Clock())
	})
	if err != nil {
		t.Fatal(err)
	}
	// Root: start read at 0 (costs 20 ns), 3 round trips of 2 µs.
	if o := obs[0]; o.Start != 0 || o.End != 6020 {
		t.Errorf("root: start %d end %d, want 0 and 6020", o.Start, o.End)
	}
	if got := elem.Get(mpi.Float64, obs[2].Recv, 3); got != 42 {
		t.Errorf("peer received %v", got)
	}
	// As rb_pingpong_call: the peer answers with its own send buffer.
	if got := elem.Get(mpi.Float64, obs[0].Recv, 3); got != 7 {
		t.Errorf("root got back %v, want the peer's 7", got)
	}
	if o := obs[1]; o.End-o.Start != 20 {
		t.Errorf("bystander: %d ticks, want one read", o.End-o.Start)
	}
	if w.Messages() != 6 {
		t.Errorf("%d messages", w.Messages())
	}
}

func TestObserveDeadline(t *testing.T) {
	w, _ := New(Config{Ranks: 4, Seed: 4, Clock: ClockDist{WanderPPM: 0.5}})
	err := w.Run(func(r *Rank) error {
		clk := r.Clock()
		// Start 2.5 s of local time from now, with a reduction.
		deadline := clk.Now() + 2_500_000_000 + timing.Ticks(r.ID())*1000
		o := &mpi.Observation{Call: mpi.CallAllreduce, Count: 1, Type: mpi.Int64, Op: mpi.Max,
			Send: make([]byte, 8), Recv: make([]byte, 8), Sync: mpi.SyncDeadline, Deadline: deadline}
		elem.Put(mpi.Int64, o.Send, 0, float64(r.ID()))
		before := r.TrueNow()
		if err := r.Comm().Observe(o, clk); err != nil {
			return err
		}
		// The start is the read after the first read ≥ deadline.
		ov := timing.Ticks(w.Params(r.ID()).Overhead)
		if o.Start < deadline+ov-1 || o.Start > deadline+2*ov+1 {
			return fmt.Errorf("rank %d: start %d, deadline %d", r.ID(), o.Start, deadline)
		}
		if d := r.TrueNow() - before; d < 2.49 || d > 2.51 {
			return fmt.Errorf("waited %v s of true time", d)
		}
		if o.End <= o.Start || elem.Get(mpi.Int64, o.Recv, 0) != 3 {
			return fmt.Errorf("end %d start %d result %v", o.End, o.Start, elem.Get(mpi.Int64, o.Recv, 0))
		}
		// A deadline in the past starts at once.
		o.Deadline = 0
		t0 := r.TrueNow()
		if err := r.Comm().Observe(o, clk); err != nil {
			return err
		}
		if r.TrueNow()-t0 > 1e-3 {
			return errors.New("past deadline waited")
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func TestObserveCalls(t *testing.T) {
	const p, count = 6, 3 // p2p: even, for mbw_mr
	for _, call := range mpi.Calls() {
		for _, sync := range []mpi.SyncKind{mpi.SyncNone, mpi.SyncBarrier, mpi.SyncDoubleBarrier, mpi.SyncDissemination} {
			w, _ := New(Config{Ranks: p, Seed: 8})
			err := w.Run(func(r *Rank) error {
				dt := mpi.Float32
				if call == mpi.CallBcast || call == mpi.CallPingPong || call == mpi.CallGather {
					dt = mpi.Byte
				}
				s, rv := mpi.BufferSizes(call, count, dt, p)
				o := &mpi.Observation{Call: call, Count: count, Type: dt, Op: mpi.Sum, Root: 1, Peer: 3, Reps: 2,
					Sync: sync, Send: make([]byte, s), Recv: make([]byte, rv)}
				release, err := mpi.Prepare(r.Comm(), o) // p2p: bandwidth and one-sided calls need it
				if err != nil {
					return err
				}
				defer release()
				if err := r.Comm().Observe(o, r.Clock()); err != nil {
					return err
				}
				if o.End <= o.Start {
					return fmt.Errorf("%v/%v: end %d ≤ start %d", call, sync, o.End, o.Start)
				}
				return nil
			})
			if err != nil {
				t.Errorf("%v/%v: %v", call, sync, err)
			}
		}
	}
	// Invalid observations are *mpi.Error.
	w, _ := New(Config{Ranks: 2})
	err := w.Run(func(r *Rank) error {
		o := &mpi.Observation{Call: mpi.CallPingPong, Root: 0, Peer: 0}
		var me *mpi.Error
		if err := r.Comm().Observe(o, r.Clock()); !errors.As(err, &me) {
			return fmt.Errorf("got %v", err)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// workload exercises clocks, jitter, wander, Test, Observe, collectives
// with timing-dependent data and sub-communicators, and returns a digest of
// everything every rank saw.
func workload(t *testing.T, perturb bool) (uint64, int64) {
	const p = 8
	w, err := New(Config{Ranks: p, Seed: 77, RanksPerNode: 3, Clock: ClockDist{WanderPPM: 0.3},
		Latency: Latency{InterNode: &Latency{Base: 3 * time.Microsecond}}})
	if err != nil {
		t.Fatal(err)
	}
	digests := make([]uint64, p)
	err = w.Run(func(r *Rank) error {
		h := fnv.New64a()
		rec := func(v float64) {
			var b [8]byte
			elem.Put(mpi.Float64, b[:], 0, v)
			h.Write(b[:])
		}
		yield := func() {
			if perturb && rand.IntN(3) == 0 {
				runtime.Gosched()
			}
		}
		c, clk := r.Comm(), r.Clock()
		me := c.Rank()
		for it := range 20 {
			yield()
			// Timestamps travel through collectives.
			ts := []float64{float64(clk.Now()), r.TrueNow()}
			sum := make([]float64, 2)
			if err := mpi.Allreduce(c, ts, sum, mpi.Sum); err != nil {
				return err
			}
			rec(sum[0])
			rec(sum[1])
			// Ring with a non-blocking receive polled with Test.
			b := make([]byte, 8)
			q, err := c.Irecv(b, (me+p-1)%p, it)
			if err != nil {
				return err
			}
			yield()
			r.Sleep(time.Duration(me*100) * time.Nanosecond)
			if err := c.SendFloat64(r.TrueNow(), (me+1)%p, it); err != nil {
				return err
			}
			polls := 0
			for {
				ok, err := q.Test()
				if err != nil {
					return err
				}
				if ok {
					break
				}
				polls++
				clk.Now()
			}
			rec(float64(polls))
			rec(elem.Get(mpi.Float64, b, 0))
			// Observations with every sync kind.
			o := &mpi.Observation{Call: mpi.Call(it % 12), Count: 2, Type: mpi.Float64, Root: it % p, Peer: (it + 1) % p,
				Sync: mpi.SyncKind(it % 5), Deadline: clk.Now() + 5000, Send: make([]byte, 16*p), Recv: make([]byte, 16*p)}
			elem.Put(mpi.Float64, o.Send, 0, r.TrueNow())
			if err := c.Observe(o, clk); err != nil {
				return err
			}
			rec(float64(o.Start))
			rec(float64(o.End))
			rec(elem.Get(mpi.Float64, o.Recv, 0))
			yield()
		}
		node, err := c.SplitShared()
		if err != nil {
			return err
		}
		x := []float64{r.TrueNow()}
		y := []float64{0}
		if err := mpi.Allreduce(node, x, y, mpi.Max); err != nil {
			return err
		}
		rec(y[0])
		rec(r.TrueNow())
		digests[me] = h.Sum64()
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	var d uint64
	for _, x := range digests {
		d = mix(d ^ x)
	}
	return d, w.Messages()
}

func TestDeterminism(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	var ref uint64
	var refMsgs int64
	for i, procs := range []int{1, 2, 8, 1, 8} {
		runtime.GOMAXPROCS(procs)
		d, n := workload(t, i > 0)
		if i == 0 {
			ref, refMsgs = d, n
			continue
		}
		if d != ref || n != refMsgs {
			t.Errorf("GOMAXPROCS=%d: digest %x (%d messages), want %x (%d)", procs, d, n, ref, refMsgs)
		}
	}
	if refMsgs < 8*20*3 {
		t.Fatal("empty workload")
	}
}

// frozen is a clock that never advances.
type frozen struct{ timing.Clock }

func (frozen) Now() timing.Ticks { return 0 }

func TestObserveFrozenClock(t *testing.T) {
	w, _ := New(Config{Ranks: 1})
	err := w.Run(func(r *Rank) error {
		o := &mpi.Observation{Call: mpi.CallBarrier, Sync: mpi.SyncDeadline, Deadline: 1000}
		err := r.Comm().Observe(o, frozen{r.Clock()})
		var me *mpi.Error
		if !errors.As(err, &me) {
			return fmt.Errorf("got %v", err)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
