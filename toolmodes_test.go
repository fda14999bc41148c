package reprobench_test

import (
	"testing"

	"github.com/reprobench/reprobench"
	"github.com/reprobench/reprobench/completion"
	"github.com/reprobench/reprobench/mpi"
	"github.com/reprobench/reprobench/window"
)

// TestToolRuntimeTypes checks the osu and imb runtime types on simulated
// ranks: each row is the number the tool would print for one run of its
// loop, recomputed here from the per-rank timestamps — the average over
// ranks of (end − start)/n for collectives (with osu and imb, end − start
// is the sum of the n separately timed calls), the root's (end − start)/(2n)
// for osu_latency's ping-pong and the larger of the pair's for IMB's.
func TestToolRuntimeTypes(t *testing.T) {
	const n = 10
	bar := window.Config{Method: window.Barrier}
	exps := []reprobench.Experiment{
		{Exp: 0, Call: mpi.CallAllreduce, MsizeBytes: 8, Type: mpi.Float64, Nrep: 15, Sync: bar, Runtime: completion.OSU, LoopReps: n},
		{Exp: 1, Call: mpi.CallBcast, MsizeBytes: 8, Type: mpi.Float64, Nrep: 15, Sync: bar, Runtime: completion.IMB, LoopReps: n},
		{Exp: 2, Call: mpi.CallPingPong, MsizeBytes: 8, Type: mpi.Byte, Root: 1, Nrep: 15, Sync: bar, Runtime: completion.OSU, LoopReps: n},
		{Exp: 3, Call: mpi.CallAllreduce, MsizeBytes: 8, Type: mpi.Float64, Nrep: 15, Sync: bar, Runtime: completion.IMB, LoopReps: n},
		{Exp: 4, Call: mpi.CallAllreduce, MsizeBytes: 8, Type: mpi.Float64, Nrep: 15, Sync: bar, Runtime: completion.Loop, LoopReps: n},
		{Exp: 5, Call: mpi.CallPingPong, MsizeBytes: 8, Type: mpi.Byte, Root: 1, Nrep: 15, Sync: bar, Runtime: completion.IMB, LoopReps: n},
	}
	sink, _ := runEngine(t, 4, exps, true)
	if len(sink.rows) != 90 {
		t.Fatalf("%d rows, want 90", len(sink.rows))
	}
	for _, row := range sink.rows {
		var want float64
		np := 0
		for _, rr := range sink.ranks {
			if rr.Exp != row.Exp || rr.Rep != row.Rep {
				continue
			}
			d := rr.LocalEndS - rr.LocalStartS
			switch row.Exp {
			case 2: // osu_latency: the root's
				if rr.Rank == 1 {
					want = d / (2 * n)
				}
			case 5: // IMB PingPong: the larger of root's and peer's
				if rr.Rank == 1 || rr.Rank == 2 {
					want = max(want, d/(2*n))
				}
			case 4: // completion.Loop: t_max
				want = max(want, d/n)
			default:
				want += d / n
				np++
			}
		}
		if np > 0 {
			want /= float64(np)
		}
		if d := row.RuntimeS - want; d > 1e-12 || d < -1e-12 || want <= 0 {
			t.Errorf("exp %d rep %d: runtime %g s, from the per-rank timestamps %g s", row.Exp, row.Rep, row.RuntimeS, want)
		}
	}
	// OSU's and IMB's collective loops have a barrier after every call,
	// outside the timed sum: on each rank, the time from one observation's
	// end (start + sum) to the next one's start holds n + 1 barriers for
	// osu and imb and only the observation's own barrier for the
	// back-to-back loop.
	gap := func(exp, rank int) float64 {
		var prevEnd, sum float64
		k := 0
		for _, rr := range sink.ranks {
			if rr.Exp != exp || rr.Rank != rank {
				continue
			}
			if rr.Rep > 0 {
				sum += rr.LocalStartS - prevEnd
				k++
			}
			prevEnd = rr.LocalEndS
		}
		return sum / float64(k)
	}
	for r := range 4 {
		if osu, imb, loop := gap(0, r), gap(3, r), gap(4, r); !(osu > 3*loop && imb > 3*loop) {
			t.Errorf("rank %d: mean gap between observations %g s with osu, %g s with imb, %g s back to back: the per-call barriers are missing", r, osu, imb, loop)
		}
	}
	for _, s := range sink.sums {
		if s.RuntimeType != exps[s.Exp].Runtime.String() {
			t.Errorf("exp %d: summary runtime type %q", s.Exp, s.RuntimeType)
		}
	}
}
