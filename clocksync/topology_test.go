package clocksync_test

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/reprobench/reprobench/clocksync"
	"github.com/reprobench/reprobench/mpi/mpitest"
	"github.com/reprobench/reprobench/timing"
)

// Every algorithm on awkward world sizes (1, 2, non-powers of two) with
// small parameters: right after the synchronization every rank is close to
// rank 0, and the harness's measured offsets agree with ground truth.
func TestAlgorithmsSmallWorlds(t *testing.T) {
	specs := []string{
		"skampi:pingpongs=20", "netgauge:pingpongs=20", "jk:fitpts=20,exchanges=10",
		"hca:fitpts=20,exchanges=10,pingpongs=20", "hca2:fitpts=20,exchanges=10,pingpongs=20",
		"hca3:fitpts=20,exchanges=10", "hca3:fitpts=20,exchanges=10,intercept=skampi,pingpongs=20",
		"hca3o:pingpongs=20", "twolevel:fitpts=20,exchanges=10,pingpongs=20",
		"skampi:pingpongs=100,minpingpongs=5,stop=1.2",
	}
	for _, p := range []int{1, 2, 3, 5, 13} {
		for _, spec := range specs {
			// Two-level propagation assumes one clock per node.
			nodeClocks := strings.HasPrefix(spec, "twolevel")
			o := runSim(t, mpitest.Config{Ranks: p, Seed: uint64(p), RanksPerNode: 2, NodeClocks: nodeClocks}, spec, nil)
			ck := o.Checks[0]
			if p == 1 {
				if o.Result.Messages != 0 || len(ck.Offsets) != 1 {
					t.Errorf("P=1 %s: %d messages, offsets %v", spec, o.Result.Messages, ck.Offsets)
				}
				continue
			}
			// Small parameters learn slopes poorly; 2 µs right after sync
			// is still far below the ±1 s offsets the clocks start with.
			if *ck.TrueMaxAbs > 2e-6 {
				t.Errorf("P=%d %s: true max |error| %.3g µs right after sync", p, spec, *ck.TrueMaxAbs*1e6)
			}
			for r := range ck.Offsets {
				if d := math.Abs(ck.Offsets[r] - ck.TrueOffsets[r]); d > 0.5e-6 {
					t.Errorf("P=%d %s rank %d: measured offset %.3g µs, true %.3g µs", p, spec, r, ck.Offsets[r]*1e6, ck.TrueOffsets[r]*1e6)
				}
			}
			if got := len(o.Result.PerRank); got != p {
				t.Errorf("P=%d %s: %d per-rank records", p, spec, got)
			}
		}
	}
}

