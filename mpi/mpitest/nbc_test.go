package mpitest

import (
	"math"
	"strings"
	"testing"

	"github.com/reprobench/reprobench/mpi"
	"github.com/reprobench/reprobench/mpi/internal/elem"
	"github.com/reprobench/reprobench/timing"
)

// nbcObserve runs one observation of call on a fresh world of p ranks with
// seed 7 and returns each rank's observation; every rank's send buffer
// holds distinct values (rank·100 + element index + 1).
func nbcObserve(t *testing.T, cfg Config, call mpi.Call, setup func(o *mpi.Observation)) []mpi.Observation {
	t.Helper()
	w, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	p := cfg.Ranks
	obs := make([]mpi.Observation, p)
	const count = 3
	err = w.Run(func(r *Rank) error {
		o := &obs[r.ID()]
		s, rb := mpi.BufferSizes(call, count, mpi.Float64, p)
		if call == mpi.CallBcast || call == mpi.CallIbcast {
			rb = max(rb, s)
		}
		*o = mpi.Observation{Call: call, Count: count, Type: mpi.Float64, Op: mpi.Sum, Root: 1, Peer: 2,
			Send: make([]byte, s), Recv: make([]byte, rb)}
		for i := range s / 8 {
			elem.Put(mpi.Float64, o.Send, i, float64(r.ID()*100+i+1))
		}
		if setup != nil {
			setup(o)
		}
		return r.Comm().Observe(o, r.Clock())
	})
	if err != nil {
		t.Fatalf("%v: %v", call, err)
	}
	return obs
}

// TestNBCMatchesBlocking: every non-blocking collective's result equals
// its blocking twin's, element by element, on every rank, and its virtual
// time (post, then wait) is the blocking call's exactly, in both progress
// models, alone and in a loop.
func TestNBCMatchesBlocking(t *testing.T) {
	if len(mpi.NonBlockingCalls()) != 10 {
		t.Fatalf("%d non-blocking calls, want 10", len(mpi.NonBlockingCalls()))
	}
	for _, prog := range []Progress{ProgressInWait, ProgressAsync} {
		for _, nb := range mpi.NonBlockingCalls() {
			b, ok := nb.Blocking()
			if !ok || b.NonBlocking() || !strings.HasPrefix(nb.String(), "MPI_I") {
				t.Fatalf("%v: blocking twin %v", nb, b)
			}
			if nb.Reduces() != b.Reduces() {
				t.Errorf("%v reduces %v, %v reduces %v", nb, nb.Reduces(), b, b.Reduces())
			}
			cfg := Config{Ranks: 4, Seed: 7, Progress: prog}
			reps := func(o *mpi.Observation) { o.Reps = 3 }
			got := nbcObserve(t, cfg, nb, reps)
			want := nbcObserve(t, cfg, b, reps)
			for r := range got {
				g, w := got[r], want[r]
				if len(g.Recv) != len(w.Recv) {
					t.Fatalf("%v rank %d: receive buffer %d bytes, blocking %d", nb, r, len(g.Recv), len(w.Recv))
				}
				for i := range len(g.Recv) / 8 {
					if gv, wv := elem.Get(mpi.Float64, g.Recv, i), elem.Get(mpi.Float64, w.Recv, i); gv != wv {
						t.Errorf("%v (%v) rank %d element %d: %v, blocking %v", nb, prog, r, i, gv, wv)
					}
				}
				for i := range len(g.Send) / 8 { // Bcast's buffer is Send
					if gv, wv := elem.Get(mpi.Float64, g.Send, i), elem.Get(mpi.Float64, w.Send, i); gv != wv {
						t.Errorf("%v (%v) rank %d send element %d: %v, blocking %v", nb, prog, r, i, gv, wv)
					}
				}
				if g.Start != w.Start || g.End != w.End {
					t.Errorf("%v (%v) rank %d: [%d, %d], blocking [%d, %d]", nb, prog, r, g.Start, g.End, w.Start, w.End)
				}
			}
		}
	}
}

