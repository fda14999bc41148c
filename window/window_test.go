package window_test

import (
	"math"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/reprobench/reprobench/clocksync"
	"github.com/reprobench/reprobench/internal/completionref"
	"github.com/reprobench/reprobench/mpi"
	"github.com/reprobench/reprobench/mpi/mpitest"
	"github.com/reprobench/reprobench/timing"
	"github.com/reprobench/reprobench/window"
)

var _ window.GlobalClock = (*clocksync.GlobalClock)(nil)
var _ window.GlobalClock = window.Identity{}

// truth is a perfect global clock from mpitest's ground truth: global time
// is true time.
type truth struct {
	w    *mpitest.World
	rank int
}

func (t truth) ToGlobal(local timing.Ticks) float64 { return t.w.TrueTime(t.rank, local) }
func (t truth) ToLocal(global float64) timing.Ticks { return t.w.ClockAt(t.rank, global) }

func newWorld(t *testing.T, ranks int, seed uint64) *mpitest.World {
	t.Helper()
	w, err := mpitest.New(mpitest.Config{Ranks: ranks, Seed: seed,
		Latency: mpitest.Latency{SpikeProb: -1}})
	if err != nil {
		t.Fatal(err)
	}
	return w
}

// runSync runs n observations of an 8-byte allreduce (or call) under cfg on
// every rank with the true global clock and returns rank 0's Record and Sync.
func runSync(t *testing.T, w *mpitest.World, cfg window.Config, call mpi.Call, n int,
	before func(s *window.Sync, r *mpitest.Rank, i int)) (*window.Record, *window.Sync) {
	t.Helper()
	recs := make([]*window.Record, w.Size())
	syncs := make([]*window.Sync, w.Size())
	err := w.Run(func(r *mpitest.Rank) error {
		c := r.Comm()
		s, err := window.New(c, r.Clock(), truth{w, c.Rank()}, cfg)
		if err != nil {
			return err
		}
		s.Sleep = r.Sleep
		if before != nil {
			s.Before = func(i int) { before(s, r, i) }
		}
		o := &mpi.Observation{Call: call, Send: make([]byte, 8*c.Size()), Recv: make([]byte, 8*c.Size()),
			Count: 1, Type: mpi.Float64, Peer: 1}
		rec := window.NewRecord(cfg.Capacity(n))
		if err := s.Run(o, n, rec, false); err != nil {
			return err
		}
		recs[c.Rank()], syncs[c.Rank()] = rec, s
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for r := 1; r < w.Size(); r++ {
		if recs[r].N != recs[0].N {
			t.Fatalf("rank %d recorded %d observations, rank 0 %d", r, recs[r].N, recs[0].N)
		}
		for i := range recs[0].N {
			if recs[r].Code[i] != recs[0].Code[i] {
				t.Fatalf("observation %d: rank %d has code %d, rank 0 %d (codes must be reduced)", i, r, recs[r].Code[i], recs[0].Code[i])
			}
		}
	}
	return recs[0], syncs[0]
}

func TestLateRankFlagsStartedLate(t *testing.T) {
	w := newWorld(t, 4, 1)
	cfg := window.Config{Method: window.Fixed, Window: 100 * time.Microsecond, Batch: 50}
	// Rank 2 computes for 250 µs after observation 9 (which ended a few µs
	// after its deadline d9): it starts 10 at about d9 + 255 µs = d10 + 155
	// µs, 11 right after at d11 + 55 µs, and catches up at 12.
	rec, _ := runSync(t, w, cfg, mpi.CallAllreduce, 50, func(_ *window.Sync, r *mpitest.Rank, i int) {
		if r.Comm().Rank() == 2 && i == 10 {
			r.Sleep(250 * time.Microsecond)
		}
	})
	for i := range rec.N {
		late := rec.Code[i]&window.CodeLate != 0
		want := i == 10 || i == 11
		if late != want {
			t.Errorf("observation %d: code %d, started late = %v, want %v", i, rec.Code[i], late, want)
		}
	}
}

func TestLongOperationExpires(t *testing.T) {
	w := newWorld(t, 4, 2)
	// An allreduce over 4 ranks takes a few µs (1 µs latency per message):
	// longer than a 1 µs window.
	cfg := window.Config{Method: window.Fixed, Window: time.Microsecond, Batch: 20}
	rec, _ := runSync(t, w, cfg, mpi.CallAllreduce, 20, nil)
	expired := 0
	for i := range rec.N {
		if rec.Code[i]&window.CodeExpired != 0 {
			expired++
		}
	}
	if expired != rec.N {
		t.Errorf("%d of %d observations expired, want all", expired, rec.N)
	}
	// With a 100 µs window none expires or starts late.
	cfg.Window = 100 * time.Microsecond
	rec, _ = runSync(t, w, cfg, mpi.CallAllreduce, 20, nil)
	for i := range rec.N {
		if rec.Code[i] != 0 {
			t.Errorf("100 µs window: observation %d has code %d", i, rec.Code[i])
		}
	}
}

func TestAdaptiveSKaMPI(t *testing.T) {
	w := newWorld(t, 4, 3)
	cfg := window.Config{Method: window.AdaptiveSKaMPI, Window: time.Microsecond, Batch: 20}
	rec, s := runSync(t, w, cfg, mpi.CallAllreduce, 200, nil)
	if len(s.History) == 0 {
		t.Fatal("the window never adapted")
	}
	for _, a := range s.History {
		want := math.Min(math.Max(2*a.OldWindowS, 1.5*a.MeanDurationS), 100*cfg.Window.Seconds())
		if a.NewWindowS != want {
			t.Errorf("adaptation %+v: new window %g, want max(2·%g, 1.5·%g) = %g", a, a.NewWindowS, a.OldWindowS, a.MeanDurationS, want)
		}
		if float64(a.InvalidCount) < 0.25*float64(a.BatchSize) {
			t.Errorf("adapted after only %d of %d invalid", a.InvalidCount, a.BatchSize)
		}
	}
	if rec.N != 200 {
		t.Errorf("SKaMPI policy keeps every observation: N = %d, want 200", rec.N)
	}
	// The last batch, after adaptation, is valid.
	for i := 180; i < 200; i++ {
		if rec.Code[i] != 0 {
			t.Errorf("observation %d after adaptation has code %d", i, rec.Code[i])
		}
	}
	t.Logf("window %v → %v in %d steps", cfg.Window, s.Window(), len(s.History))
}

func TestMaxWindow(t *testing.T) {
	w := newWorld(t, 4, 3)
	// A 100 ns window and a cap of 400 ns: the allreduce (µs) never fits,
	// the window stops growing at the cap.
	cfg := window.Config{Method: window.AdaptiveSKaMPI, Window: 100 * time.Nanosecond, MaxWindow: 400 * time.Nanosecond, Batch: 10}
	_, s := runSync(t, w, cfg, mpi.CallAllreduce, 100, nil)
	if s.Window() != 400*time.Nanosecond || len(s.History) != 1 {
		t.Errorf("window %v after %d changes, want capped at 400ns after 1", s.Window(), len(s.History))
	}
}

func TestAdaptiveNBCBench(t *testing.T) {
	w := newWorld(t, 4, 4)
	cfg := window.Config{Method: window.AdaptiveNBCBench, Window: time.Microsecond, Batch: 20}
	rec, s := runSync(t, w, cfg, mpi.CallAllreduce, 100, nil)
	if len(s.History) == 0 {
		t.Fatal("the window never adapted")
	}
	discarded := 0
	for i := range rec.N {
		if rec.Code[i]&window.CodeDiscarded != 0 {
			discarded++
		}
	}
	for _, a := range s.History {
		if a.NewWindowS != 1.5*a.OldWindowS || !a.RepeatedBatch {
			t.Errorf("adaptation %+v: want window ×1.5 and the batch repeated", a)
		}
	}
	if discarded != 20*len(s.History) || rec.N != 100+discarded {
		t.Errorf("N = %d, discarded %d, adaptations %d: want every repeated batch kept and marked", rec.N, discarded, len(s.History))
	}
	valid := 0
	for i := range rec.N {
		if rec.Code[i] == 0 {
			valid++
		}
	}
	if valid < 75 {
		t.Errorf("only %d valid of the 100 kept observations", valid)
	}
}

func TestRoundTime(t *testing.T) {
	w := newWorld(t, 4, 5)
	cfg := window.Config{Method: window.RoundTime}
	rec, _ := runSync(t, w, cfg, mpi.CallAllreduce, 30, nil)
	valid := 0
	for i := range rec.N {
		if rec.Code[i] == 0 {
			valid++
		}
	}
	if valid != 30 {
		t.Errorf("%d valid observations, want 30 (N = %d)", valid, rec.N)
	}
	// With start = now + 0.01·(Bcast time) the ranks receive the start time
	// after it has passed: those rounds are flagged late and redone.
	cfg.RoundFactor = 0.01
	rec, _ = runSync(t, w, cfg, mpi.CallAllreduce, 5, nil)
	late := 0
	for i := range rec.N {
		if rec.Code[i] == window.CodeLate {
			late++
		}
	}
	if late == 0 || rec.N != late+min(5, rec.N-late) {
		t.Errorf("k = 0.01: %d rows, %d late; want late rounds recorded and redone", rec.N, late)
	}
	cfg.RoundFactor = 0
	// A budget ends the experiment early.
	cfg.Budget = 50 * time.Microsecond
	rec, _ = runSync(t, w, cfg, mpi.CallAllreduce, 1000, nil)
	if rec.N >= 1000 || rec.N < 1 {
		t.Errorf("budget of 50 µs: %d observations, want a few", rec.N)
	}
}

func TestCompletionAgainstGroundTruth(t *testing.T) {
	w := newWorld(t, 4, 6)
	const n = 20
	type obs struct{ ls, le, gs, ge, ts, te [4]float64 }
	got := make([]obs, n)
	err := w.Run(func(r *mpitest.Rank) error {
		c := r.Comm()
		me := c.Rank()
		clk := r.Clock()
		// Synchronize with HCA3 and use its global clock.
		g := clocksync.NewGlobalClock(clk)
		sp, err := clocksync.ParseSpec("hca3:fitpts=50,exchanges=10")
		if err != nil {
			return err
		}
		alg, err := sp.New()
		if err != nil {
			return err
		}
		if _, err := alg.Sync(c, g); err != nil {
			return err
		}
		s, err := window.New(c, clk, g, window.Config{Method: window.Fixed, Window: 50 * time.Microsecond, Batch: n})
		if err != nil {
			return err
		}
		o := &mpi.Observation{Call: mpi.CallBcast, Send: make([]byte, 8), Recv: make([]byte, 8), Count: 1, Type: mpi.Float64}
		rec := window.NewRecord(n)
		if err := s.Run(o, n, rec, false); err != nil {
			return err
		}
		for i := range n {
			got[i].ls[me], got[i].le[me] = clk.Freq().Seconds(rec.Start[i]), clk.Freq().Seconds(rec.End[i])
			got[i].gs[me], got[i].ge[me] = g.ToGlobal(rec.Start[i]), g.ToGlobal(rec.End[i])
			got[i].ts[me], got[i].te[me] = w.TrueTime(me, rec.Start[i]), w.TrueTime(me, rec.End[i])
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	var maxLocalErr, maxGlobalErr float64
	for i, o := range got {
		// Ground truth: true durations and the true span, converted to
		// rank 0's clock rate (global time is rank 0's clock).
		rate := 1 + w.TrueDriftPPM(0, o.ts[0])*1e-6
		var trueLocal float64
		for r := range 4 {
			trueLocal = math.Max(trueLocal, (o.te[r]-o.ts[r])*(1+w.TrueDriftPPM(r, o.ts[r])*1e-6))
		}
		trueGlobal := (slicesMax(o.te[:]) - slicesMin(o.ts[:])) * rate
		local := completionref.Local(o.ls[:], o.le[:])
		global := completionref.Global(o.gs[:], o.ge[:])
		maxLocalErr = math.Max(maxLocalErr, math.Abs(local-trueLocal))
		maxGlobalErr = math.Max(maxGlobalErr, math.Abs(global-trueGlobal))
		if i == 0 {
			t.Logf("observation 0: local %.4g s (true %.4g s), global %.4g s (true %.4g s)", local, trueLocal, global, trueGlobal)
		}
	}
	t.Logf("max error: local %.3g s, global %.3g s", maxLocalErr, maxGlobalErr)
	// Local: only the clocks' resolution and rounding (1 ns ticks).
	if maxLocalErr > 5e-9 {
		t.Errorf("local completion off by %g s from ground truth", maxLocalErr)
	}
	// Global: the clock synchronization's error (HCA3 on this world is well
	// below 1 µs).
	if maxGlobalErr > 1e-6 {
		t.Errorf("global completion off by %g s from ground truth", maxGlobalErr)
	}
}

func slicesMax(x []float64) float64 {
	m := math.Inf(-1)
	for _, v := range x {
		m = math.Max(m, v)
	}
	return m
}

func slicesMin(x []float64) float64 {
	m := math.Inf(1)
	for _, v := range x {
		m = math.Min(m, v)
	}
	return m
}

func TestBarrierExitSkew(t *testing.T) {
	w := newWorld(t, 4, 8)
	var skew []float64
	err := w.Run(func(r *mpitest.Rank) error {
		c := r.Comm()
		s, err := window.BarrierExitSkew(c, r.Clock(), truth{w, c.Rank()}, window.Barrier, 10)
		if c.Rank() == 0 {
			skew = s
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(skew) != 10 {
		t.Fatalf("%d skews, want 10", len(skew))
	}
	for i, s := range skew {
		// A dissemination barrier's last messages arrive about one latency
		// (1 µs + jitter) apart.
		if s < 0 || s > 10e-6 {
			t.Errorf("barrier %d: exit skew %g s", i, s)
		}
	}
}

// TestRunAllocations measures heap allocations per observation of Sync.Run
// on mpitest, over the whole world (every rank's allocations, the
// simulator's included): it must be far below one per observation.
func TestRunAllocations(t *testing.T) {
	for _, m := range []window.Method{window.Barrier, window.Fixed, window.AdaptiveSKaMPI} {
		w := newWorld(t, 2, 9)
		const n = 2000
		var perObs float64
		err := w.Run(func(r *mpitest.Rank) error {
			c := r.Comm()
			s, err := window.New(c, r.Clock(), truth{w, c.Rank()}, window.Config{Method: m, Window: 50 * time.Microsecond})
			if err != nil {
				return err
			}
			o := &mpi.Observation{Call: mpi.CallAllreduce, Send: make([]byte, 8), Recv: make([]byte, 8), Count: 1, Type: mpi.Float64}
			rec := window.NewRecord(s.Config().Capacity(n))
			if err := s.Run(o, 200, rec, true); err != nil { // warm the simulator's pools
				return err
			}
			if err := c.Barrier(); err != nil {
				return err
			}
			var a, b runtime.MemStats
			if c.Rank() == 0 {
				runtime.ReadMemStats(&a)
			}
			if err := s.Run(o, n, rec, false); err != nil {
				return err
			}
			if err := c.Barrier(); err != nil {
				return err
			}
			if c.Rank() == 0 {
				runtime.ReadMemStats(&b)
				perObs = float64(b.Mallocs-a.Mallocs) / n
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%v: %.3f heap allocations per observation (whole simulated world)", m, perObs)
		if perObs > 0.05 {
			t.Errorf("%v: %.3f allocations per observation, want 0", m, perObs)
		}
	}
}

// TestWindowQualitySimulated is the window-quality criterion in
// simulation (np=2, 8-byte MPI_Allreduce, HCA3, 100 µs initial window, the
// SKaMPI policy, 10000 observations, mpitest's default network with 1%
// 20 µs latency spikes): at most 1% invalid and a valid p99 at most twice
// the barrier-synchronized p99. On real hardware the same is measured by
// bench/window/run.sh.
func TestWindowQualitySimulated(t *testing.T) {
	n := 10000
	if testing.Short() {
		n = 2000
	}
	durations := func(m window.Method) (valid []float64, invalid int) {
		w, err := mpitest.New(mpitest.Config{Ranks: 2, Seed: 21})
		if err != nil {
			t.Fatal(err)
		}
		var out []float64
		bad := 0
		err = w.Run(func(r *mpitest.Rank) error {
			c, clk := r.Comm(), r.Clock()
			g := clocksync.NewGlobalClock(clk)
			sp, err := clocksync.ParseSpec("hca3")
			if err != nil {
				return err
			}
			alg, err := sp.New()
			if err != nil {
				return err
			}
			if _, err := alg.Sync(c, g); err != nil {
				return err
			}
			s, err := window.New(c, clk, g, window.Config{Method: m, Window: 100 * time.Microsecond})
			if err != nil {
				return err
			}
			o := &mpi.Observation{Call: mpi.CallAllreduce, Send: make([]byte, 8), Recv: make([]byte, 8), Count: 1, Type: mpi.Float64}
			rec := window.NewRecord(s.Config().Capacity(n))
			if err := s.Run(o, n, rec, false); err != nil {
				return err
			}
			d := make([]float64, rec.N)
			for i := range d {
				d[i] = clk.Freq().Seconds(rec.End[i] - rec.Start[i])
			}
			all := make([]float64, rec.N)
			if err := mpi.Allreduce(c, d, all, mpi.Max); err != nil {
				return err
			}
			if c.Rank() == 0 {
				for i, v := range all {
					if rec.Code[i] == 0 {
						out = append(out, v)
					} else {
						bad++
					}
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		return out, bad
	}
	p99 := func(v []float64) float64 {
		s := append([]float64(nil), v...)
		slices.Sort(s)
		return s[int(0.99*float64(len(s)))]
	}
	bv, _ := durations(window.Barrier)
	sv, sbad := durations(window.AdaptiveSKaMPI)
	frac := float64(sbad) / float64(n)
	t.Logf("barrier p99 %.3g s; SKaMPI window: %.2f%% invalid, valid p99 %.3g s", p99(bv), 100*frac, p99(sv))
	if frac > 0.01 || p99(sv) > 2*p99(bv) {
		t.Errorf("window quality: %.2f%% invalid (≤ 1%%), valid p99 %.3g s vs barrier %.3g s (≤ 2×)", 100*frac, p99(sv), p99(bv))
	}
}

// TestRunFunc times the caller's own code: every observation starts at its
// window deadline and measures exactly the work (30 µs of virtual time); one
// rank's slow call (150 µs) expires its window and makes the next start late.
func TestRunFunc(t *testing.T) {
	w := newWorld(t, 3, 9)
	const n = 20
	for _, m := range []window.Method{window.Fixed, window.Barrier} {
		recs := make([]*window.Record, w.Size())
		calls := make([]int, w.Size())
		err := w.Run(func(r *mpitest.Rank) error {
			c := r.Comm()
			s, err := window.New(c, r.Clock(), truth{w, c.Rank()}, window.Config{Method: m, Window: 100 * time.Microsecond, Batch: n})
			if err != nil {
				return err
			}
			rec := window.NewRecord(n)
			work := func() error {
				d := 30 * time.Microsecond
				if c.Rank() == 1 && calls[1] == 5 && m == window.Fixed {
					d = 150 * time.Microsecond
				}
				calls[c.Rank()]++
				r.Sleep(d)
				return nil
			}
			if err := s.RunFunc(work, n, rec, false); err != nil {
				return err
			}
			recs[c.Rank()] = rec
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		for rank, rec := range recs {
			if calls[rank] != n || rec.N != n {
				t.Fatalf("%v rank %d: work called %d times, %d recorded; want %d", m, rank, calls[rank], rec.N, n)
			}
			for i := range n {
				d := time.Duration(rec.End[i] - rec.Start[i]) // simulated clocks tick in ns
				want := 30 * time.Microsecond
				if rank == 1 && i == 5 && m == window.Fixed {
					want = 150 * time.Microsecond
				}
				if d < want || d > want+time.Microsecond {
					t.Errorf("%v rank %d obs %d: measured %v, want %v (± clock read and drift)", m, rank, i, d, want)
				}
				if m == window.Fixed && rec.Start[i] < rec.Deadline[i] {
					t.Errorf("rank %d obs %d started before its deadline", rank, i)
				}
				code := rec.Code[i]
				var wantCode window.Code
				if m == window.Fixed && i == 5 {
					wantCode = window.CodeExpired
				}
				if m == window.Fixed && i == 6 {
					wantCode = window.CodeLate
				}
				if code != wantCode {
					t.Errorf("%v rank %d obs %d: code %d, want %d", m, rank, i, code, wantCode)
				}
			}
		}
	}
}

// noisyRank makes rank 2 arrive about 20 µs after the deadline of every
// second observation, whatever the window (it is away for one window plus
// 20 µs after the previous observation, like a CPU paused across its
// deadline): those observations start late, yet every operation fits its
// window, so none expires.
func noisyRank(s *window.Sync, r *mpitest.Rank, i int) {
	if r.Comm().Rank() == 2 && i%2 == 1 {
		r.Sleep(s.Window() + 20*time.Microsecond)
	}
}

func TestAdaptOnExpiredIgnoresNoise(t *testing.T) {
	for _, m := range []window.Method{window.AdaptiveSKaMPI, window.AdaptiveNBCBench} {
		cfg := window.Config{Method: m, Window: 100 * time.Microsecond, Batch: 20}
		// As published: half the batch late → the window grows.
		rec, s := runSync(t, newWorld(t, 4, 7), cfg, mpi.CallAllreduce, 100, noisyRank)
		late, expired := 0, 0
		for i := range rec.N {
			if rec.Code[i]&window.CodeLate != 0 {
				late++
			}
			if rec.Code[i]&window.CodeExpired != 0 {
				expired++
			}
		}
		if late < rec.N/3 || expired != 0 {
			t.Fatalf("%v: %d late and %d expired of %d; the test needs many late, none expired", m, late, expired, rec.N)
		}
		if len(s.History) == 0 {
			t.Errorf("%v, AdaptOnInvalid: the window never grew for %d late of %d", m, late, rec.N)
		}
		for _, a := range s.History {
			if a.ExpiredCount != 0 || a.InvalidCount < 5 {
				t.Errorf("%v: adaptation %+v: want invalid ≥ 5 and expired 0 recorded", m, a)
			}
		}
		// Counting only expired observations: noise leaves the window alone.
		cfg.AdaptOn = window.AdaptOnExpired
		rec, s = runSync(t, newWorld(t, 4, 7), cfg, mpi.CallAllreduce, 100, noisyRank)
		if len(s.History) != 0 || s.Window() != 100*time.Microsecond {
			t.Errorf("%v, AdaptOnExpired: window %v after %d changes, want 100µs unchanged", m, s.Window(), len(s.History))
		}
		if rec.N != 100 {
			t.Errorf("%v, AdaptOnExpired: %d observations, want 100 (nothing repeated)", m, rec.N)
		}
		// An operation longer than the window still makes it grow.
		cfg.Window = time.Microsecond
		_, s = runSync(t, newWorld(t, 4, 7), cfg, mpi.CallAllreduce, 100, nil)
		if len(s.History) == 0 {
			t.Errorf("%v, AdaptOnExpired: a 1 µs window never grew around a µs-long allreduce", m)
		}
		for _, a := range s.History {
			if float64(a.ExpiredCount) < 0.25*float64(a.BatchSize) {
				t.Errorf("%v, AdaptOnExpired: adapted on %d expired of %d", m, a.ExpiredCount, a.BatchSize)
			}
		}
	}
}

func TestAdaptTriggerNames(t *testing.T) {
	for _, a := range []window.AdaptTrigger{window.AdaptOnInvalid, window.AdaptOnExpired} {
		got, err := window.ParseAdaptTrigger(" " + strings.ToUpper(a.String()) + " ")
		if err != nil || got != a {
			t.Errorf("ParseAdaptTrigger(%q) = %v, %v", a.String(), got, err)
		}
	}
	if _, err := window.ParseAdaptTrigger("late"); err == nil {
		t.Error("ParseAdaptTrigger(late) accepted")
	}
	w := newWorld(t, 2, 1)
	err := w.Run(func(r *mpitest.Rank) error {
		_, err := window.New(r.Comm(), r.Clock(), window.Identity{Clock: r.Clock()}, window.Config{Method: window.Fixed, AdaptOn: 7})
		if err == nil {
			t.Error("AdaptOn 7 accepted")
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
