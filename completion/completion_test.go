package completion_test

import (
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/reprobench/reprobench/completion"
	"github.com/reprobench/reprobench/internal/completionref"
	"github.com/reprobench/reprobench/mpi"
	"github.com/reprobench/reprobench/mpi/mpitest"
)

func TestLoopCompletion(t *testing.T) {
	// Two ranks, 4 calls: rank 0 took 8 µs, rank 1 12 µs in total.
	dur := []float64{8e-6, 12e-6}
	for _, c := range []struct {
		rt       completion.Type
		pingpong bool
		want     float64
	}{
		{completion.Loop, false, 3e-6}, // IMB's t_max: max over ranks of dur/n
		{completion.Loop, true, 3e-6},
		{completion.IMB, false, 2.5e-6}, // t_avg: mean over ranks of dur/n
		{completion.OSU, false, 2.5e-6}, // mean over ranks of (sum of call times)/n
		{completion.IMB, true, 1.5e-6},  // IMB PingPong: the larger of the pair's dur/(2n)
		{completion.OSU, true, 1e-6},    // osu_latency: root's dur/(2n)
	} {
		if got := completionref.Loop(c.rt, dur, 4, c.pingpong, 0); math.Abs(got-c.want) > 1e-15 {
			t.Errorf("LoopCompletion(%v, pingpong %v) = %g, want %g", c.rt, c.pingpong, got, c.want)
		}
	}
	if got := completionref.Loop(completion.OSU, dur, 4, true, 1); math.Abs(got-1.5e-6) > 1e-15 {
		t.Errorf("ping-pong rooted at rank 1: %g, want the root's 1.5e-6", got)
	}
	for i, bad := range []func(){
		func() { completionref.Loop(completion.Local, dur, 4, false, 0) },
		func() { completionref.Loop(completion.OSU, dur, 0, false, 0) },
		func() { completionref.Loop(completion.IMB, dur, 4, true, 2) },
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("case %d: no panic for invalid arguments", i)
				}
			}()
			bad()
		}()
	}
}

func TestRuntimeTypeModes(t *testing.T) {
	for name, want := range map[string]completion.Type{"osu": completion.OSU, "IMB": completion.IMB, "loop_avg": completion.Loop} {
		if got, err := completion.ParseType(name); err != nil || got != want {
			t.Errorf("ParseType(%q) = %v, %v", name, got, err)
		}
	}
	for _, c := range []struct {
		rt   completion.Type
		call mpi.Call
		each bool
	}{
		{completion.OSU, mpi.CallAllreduce, true}, {completion.OSU, mpi.CallPingPong, true}, // osu_latency 7: each round trip
		{completion.OSU, mpi.CallBW, true}, {completion.OSU, mpi.CallPut, false},
		{completion.IMB, mpi.CallAllreduce, true}, {completion.IMB, mpi.CallPingPong, false}, // IMB PingPong: the loop
		{completion.IMB, mpi.CallBW, false}, {completion.Loop, mpi.CallAllreduce, false}, {completion.Local, mpi.CallAllreduce, false},
	} {
		if got := c.rt.TimesEach(c.call); got != c.each {
			t.Errorf("%v.TimesEach(%v) = %v, want %v", c.rt, c.call, got, c.each)
		}
	}
	if mpi.CallPingPong.EachBarrier() || mpi.CallBW.EachBarrier() || !mpi.CallAllreduce.EachBarrier() || !mpi.CallIallreduce.EachBarrier() {
		t.Error("EachBarrier: a barrier after collectives only")
	}
	for rt, want := range map[completion.Type]bool{completion.Local: false, completion.Global: false,
		completion.Loop: true, completion.OSU: true, completion.IMB: true} {
		if rt.Loops() != want {
			t.Errorf("%v.Loops() = %v", rt, !want)
		}
	}
	if got := completion.TypeNames(); len(got) != 5 || got[3] != "osu" || got[4] != "imb" {
		t.Errorf("names %v", got)
	}
}

// TestOSUTimeEachGroundTruth checks OSU's per-call timing in virtual time
// (exact network, 1 µs per message): one TimeEach observation of n calls —
// barrier, then n × (t0; call; t1; barrier) — reports the sum of the calls'
// durations: at least n × 1 µs (each allreduce waits for a message), less
// than the wall time of the observation (the barriers are not counted), and
// different from the back-to-back loop of the same n calls, whose wall time
// has no barriers at all.
func TestOSUTimeEachGroundTruth(t *testing.T) {
	net := mpitest.Latency{Base: time.Microsecond, Jitter: mpitest.Off, SpikeProb: mpitest.Off, BytesPerSecond: mpitest.Off}
	w, err := mpitest.New(mpitest.Config{Ranks: 4, Latency: net, Clock: mpitest.ClockDist{Offset: mpitest.Off, DriftPPM: mpitest.Off}})
	if err != nil {
		t.Fatal(err)
	}
	const n = 5
	err = w.Run(func(r *mpitest.Rank) error {
		c, clk := r.Comm(), r.Clock()
		o := &mpi.Observation{Call: mpi.CallAllreduce, Count: 1, Type: mpi.Float64, Op: mpi.Sum,
			Send: make([]byte, 8), Recv: make([]byte, 8), Sync: mpi.SyncBarrier, Reps: n}
		t0 := clk.Now()
		if err := c.Observe(o, clk); err != nil {
			return err
		}
		loopWall := clk.Now() - t0
		o.TimeEach = true
		t0 = clk.Now()
		if err := c.Observe(o, clk); err != nil {
			return err
		}
		eachWall := clk.Now() - t0
		sum := o.End - o.Start
		if sum < n*1000 || sum >= eachWall {
			return fmt.Errorf("rank %d: TimeEach sum %d ticks, want in [%d, wall %d)", r.ID(), sum, n*1000, eachWall)
		}
		if eachWall <= loopWall {
			return fmt.Errorf("rank %d: TimeEach wall %d not above the back-to-back wall %d: barriers missing", r.ID(), eachWall, loopWall)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