// TestNBCLatencyModel checks MPI_Iallreduce's virtual time against the
// latency model by hand: 2 ranks, 1 µs per message, 20 ns per clock read,
// reduce to rank 0 then broadcast. Rank 1 sends at 20 ns (after its start
// read), rank 0 receives at 1020 ns and sends back, rank 1 receives at
// 2020 ns.
func TestNBCLatencyModel(t *testing.T) {
	obs := nbcObserve(t, Config{Ranks: 2, Latency: exactNet, Clock: perfectClocks}, mpi.CallIallreduce,
		func(o *mpi.Observation) { o.Root = 0; o.Peer = 1 })
	if o := obs[0]; o.Start != 0 || o.End != 1020 {
		t.Errorf("rank 0: [%d, %d], want [0, 1020]", o.Start, o.End)
	}
	if o := obs[1]; o.Start != 0 || o.End != 2020 {
		t.Errorf("rank 1: [%d, %d], want [0, 2020]", o.Start, o.End)
	}
	if got, want := elem.Get(mpi.Float64, obs[0].Recv, 2), float64(3+103); got != want {
		t.Errorf("sum %v, want %v", got, want)
	}
}

// rankMeanOverlap returns the rank means of pure, compute and total (ticks)
// and the overlap computed from them (the engine's definition).
func rankMeanOverlap(obs []mpi.Observation) (pure, compute, total, overlap float64) {
	for _, o := range obs {
		pure += float64(o.Pure)
		compute += float64(o.Compute)
		total += float64(o.End - o.Start)
	}
	n := float64(len(obs))
	pure, compute, total = pure/n, compute/n, total/n
	return pure, compute, total, mpi.Overlap(pure, compute, total)
}

// TestNBCOverlapModels: with a kernel twice as long as the collective, the
// overlap is about 0 when progress happens only in MPI_Wait and about 1
// with an asynchronous progress engine; the compute time is the kernel's
// (KernelIters × kernelIterTime plus one clock read) in both, and the
// pure phase is the latency measurement's time.
func TestNBCOverlapModels(t *testing.T) {
	for _, tc := range []struct {
		prog     Progress
		each     bool
		min, max float64
	}{
		{ProgressInWait, false, 0, 0.05},
		{ProgressInWait, true, 0, 0.05},
		{ProgressAsync, false, 0.95, 1},
		{ProgressAsync, true, 0.95, 1},
	} {
		const iters, reps = 8000, 4
		cfg := Config{Ranks: 4, Seed: 3, Progress: tc.prog, Latency: Latency{SpikeProb: Off}, Clock: perfectClocks}
		obs := nbcObserve(t, cfg, mpi.CallIallreduce, func(o *mpi.Observation) {
			o.Overlap, o.KernelIters, o.TestEvery, o.Reps, o.TimeEach, o.Sync = true, iters, 100, reps, tc.each, mpi.SyncBarrier
		})
		pure, compute, total, ov := rankMeanOverlap(obs)
		if ov < tc.min || ov > tc.max {
			t.Errorf("%v each=%v: overlap %.3f outside [%v, %v] (pure %.0f, compute %.0f, total %.0f ns)",
				tc.prog, tc.each, ov, tc.min, tc.max, pure, compute, total)
		}
		for r, o := range obs {
			if want := timing.Ticks(reps * (iters + 20)); o.Compute != want {
				t.Errorf("%v rank %d: compute %d ticks, want %d", tc.prog, r, o.Compute, want)
			}
			if o.Pure <= 0 || o.End-o.Start < o.Compute {
				t.Errorf("%v rank %d: pure %d, total %d < compute %d", tc.prog, r, o.Pure, o.End-o.Start, o.Compute)
			}
		}
		// Pure phase = the latency measurement: Reps post+wait after a
		// barrier, the result as the blocking call's.
		if got := elem.Get(mpi.Float64, obs[2].Recv, 0); got != 1+101+201+301 {
			t.Errorf("%v: result %v", tc.prog, got)
		}
		if tc.prog == ProgressInWait && !tc.each {
			// Nothing moves before the wait: each rank's total is at
			// least its kernel plus one message latency (1 µs).
			for r, o := range obs {
				if o.End-o.Start < o.Compute+1000 {
					t.Errorf("rank %d: total %d < compute %d + 1 µs", r, o.End-o.Start, o.Compute)
				}
			}
		}
	}
}