// SKaMPI without early stop costs exactly 2n+1 messages per rank and link:
// the Result's count is checked against the formula and the simulator's.
func TestResultCountsMessages(t *testing.T) {
	const p, n = 6, 17
	sp, err := clocksync.ParseSpec("skampi:pingpongs=17,minpingpongs=17")
	if err != nil {
		t.Fatal(err)
	}
	alg, err := sp.New()
	if err != nil {
		t.Fatal(err)
	}
	w, err := mpitest.New(mpitest.Config{Ranks: p, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	var res *clocksync.Result
	err = w.Run(func(r *mpitest.Rank) error {
		rs, err := alg.Sync(r.Comm(), clocksync.NewGlobalClock(r.Clock()))
		if r.ID() == 0 {
			res = rs
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if want := int64((p - 1) * (2*n + 1)); res.Messages != want {
		t.Errorf("Messages = %d, want (P−1)(2n+1) = %d", res.Messages, want)
	}
	// The simulator also sees the barrier and the gather.
	if sim := w.Messages(); sim <= res.Messages {
		t.Errorf("simulator counted %d messages, Result %d", sim, res.Messages)
	}
	var sent int64
	for _, rr := range res.PerRank {
		sent += rr.MessagesSent
		if rr.CollectiveCalls != 2 {
			t.Errorf("rank %d: %d collective calls, want 2 (the barriers at the start and the end)", rr.Rank, rr.CollectiveCalls)
		}
	}
	if sent != res.Messages || res.PerRank[0].MessagesSent != int64((p-1)*(n+1)) {
		t.Errorf("per-rank sent %d (root %d)", sent, res.PerRank[0].MessagesSent)
	}
	if res.Duration <= 0 || res.Ranks != p || res.Algorithm != alg.Name {
		t.Errorf("Result %+v", res)
	}
}

// Re-synchronizing replaces the models of the same GlobalClock: after 10 s an
// offset-only sync has drifted by tens of µs; a second Sync brings it back.
func TestResync(t *testing.T) {
	sp, err := clocksync.ParseSpec("hca3o:pingpongs=20")
	if err != nil {
		t.Fatal(err)
	}
	alg, err := sp.New()
	if err != nil {
		t.Fatal(err)
	}
	w, err := mpitest.New(mpitest.Config{Ranks: 5, Seed: 11})
	if err != nil {
		t.Fatal(err)
	}
	var errs [3]float64
	err = w.Run(func(r *mpitest.Rank) error {
		c := r.Comm()
		g := clocksync.NewGlobalClock(r.Clock())
		check := func(k int, res *clocksync.Result) error {
			h := &clocksync.Harness{Sleep: r.Sleep, TrueNow: r.TrueNow, ClockAt: w.ClockAt}
			if c.Rank() == 0 {
				// The models in use now are those of the last Sync.
				h.Models = res.Models()
			}
			cks, err := h.Run(c, g)
			if c.Rank() == 0 && err == nil {
				errs[k] = *cks[0].TrueMaxAbs
			}
			return err
		}
		res, err := alg.Sync(c, g)
		if err != nil {
			return err
		}
		if err := check(0, res); err != nil {
			return err
		}
		r.Sleep(10 * time.Second)
		if err := check(1, res); err != nil {
			return err
		}
		res, err = alg.Sync(c, g)
		if err != nil {
			return err
		}
		if g.Model() != res.Model {
			t.Errorf("rank %d: GlobalClock model %v, Result model %v", c.Rank(), g.Model(), res.Model)
		}
		return check(2, res)
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("true max |error|: %.3g µs after sync, %.3g µs 10 s later, %.3g µs after re-sync", errs[0]*1e6, errs[1]*1e6, errs[2]*1e6)
	if errs[0] > 1e-6 || errs[1] < 10e-6 || errs[2] > 1e-6 {
		t.Errorf("errors %v: want small, grown, small again", errs)
	}
}

// The two-level scheme: HCA3 among node leaders, propagation within a node.
// With one clock per node (NodeClocks) one offset per rank suffices; with a
// clock per rank the intra-node step must learn the drift (intra=fit).
func TestTwoLevel(t *testing.T) {
	for _, c := range []struct {
		spec       string
		nodeClocks bool
	}{
		{"twolevel", true},
		{"twolevel:intra=fit", false},
	} {
		cfg := mpitest.Config{Ranks: 8, Seed: 5, RanksPerNode: 2, NodeClocks: c.nodeClocks}
		o := runSim(t, cfg, c.spec, []time.Duration{0, 10 * time.Second})
		for _, ck := range o.Checks {
			t.Logf("%s node clocks %v after %2.0fs: true max %.3g µs, measured max %.3g µs", c.spec, c.nodeClocks, ck.After.Seconds(), *ck.TrueMaxAbs*1e6, ck.MaxAbs*1e6)
		}
		if last := o.Checks[1]; *last.TrueMaxAbs > 1e-6 {
			t.Errorf("%s: true max |error| %.3g µs after 10 s", c.spec, *last.TrueMaxAbs*1e6)
		}
	}
}

// The shared-clock truth (real MPI on one host) in simulation, where the
// shared clock is true time: it must match the ground truth that TrueOffsets
// computes for the same instant, on drifting clocks 10 s after a sync.
func TestHarnessSharedClockTruth(t *testing.T) {
	sp, err := clocksync.ParseSpec("hca3o:pingpongs=20")
	if err != nil {
		t.Fatal(err)
	}
	alg, err := sp.New()
	if err != nil {
		t.Fatal(err)
	}
	w, err := mpitest.New(mpitest.Config{Ranks: 5, Seed: 12})
	if err != nil {
		t.Fatal(err)
	}
	var got []float64
	var models []clocksync.Model
	var sharedNs timing.Ticks
	err = w.Run(func(r *mpitest.Rank) error {
		c := r.Comm()
		g := clocksync.NewGlobalClock(r.Clock())
		res, err := alg.Sync(c, g)
		if err != nil {
			return err
		}
		h := &clocksync.Harness{Sleep: r.Sleep, After: []time.Duration{10 * time.Second},
			SharedNow: func() timing.Ticks {
				sharedNs = timing.Ticks(r.TrueNow() * 1e9)
				return sharedNs
			},
			LocalAtShared: func(ns timing.Ticks) timing.Ticks { return w.ClockAt(c.Rank(), float64(ns)/1e9) }}
		cks, err := h.Run(c, g)
		if c.Rank() == 0 && err == nil {
			got, models = cks[0].TrueOffsets, res.Models()
			if cks[0].TrueMaxAbs == nil {
				t.Error("no TrueMaxAbs with the shared clock")
			}
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	want := clocksync.TrueOffsets(models, 1e9, w.ClockAt, float64(sharedNs)/1e9)
	drifted := false
	for r := range want {
		if math.Abs(got[r]-want[r]) > 1e-12 {
			t.Errorf("rank %d: shared-clock truth %g s, ground truth %g s", r, got[r], want[r])
		}
		drifted = drifted || math.Abs(want[r]) > 1e-6
	}
	if !drifted {
		t.Errorf("errors %v: the offset-only clocks should have drifted by µs in 10 s", want)
	}
}

// Set on some ranks only, the shared truth is refused on every rank, not
// left to deadlock.
func TestHarnessSharedClockOnSomeRanks(t *testing.T) {
	w, err := mpitest.New(mpitest.Config{Ranks: 3, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	err = w.Run(func(r *mpitest.Rank) error {
		h := &clocksync.Harness{Sleep: r.Sleep}
		if r.Comm().Rank() == 1 {
			h.SharedNow, h.LocalAtShared = func() timing.Ticks { return 0 }, func(timing.Ticks) timing.Ticks { return 0 }
		}
		_, err := h.Run(r.Comm(), clocksync.NewGlobalClock(r.Clock()))
		if err == nil || !strings.Contains(err.Error(), "some ranks only") {
			t.Errorf("rank %d: %v, want a refusal", r.Comm().Rank(), err)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// claims wraps a simulated clock and claims it is CLOCK_MONOTONIC (or, with
// raw, CLOCK_MONOTONIC_RAW) with the given epoch: what sharedCounter trusts.
type claims struct {
	timing.Clock
	epoch int64
	raw   bool
}

func (c claims) Source() timing.Source {
	k := timing.SourceMonotonic
	if c.raw {
		k = timing.SourceMonotonicRaw
	}
	return timing.Source{Kind: k, Epoch: c.epoch, Hz: c.Freq().Hz()}
}

// Two-level's decision of the shared clock (intra=shared), against ground
// truth: ranks of a node that share a clock and say so with equal epochs
// take the exact offset (IntraCounter); the facts decide, so a claimed
// shared counter whose epochs do not match what the ranks measure is still
// taken as one counter (a measurement cannot undo facts: under load it
// disagrees with them), and the disagreement is recorded on every rank
// (IntraCheckMiss); a node whose ranks have clocks of their own, and no
// facts, is found out when the leaders' synchronization leaves time
// between the two measurements (IntraNotShared); a node whose user
// asserts one clock takes its measured offset (IntraAsserted). Where the
// facts are true, the stated bound covers the true error.
func TestTwoLevelSharedClockCheck(t *testing.T) {
	const intraAsserted = "shared clock (asserted by the user, offset measured)"
	for _, c := range []struct {
		name       string
		nodeClocks bool
		epoch      func(rank int) int64 // nil: no claim
		want       string
		raw        bool // claim CLOCK_MONOTONIC_RAW
	}{
		{"shared, proven", true, func(int) int64 { return 0 }, clocksync.IntraCounter, false},
		{"shared raw, proven", true, func(int) int64 { return 0 }, clocksync.IntraCounter, true},
		{"shared, false epochs", true, func(r int) int64 { return int64(r) * 5000 }, clocksync.IntraCounter, false},
		{"shared, no claim", true, nil, clocksync.IntraShared, false},
		{"shared, asserted", true, nil, intraAsserted, false},
		{"separate clocks", false, nil, clocksync.IntraNotShared, false},
	} {
		falseFacts := c.name == "shared, false epochs"
		if _, err := clocksync.BootID(); err != nil && c.want == clocksync.IntraCounter {
			t.Logf("%s: skipped, no boot id to prove one kernel: %v", c.name, err)
			continue
		}
		spec := "twolevel:bias=none"
		if c.want == intraAsserted {
			spec += ",intra=asserted"
		}
		sp, err := clocksync.ParseSpec(spec)
		if err != nil {
			t.Fatal(err)
		}
		alg, err := sp.New()
		if err != nil {
			t.Fatal(err)
		}
		w, err := mpitest.New(mpitest.Config{Ranks: 8, Seed: 9, RanksPerNode: 4, NodeClocks: c.nodeClocks})
		if err != nil {
			t.Fatal(err)
		}
		var res *clocksync.Result
		var checks []clocksync.Check
		err = w.Run(func(r *mpitest.Rank) error {
			var clk timing.Clock = r.Clock()
			if c.epoch != nil {
				clk = claims{Clock: clk, epoch: c.epoch(r.ID()), raw: c.raw}
			}
			g := clocksync.NewGlobalClock(clk)
			rr, err := alg.SyncWith(r.Comm(), g, clocksync.SyncOptions{Sleep: r.Sleep})
			if err != nil {
				return err
			}
			h := &clocksync.Harness{After: []time.Duration{0, 10 * time.Second}, Sleep: r.Sleep, TrueNow: r.TrueNow, ClockAt: w.ClockAt}
			if r.ID() == 0 {
				h.Models = rr.Models()
			}
			ck, err := h.Run(r.Comm(), g)
			if r.ID() == 0 {
				res, checks = rr, ck
			}
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		for _, pr := range res.PerRank {
			if pr.Rank%4 != 0 && pr.Intra != c.want {
				t.Errorf("%s: rank %d: intra %q, want %q", c.name, pr.Rank, pr.Intra, c.want)
			}
			if miss := pr.IntraCheckMiss != 0; pr.Rank%4 != 0 && miss != falseFacts {
				t.Errorf("%s: rank %d: check miss %g s recorded, want one: %v", c.name, pr.Rank, pr.IntraCheckMiss, falseFacts)
			}
		}
		if falseFacts {
			continue // the facts lied: no bound can see it
		}
		for _, ck := range checks {
			if *ck.TrueMaxAbs > res.Bound.At(ck.After.Seconds()) {
				t.Errorf("%s: after %v true max |error| %.3g µs beyond the stated bound %v", c.name, ck.After.Seconds(), *ck.TrueMaxAbs*1e6, res.Bound)
			}
		}
	}
}

// The facts include a clock's skews: ranks of a node that read one counter
// through equal timing.Skewed layers (a virtual cluster's node skew) share
// it (IntraCounter); a rank whose own skew differs does not, and its node
// falls back to measuring.
func TestTwoLevelSharedSkewedCounter(t *testing.T) {
	if _, err := clocksync.BootID(); err != nil {
		t.Skipf("no boot id to prove one kernel: %v", err)
	}
	for _, c := range []struct {
		name     string
		rankPPM  float64 // rank 1's skew on top of its node's
		wantRank string
	}{
		{"equal skews", 0, clocksync.IntraCounter},
		{"rank 1 skewed", 30, clocksync.IntraNotShared},
	} {
		sp, err := clocksync.ParseSpec("twolevel:bias=none")
		if err != nil {
			t.Fatal(err)
		}
		alg, err := sp.New()
		if err != nil {
			t.Fatal(err)
		}
		w, err := mpitest.New(mpitest.Config{Ranks: 4, Seed: 3, RanksPerNode: 2, NodeClocks: true})
		if err != nil {
			t.Fatal(err)
		}
		var res *clocksync.Result
		err = w.Run(func(r *mpitest.Rank) error {
			var clk timing.Clock = &timing.Skewed{Base: claims{Clock: r.Clock()}, DriftPPM: 20}
			if r.ID() == 1 && c.rankPPM != 0 {
				clk = &timing.Skewed{Base: clk, DriftPPM: c.rankPPM}
			}
			rr, err := alg.SyncWith(r.Comm(), clocksync.NewGlobalClock(clk), clocksync.SyncOptions{Sleep: r.Sleep})
			if r.ID() == 0 {
				res = rr
			}
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		if got := res.PerRank[1].Intra; got != c.wantRank && !(c.wantRank == clocksync.IntraNotShared && got == clocksync.IntraShared) {
			t.Errorf("%s: rank 1: intra %q, want %q", c.name, got, c.wantRank)
		}
		if got := res.PerRank[3].Intra; got != clocksync.IntraCounter {
			t.Errorf("%s: rank 3: intra %q, want %q", c.name, got, clocksync.IntraCounter)
		}
	}
}
