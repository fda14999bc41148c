package reprobench_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/reprobench/reprobench"
	"github.com/reprobench/reprobench/cache"
	"github.com/reprobench/reprobench/clocksync"
	"github.com/reprobench/reprobench/completion"
	"github.com/reprobench/reprobench/mpi"
	"github.com/reprobench/reprobench/mpi/mpitest"
	"github.com/reprobench/reprobench/timing"
	"github.com/reprobench/reprobench/window"
)

// memSink keeps everything it is given.
type memSink struct {
	rows  []reprobench.Row
	ranks []reprobench.RankRow
	sums  []reprobench.Summary
}

func (m *memSink) Row(r *reprobench.Row) error               { m.rows = append(m.rows, *r); return nil }
func (m *memSink) RankRow(r *reprobench.RankRow) error       { m.ranks = append(m.ranks, *r); return nil }
func (m *memSink) EndExperiment(s *reprobench.Summary) error { m.sums = append(m.sums, *s); return nil }

func runEngine(t *testing.T, ranks int, exps []reprobench.Experiment, perRank bool) (*memSink, *mpitest.World) {
	t.Helper()
	w, err := mpitest.New(mpitest.Config{Ranks: ranks, Seed: 11})
	if err != nil {
		t.Fatal(err)
	}
	sink := &memSink{}
	syncs := 0
	err = w.Run(func(r *mpitest.Rank) error {
		c, clk := r.Comm(), r.Clock()
		g := clocksync.NewGlobalClock(clk)
		sp, err := clocksync.ParseSpec("hca3:fitpts=50,exchanges=10")
		if err != nil {
			return err
		}
		alg, err := sp.New()
		if err != nil {
			return err
		}
		e := &reprobench.Engine{Comm: c, Clock: clk, Global: g, PerRank: perRank,
			Resync: func(*reprobench.Experiment) error {
				if c.Rank() == 0 {
					syncs++
				}
				_, err := alg.Sync(c, g)
				return err
			}}
		var s reprobench.Sink
		if c.Rank() == 0 {
			s = sink
		}
		_, err = e.Run(append([]reprobench.Experiment(nil), exps...), s)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if syncs != len(exps) {
		t.Errorf("clocks synchronized %d times, want once per experiment (%d)", syncs, len(exps))
	}
	return sink, w
}

func TestEveryCallAndMethod(t *testing.T) {
	var exps []reprobench.Experiment
	for _, m := range window.Methods() {
		for _, call := range mpi.Calls() {
			if call == mpi.CallMBWMR {
				continue // p2p: needs an even number of ranks (TestP2PExperiments)
			}
			exps = append(exps, reprobench.Experiment{Exp: len(exps), Call: call, MsizeBytes: 16, Type: mpi.Float64,
				Nrep: 10, Warmup: 3, Sync: window.Config{Method: m, Window: 200 * time.Microsecond, Batch: 5},
				Runtime: completion.Type(len(exps) % 3)})
		}
	}
	sink, _ := runEngine(t, 3, exps, true)
	perExp := map[int]int{}
	for _, r := range sink.rows {
		perExp[r.Exp]++
		if !(r.RuntimeS > 0 && r.RuntimeS < 1e-3) || r.Np != 3 || r.Count != 2 {
			t.Errorf("implausible row %+v", r)
		}
	}
	for _, ex := range exps {
		want := ex.Nrep
		if ex.Sync.Method == window.RoundTime || ex.Sync.Method == window.AdaptiveNBCBench {
			want = sink.sums[ex.Exp].Rows
		}
		if perExp[ex.Exp] != want || want < ex.Nrep {
			t.Errorf("experiment %d (%v, %v): %d rows, want %d", ex.Exp, ex.Call, ex.Sync.Method, perExp[ex.Exp], want)
		}
	}
	if len(sink.ranks) != 3*len(sink.rows) {
		t.Errorf("%d per-rank rows for %d rows on 3 ranks", len(sink.ranks), len(sink.rows))
	}
	if len(sink.sums) != len(exps) {
		t.Errorf("%d summaries, want %d", len(sink.sums), len(exps))
	}
}

// TestRuntimeTypes checks the completion times the engine writes against
// the per-rank timestamps and the ground truth.
func TestRuntimeTypes(t *testing.T) {
	exps := []reprobench.Experiment{
		{Exp: 0, Call: mpi.CallBcast, MsizeBytes: 8, Type: mpi.Float64, Nrep: 20, Sync: window.Config{Method: window.Fixed}, Runtime: completion.Local},
		{Exp: 1, Call: mpi.CallBcast, MsizeBytes: 8, Type: mpi.Float64, Nrep: 20, Sync: window.Config{Method: window.Fixed}, Runtime: completion.Global},
		{Exp: 2, Call: mpi.CallBcast, MsizeBytes: 8, Type: mpi.Float64, Nrep: 20, Sync: window.Config{Method: window.Barrier}, Runtime: completion.Loop, LoopReps: 10},
	}
	sink, w := runEngine(t, 4, exps, true)
	for _, row := range sink.rows {
		var ranks []reprobench.RankRow
		for _, rr := range sink.ranks {
			if rr.Exp == row.Exp && rr.Rep == row.Rep {
				ranks = append(ranks, rr)
			}
		}
		var want float64
		switch row.Exp {
		case 0, 2:
			for _, rr := range ranks {
				want = max(want, rr.LocalEndS-rr.LocalStartS)
			}
			if row.Exp == 2 {
				want /= 10
			}
		case 1:
			lo, hi := ranks[0].GlobalStartS, ranks[0].GlobalEndS
			for _, rr := range ranks {
				lo, hi = min(lo, rr.GlobalStartS), max(hi, rr.GlobalEndS)
			}
			want = hi - lo
			// Ground truth: true times of the rank timestamps.
			tlo, thi := 1e300, -1e300
			for _, rr := range ranks {
				tlo = min(tlo, w.TrueTime(rr.Rank, timing.Ticks(rr.LocalStartS*1e9+0.5)))
				thi = max(thi, w.TrueTime(rr.Rank, timing.Ticks(rr.LocalEndS*1e9+0.5)))
			}
			if d := row.RuntimeS - (thi - tlo); d > 1e-6 || d < -1e-6 {
				t.Errorf("exp 1 rep %d: global runtime %g s, ground truth %g s", row.Rep, row.RuntimeS, thi-tlo)
			}
		}
		if d := row.RuntimeS - want; d > 1e-12 || d < -1e-12 {
			t.Errorf("exp %d rep %d: runtime %g s, from the per-rank timestamps %g s", row.Exp, row.Rep, row.RuntimeS, want)
		}
	}
}

// TestEngineRows runs two experiments on 2 simulated ranks through the
// experiment loop and checks the raw rows of the first observations: on a
// network of fixed latency every observation takes the same time.
func TestEngineRows(t *testing.T) {
	w, _ := mpitest.New(mpitest.Config{Ranks: 2, Seed: 1, Latency: mpitest.Latency{SpikeProb: -1, Jitter: -1}})
	sink := &memSink{}
	_ = w.Run(func(r *mpitest.Rank) error {
		e := &reprobench.Engine{Comm: r.Comm(), Clock: r.Clock()}
		exps := []reprobench.Experiment{
			{Exp: 0, Call: mpi.CallPingPong, MsizeBytes: 8, Type: mpi.Byte, Nrep: 3, Warmup: 1},
			{Exp: 1, Call: mpi.CallAllreduce, MsizeBytes: 8, Type: mpi.Float64, Nrep: 3, Warmup: 1},
		}
		var s reprobench.Sink
		if r.Comm().Rank() == 0 {
			s = sink
		}
		_, err := e.Run(exps, s)
		return err
	})
	var got []string
	for _, r := range sink.rows {
		got = append(got, fmt.Sprintf("exp %d %v rep %d: %.2f µs, error code %d", r.Exp, r.Call, r.Rep, r.RuntimeS*1e6, r.ErrorCode))
	}
	want := []string{
		"exp 0 pingpong rep 0: 2.02 µs, error code 0",
		"exp 0 pingpong rep 1: 2.02 µs, error code 0",
		"exp 0 pingpong rep 2: 2.02 µs, error code 0",
		"exp 1 MPI_Allreduce rep 0: 2.02 µs, error code 0",
		"exp 1 MPI_Allreduce rep 1: 2.02 µs, error code 0",
		"exp 1 MPI_Allreduce rep 2: 2.02 µs, error code 0",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("rows:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// batchLog is an mpi.Comm that records, per batch of observations, the
// buffer offsets and the cache flush buffer the engine asked for.
type batchLog struct {
	mpi.Comm
	offsets [][]int64
	flush   []int
}

func (b *batchLog) ObserveBatch(o *mpi.Observation, clk timing.Clock, deadlines, starts, ends []timing.Ticks) error {
	b.offsets = append(b.offsets, append([]int64(nil), o.Offsets...))
	b.flush = append(b.flush, len(o.Flush))
	return mpi.ObserveBatch(b.Comm, o, clk, deadlines, starts, ends)
}

// TestCacheModes checks what each cache mode makes the observations do:
// warm reuses one buffer, cold flushes FlushBytes before each, cycle walks
// the CacheSlots copies in order, random draws copies from the seed.
func TestCacheModes(t *testing.T) {
	const nrep, slots, flush = 12, 4, 1 << 16
	run := func(m cache.Mode, seed uint64) *batchLog {
		w, err := mpitest.New(mpitest.Config{Ranks: 3, Seed: 11})
		if err != nil {
			t.Fatal(err)
		}
		var log0 *batchLog
		err = w.Run(func(r *mpitest.Rank) error {
			bl := &batchLog{Comm: r.Comm()}
			if r.ID() == 0 {
				log0 = bl
			}
			e := &reprobench.Engine{Comm: bl, Clock: r.Clock()}
			var s reprobench.Sink
			if r.ID() == 0 {
				s = &memSink{}
			}
			ex := reprobench.Experiment{Call: mpi.CallAllgather, MsizeBytes: 64, Type: mpi.Float64, Nrep: nrep,
				Cache: m, FlushBytes: flush, CacheSlots: slots, Seed: seed}
			sums, err := e.Run([]reprobench.Experiment{ex}, s)
			if r.ID() == 0 && err == nil && (len(sums) != 1 || sums[0].Cache != m.String() || sums[0].Rows != nrep) {
				t.Errorf("%v: summaries %+v", m, sums)
			}
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		return log0
	}
	offsets := func(l *batchLog) []int64 {
		var all []int64
		for _, o := range l.offsets {
			all = append(all, o...)
		}
		return all
	}
	// Allgather of 64 B from 3 ranks: the receive buffer (192 B) sets the
	// stride between copies.
	const stride = 192
	warm := run(cache.Warm, 3)
	if o := offsets(warm); len(o) != 0 || slices.Max(warm.flush) != 0 {
		t.Errorf("warm: offsets %v, flush %v; want one buffer and no flush", o, warm.flush)
	}
	cold := run(cache.Cold, 3)
	if o := offsets(cold); len(o) != 0 || slices.Min(cold.flush) != flush {
		t.Errorf("cold: offsets %v, flush %v; want a %d-byte flush before every batch", o, cold.flush, flush)
	}
	cyc := offsets(run(cache.Cycle, 3))
	if len(cyc) != nrep {
		t.Fatalf("cycle: %d offsets, want %d", len(cyc), nrep)
	}
	cycSlots := map[int64]bool{}
	for i, o := range cyc {
		cycSlots[o] = true
		if i > 0 && o != (cyc[i-1]+stride)%(slots*stride) {
			t.Fatalf("cycle: offsets %v, want the %d slots (%d B apart) in turn", cyc, slots, stride)
		}
	}
	if len(cycSlots) != slots {
		t.Errorf("cycle visited %d slots, want %d", len(cycSlots), slots)
	}
	rnd := offsets(run(cache.Random, 3))
	seen := map[int64]bool{}
	for _, o := range rnd {
		if o < 0 || o >= slots*stride || o%stride != 0 {
			t.Fatalf("random: offset %d is not a slot", o)
		}
		seen[o] = true
	}
	if len(rnd) != nrep || len(seen) < 2 || slices.Equal(rnd, cyc) {
		t.Errorf("random: offsets %v (%d distinct), want %d draws over the slots, not the cycle", rnd, len(seen), nrep)
	}
	if again := offsets(run(cache.Random, 3)); !slices.Equal(again, rnd) {
		t.Errorf("random with the same seed: %v then %v", rnd, again)
	}
	if other := offsets(run(cache.Random, 4)); slices.Equal(other, rnd) {
		t.Errorf("random with another seed gave the same offsets %v", rnd)
	}
}