func TestNBCOverlapRefusals(t *testing.T) {
	w, _ := New(Config{Ranks: 2})
	err := w.Run(func(r *Rank) error {
		for _, tc := range []struct {
			o    mpi.Observation
			want string
		}{
			{mpi.Observation{Call: mpi.CallAllreduce, Overlap: true}, "non-blocking"},
			{mpi.Observation{Call: mpi.CallIbarrier, Overlap: true, Sync: mpi.SyncDeadline}, "deadline"},
			{mpi.Observation{Call: mpi.CallIbarrier, Overlap: true, KernelIters: -1}, "negative"},
		} {
			o := tc.o
			o.Type = mpi.Float64
			err := r.Comm().Observe(&o, r.Clock())
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("%+v: error %v, want one mentioning %q", tc.o, err, tc.want)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if v := mpi.Overlap(0, 1, 2); !math.IsNaN(v) {
		t.Errorf("Overlap with pure 0 = %v, want NaN", v)
	}
	if v := mpi.Overlap(10, 10, 10); v != 1 {
		t.Errorf("full overlap = %v", v)
	}
	if v := mpi.Overlap(10, 10, 25); v != 0 {
		t.Errorf("no overlap clamps to %v", v)
	}
	if v := mpi.Overlap(10, 10, 15); v != 0.5 {
		t.Errorf("half overlap = %v", v)
	}
}

// TestNBCTimedKernel: OSU's time-targeted kernel (TimedKernel) aims, on
// each rank and per call, at that rank's mean pure time of the same
// observation, Pure/Reps, and overshoots it as OSU's loop does: it stops at
// the first pass whose timed sum reaches the target, and the clock reads
// between passes are not counted. With perfect clocks (a read costs
// DefaultOverhead) each call's kernel is n passes with n the smallest count
// for which n × (osuPassTime + one read) reaches the target, so the
// compute time per call is known exactly up to one read; with P probes each
// of the P parts aims at target/P.
func TestNBCTimedKernel(t *testing.T) {
	pass, read := timing.Ticks(osuPassTime), timing.Ticks(DefaultOverhead)
	for _, probes := range []int64{0, 3} {
		const reps = 4
		cfg := Config{Ranks: 4, Seed: 3, Progress: ProgressInWait, Latency: Latency{SpikeProb: Off}, Clock: perfectClocks}
		obs := nbcObserve(t, cfg, mpi.CallIallreduce, func(o *mpi.Observation) {
			o.Overlap, o.TimedKernel, o.TestEvery, o.Reps, o.TimeEach, o.Sync = true, true, probes, reps, true, mpi.SyncBarrier
		})
		for r, o := range obs {
			target := o.Pure / timing.Ticks(reps)
			parts := timing.Ticks(max(probes, 1))
			n := timing.Ticks(0) // passes per call
			for range parts {
				k := (target/parts + pass + read - 1) / (pass + read)
				n += max(k, 0)
			}
			c := o.Compute / timing.Ticks(reps)
			lo, hi := n*(pass+2*read), n*(pass+2*read)+2*read
			if target < 1000 || c < lo || c > hi {
				t.Errorf("probes %d rank %d: compute %d ns per call, want %d passes: [%d, %d] (target %d ns)",
					probes, r, c, n, lo, hi, target)
			}
			if c <= target {
				t.Errorf("probes %d rank %d: compute %d ns per call does not overshoot its target %d ns", probes, r, c, target)
			}
		}
	}
	// A fixed iteration count and the time target exclude each other.
	w, _ := New(Config{Ranks: 2})
	err := w.Run(func(r *Rank) error {
		o := mpi.Observation{Call: mpi.CallIbarrier, Type: mpi.Float64, Overlap: true, TimedKernel: true, KernelIters: 10}
		if err := r.Comm().Observe(&o, r.Clock()); err == nil || !strings.Contains(err.Error(), "time-targeted") {
			t.Errorf("TimedKernel with KernelIters: %v", err)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
