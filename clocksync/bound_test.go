package clocksync_test

import (
	"math"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/reprobench/reprobench/clocksync"
	"github.com/reprobench/reprobench/mpi/mpitest"
)

func TestParseAccuracy(t *testing.T) {
	for _, c := range []struct {
		in   string
		e, h float64
	}{{"1us@10s", 1e-6, 10}, {" 500ns @ 2s ", 500e-9, 2}, {"1e-6@10", 1e-6, 10}, {"1µs@0s", 1e-6, 0}} {
		a, err := clocksync.ParseAccuracy(c.in)
		if err != nil || math.Abs(a.Error.Seconds()-c.e) > 1e-15 || a.Horizon.Seconds() != c.h {
			t.Errorf("ParseAccuracy(%q) = %+v, %v", c.in, a, err)
		}
		if b, err := clocksync.ParseAccuracy(a.String()); err != nil || b != a {
			t.Errorf("round trip of %q: %+v, %v", a.String(), b, err)
		}
	}
	for _, bad := range []string{"", "1us", "@10s", "0us@10s", "-1us@1s", "1us@-1s", "x@1s", "1us@y"} {
		if _, err := clocksync.ParseAccuracy(bad); err == nil {
			t.Errorf("ParseAccuracy(%q) succeeded", bad)
		}
	}
}

func TestSpecAccuracy(t *testing.T) {
	s, err := clocksync.ParseSpec("hca3:accuracy=1us@10s,budget=2s")
	if err != nil {
		t.Fatal(err)
	}
	if want := "hca3:fitpts=1000,exchanges=100,trim=0,rttpingpongs=100,warmup=10,intercept=skampi,pingpongs=100,minpingpongs=10,stop=0,accuracy=1µs@10s,budget=2s,burst=10,robust=rtt+trim"; s.String() != want {
		t.Errorf("String() = %s, want %s", s, want)
	}
	if back, err := clocksync.ParseSpec(s.String()); err != nil || back != s {
		t.Errorf("round trip: %+v, %v", back, err)
	}
	a, err := s.New()
	if err != nil {
		t.Fatal(err)
	}
	if sp, ok := a.Learner.(*clocksync.Spread); !ok || sp.Target.Error != time.Microsecond || sp.Budget != 2*time.Second {
		t.Errorf("learner %#v", a.Learner)
	}
	for _, c := range []struct{ in, msg string }{
		{"hca3:fitpts=200,budget=2s", "apply only with accuracy"},
		{"hca3:accuracy=none,burst=5", "apply only with accuracy"},
		{"skampi:accuracy=1us@1s", `unknown parameter "accuracy"`},
		{"hca3:accuracy=1us", "want ERROR@HORIZON"},
		{"hca3:accuracy=1us@1s,budget=2h", "budget=7200 s must be"},
		{"hca3:accuracy=1us@1s,budget=-1s", "budget=-1 s must be"},
		{"twolevel:accuracy=1us@1s,burst=0", "burst=0"},
	} {
		if _, err := clocksync.ParseSpec(c.in); err == nil || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("ParseSpec(%q): %v, want %q", c.in, err, c.msg)
		}
	}
	if _, err := clocksync.ParseSpec("skampi", clocksync.TargetText("1us@10s")); err == nil {
		t.Error("skampi took an accuracy target")
	}
	if s, err := clocksync.ParseSpec("twolevel", clocksync.TargetText("2us@5s")); err != nil || !strings.Contains(s.String(), "accuracy=2µs@5s") {
		t.Errorf("ParseSpec(twolevel, TargetText(2us@5s)): %v, %v", s, err)
	}
}

// TestSpecDefaultAccuracy: a spec that names neither a target nor fixed
// counts learns to the default target, or to the caller's; an
// --clock-accuracy flag's none gives the published fixed counts, its
// target replaces the spec's.
func TestSpecDefaultAccuracy(t *testing.T) {
	def := clocksync.Default().Accuracy
	run := clocksync.Accuracy{Error: time.Microsecond, Horizon: 2 * time.Second}
	for _, c := range []struct {
		spec, flag string
		def        clocksync.Accuracy
		want       clocksync.Accuracy
	}{
		{"hca3", "", def, def},
		{"hca3", "auto", run, run},
		{"hca3", "", clocksync.Accuracy{}, clocksync.Accuracy{}},
		{"jk", "", run, run},
		{"twolevel:intra=fit", "", run, run},
		{"hca3:fitpts=1000,exchanges=100", "", run, clocksync.Accuracy{}},
		{"hca3:intercept=skampi", "", run, clocksync.Accuracy{}},
		{"jk:rttpingpongs=50", "", run, clocksync.Accuracy{}},
		{"hca3:accuracy=none", "", run, clocksync.Accuracy{}},
		{"hca3:accuracy=500ns@5s", "", run, clocksync.Accuracy{Error: 500 * time.Nanosecond, Horizon: 5 * time.Second}},
		{"hca3:accuracy=500ns@5s", "none", run, clocksync.Accuracy{}},
		{"hca3", "none", run, clocksync.Accuracy{}},
		{"hca3:fitpts=200", "3us@1s", run, clocksync.Accuracy{Error: 3 * time.Microsecond, Horizon: time.Second}},
		{"hca", "", run, clocksync.Accuracy{}}, // no Spread learner: the fixed counts
		{"skampi", "none", run, clocksync.Accuracy{}},
	} {
		s, err := clocksync.ParseSpec(c.spec, clocksync.DefaultTarget(c.def), clocksync.TargetText(c.flag))
		if err != nil {
			t.Errorf("ParseSpec(%q, TargetText(%q)): %v", c.spec, c.flag, err)
			continue
		}
		if s.Accuracy != c.want {
			t.Errorf("ParseSpec(%q, TargetText(%q), DefaultTarget(%v)): accuracy %v, want %v", c.spec, c.flag, c.def, s.Accuracy, c.want)
		}
		// What is recorded says what ran: it parses back to the same spec
		// whatever the default.
		if back, err := clocksync.ParseSpec(s.String(), clocksync.DefaultTarget(clocksync.Accuracy{Error: 7 * time.Microsecond, Horizon: 7 * time.Second})); err != nil || back != s {
			t.Errorf("%q recorded as %s parses back to %v, %v", c.spec, s, back, err)
		}
	}
	if _, err := clocksync.ParseSpec("skampi", clocksync.TargetText("1us@1s")); err == nil {
		t.Error("skampi took an accuracy target from the flag")
	}
	if _, err := clocksync.ParseSpec("hca3", clocksync.TargetText("1us")); err == nil {
		t.Error("a target without a horizon was accepted")
	}
}

// coverage runs spec on seeds 1…n and counts the seeds whose true max |error|
// is within the predicted bound at both checks, and those within 1 µs after
// 10 s.
func coverage(t *testing.T, cfg mpitest.Config, n int, spec string) (covered, within1us int, worst float64) {
	t.Helper()
	after := []time.Duration{0, 10 * time.Second}
	for seed := uint64(1); seed <= uint64(n); seed++ {
		cfg.Seed = seed
		o := runSim(t, cfg, spec, after)
		b := o.Result.Bound
		ok := !b.Unknown
		for _, ck := range o.Checks {
			ok = ok && *ck.TrueMaxAbs <= b.At(ck.After.Seconds())
		}
		if ok {
			covered++
		}
		last := *o.Checks[1].TrueMaxAbs
		if last <= 1e-6 {
			within1us++
		}
		worst = max(worst, last)
		if o.Result.BudgetExceeded > 0 || !o.Result.TargetMet {
			t.Logf("seed %d: target not met (%d ranks out of budget), bound %v", seed, o.Result.BudgetExceeded, b)
		}
	}
	return covered, within1us, worst
}

// The accuracy target against ground truth: on 16 simulated ranks
// (mpitest defaults: drifts ±50 ppm, latency 1 µs + exp(0.1 µs) + 1 % spikes
// of 20 µs), HCA3 with the Spread learner and the target 1 µs@10 s keeps
// every rank within 1 µs of rank 0 10 s after the sync, and its predicted
// bound covers the true max error in at least 9 of 10 seeds. (The 100-seed
// runs on 64 and 1024 ranks are TestBoundCoverage100Seeds and
// go -C bench run ./clocksync -only bound.)
func TestSpreadMeetsTargetInSimulation(t *testing.T) {
	cov, in, worst := coverage(t, mpitest.Config{Ranks: 16}, 10, "hca3:accuracy=1us@10s,budget=4s")
	if in != 10 {
		t.Errorf("true max |error| after 10 s within 1 µs in %d of 10 seeds (worst %.3g µs)", in, worst*1e6)
	}
	if cov < 9 {
		t.Errorf("predicted bound covered the true error in %d of 10 seeds", cov)
	}
}

// TestBoundCoverage100Seeds is the acceptance check of the bound on 64
// ranks: 100 seeds, bound coverage ≥ 95 %, true error ≤ 1 µs after 10 s in
// every seed. About a minute of CPU.
func TestBoundCoverage100Seeds(t *testing.T) {
	if testing.Short() {
		t.Skip("100 simulated synchronizations of 64 ranks")
	}
	n := 100
	if os.Getenv("CLOCKSYNC_FULL") == "" {
		n = 20
	}
	cov, in, worst := coverage(t, mpitest.Config{Ranks: 64}, n, "hca3:accuracy=1us@10s,budget=5s")
	t.Logf("64 ranks, %d seeds: bound covered %d, within 1 µs after 10 s %d (worst %.3g µs)", n, cov, in, worst*1e6)
	if in != n || float64(cov) < 0.95*float64(n) {
		t.Errorf("64 ranks, %d seeds: bound covered %d, within 1 µs %d (worst %.3g µs)", n, cov, in, worst*1e6)
	}
}

// The published fixed-count algorithms report a bound too: JK and HCA3
// (with SKaMPI's re-measured intercepts, whose causality interval is the
// intercept's bound) cover the truth; offset-only algorithms learn no drift
// and say that their bound is unknown.
func TestBoundFixedCountAlgorithms(t *testing.T) {
	after := []time.Duration{0, 5 * time.Second}
	for _, spec := range []string{"hca3:fitpts=100,exchanges=20", "jk:fitpts=100,exchanges=20", "twolevel:fitpts=100,exchanges=20"} {
		cfg := mpitest.Config{Ranks: 8, Seed: 4}
		if strings.HasPrefix(spec, "twolevel") {
			cfg.RanksPerNode, cfg.NodeClocks = 2, true
		}
		o := runSim(t, cfg, spec, after)
		b := o.Result.Bound
		if b.Unknown || !(b.AtSync > 0) || !(b.Slope > 0) {
			t.Errorf("%s: bound %v", spec, b)
			continue
		}
		for _, ck := range o.Checks {
			n, m := clocksync.CoveredRanks(o.Result.PerRank, ck.TrueOffsets, ck.After.Seconds())
			if m != 8 || n != m {
				t.Errorf("%s after %gs: %d of %d ranks within their bounds (bound %v, true max %.3g µs)", spec, ck.After.Seconds(), n, m, b, *ck.TrueMaxAbs*1e6)
			}
		}
	}
	o := runSim(t, mpitest.Config{Ranks: 4, Seed: 4}, "skampi:pingpongs=20", nil)
	if !o.Result.Bound.Unknown || !math.IsNaN(o.Result.Bound.At(1)) {
		t.Errorf("skampi: bound %v, want unknown", o.Result.Bound)
	}
}

// Every check's offset comes with its own uncertainty, which contains the
// truth (SKaMPI's causality bounds); a threshold below the uncertainty flags
// every offset as implausible and keeps it out of the statistics.
func TestCheckUncertainty(t *testing.T) {
	for _, limit := range []float64{0, 1e-9} {
		w, err := mpitest.New(mpitest.Config{Ranks: 5, Seed: 9})
		if err != nil {
			t.Fatal(err)
		}
		sp, err := clocksync.ParseSpec("hca3:fitpts=50,exchanges=10")
		if err != nil {
			t.Fatal(err)
		}
		alg, err := sp.New()
		if err != nil {
			t.Fatal(err)
		}
		var ck clocksync.Check
		err = w.Run(func(r *mpitest.Rank) error {
			g := clocksync.NewGlobalClock(r.Clock())
			res, err := alg.Sync(r.Comm(), g)
			if err != nil {
				return err
			}
			h := &clocksync.Harness{Sleep: r.Sleep, TrueNow: r.TrueNow, ClockAt: w.ClockAt, Implausible: limit}
			if r.ID() == 0 {
				h.Models = res.Models()
			}
			cks, err := h.Run(r.Comm(), g)
			if r.ID() == 0 && err == nil {
				ck = cks[0]
			}
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		for r := 1; r < 5; r++ {
			u := ck.Uncertainties[r]
			if !(u > 0) || ck.RTTs[r] < 2e-6 || math.Abs(ck.Offsets[r]-ck.TrueOffsets[r]) > u+50e-9 {
				t.Errorf("limit %g rank %d: offset %.3g ± %.3g µs (RTT %.3g µs), true %.3g µs", limit, r,
					ck.Offsets[r]*1e6, u*1e6, ck.RTTs[r]*1e6, ck.TrueOffsets[r]*1e6)
			}
		}
		switch limit {
		case 0:
			if ck.Implausible != 0 || !(ck.MaxUncertainty > 0) || !(ck.MaxRTT > 0) {
				t.Errorf("default limit: %+v", ck)
			}
		default:
			if ck.Implausible != 4 || ck.MaxAbs != 0 {
				t.Errorf("limit 1 ns: %d implausible, max |offset| %v", ck.Implausible, ck.MaxAbs)
			}
		}
	}
}

// The Resyncer renews a synchronization when the bound at the expected end
// of the next experiment exceeds the target, and not before.
func TestResyncer(t *testing.T) {
	w, err := mpitest.New(mpitest.Config{Ranks: 2, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	type step struct {
		due    bool
		reason string
	}
	var got [4]step
	err = w.Run(func(r *mpitest.Rank) error {
		rs := &clocksync.Resyncer{Target: clocksync.Accuracy{Error: time.Microsecond, Horizon: 10 * time.Second}}
		record := func(i int) error {
			due, why, err := rs.Due(r.Comm())
			if r.ID() == 0 {
				got[i] = step{due, why}
			}
			return err
		}
		if err := record(0); err != nil { // nothing synchronized yet
			return err
		}
		// A bound that grows 1 ppm from 0: 1 µs after a second.
		rs.Synced(&clocksync.Result{Bound: clocksync.Bound{Slope: 1e-6}})
		if err := record(1); err != nil { // milliseconds later: far within
			return err
		}
		rs.Synced(&clocksync.Result{Bound: clocksync.Bound{AtSync: 2e-6}})
		if err := record(2); err != nil { // above the target at once
			return err
		}
		rs.Synced(&clocksync.Result{Bound: clocksync.Bound{Unknown: true}})
		return record(3)
	})
	if err != nil {
		t.Fatal(err)
	}
	if !got[0].due || got[1].due || !got[2].due || !strings.Contains(got[2].reason, "exceeds the target 1µs") ||
		!got[3].due || !strings.Contains(got[3].reason, "no bound") {
		t.Errorf("decisions %+v", got)
	}
}

// A reading is taken somewhere inside its read call, and where is invisible
// to the fit (on real ranks, without it, the bound right after sync missed
// by 1–21 ns in 3 of 40 runs). In mpitest a reading is taken when the call
// starts and the call lasts the clock's overhead, so a reference whose reads
// take 400 ns and a client whose reads take 1 ns bias every fit point by
// (400 − 1)/2 ns; the link's bound must add half the two read steps
// (FitStats.ClockRead) to cover it. Without that term the bound is about
// 130 ns here, below the truth of 200 ns (checked by hand).
func TestBoundCoversClockReadCost(t *testing.T) {
	for seed := uint64(1); seed <= 5; seed++ {
		cfg := mpitest.Config{Ranks: 2, Seed: seed, Clocks: []mpitest.ClockParams{
			{OffsetS: 0.3, DriftPPM: 20, Overhead: 400 * time.Nanosecond, Resolution: time.Nanosecond},
			{OffsetS: -0.2, DriftPPM: -30, Overhead: time.Nanosecond, Resolution: time.Nanosecond},
		}}
		o := runSim(t, cfg, "hca3:accuracy=1us@10s,budget=2s", []time.Duration{0})
		rr := o.Result.PerRank[1]
		truth := math.Abs(o.Checks[0].TrueOffsets[1])
		if truth < 150e-9 {
			t.Errorf("seed %d: true error %.3g ns; the test expects the read cost to bias it by about 200 ns", seed, truth*1e9)
		}
		if math.Abs(rr.ClockRead-200.5e-9) > 5e-9 {
			t.Errorf("seed %d: clock read term %.4g ns, want (400+1)/2", seed, rr.ClockRead*1e9)
		}
		if b := rr.Bound.At(0); !(truth <= b) || b > truth+200e-9 {
			t.Errorf("seed %d: bound at sync %.4g ns, true error %.4g ns", seed, b*1e9, truth*1e9)
		}
	}
}

// simBattery runs spec on seeds 1…n (cfg's Seed replaced) with checks right
// after the sync and after 5 s, and counts the runs in which every rank's
// true error was within its own predicted bound at both checks.
//
// ratio holds the median over runs of bound / true max |error| at each check.
func simBattery(t *testing.T, cfg mpitest.Config, spec string, n int) (covered int, ratio []float64) {
	t.Helper()
	after := []time.Duration{0, 5 * time.Second}
	ratios := make([][]float64, len(after))
	for seed := uint64(1); seed <= uint64(n); seed++ {
		cfg.Seed = seed
		o := runSim(t, cfg, spec, after)
		if o.Result.Bound.Unknown {
			t.Errorf("%s seed %d: bound %v", spec, seed, o.Result.Bound)
			continue
		}
		ok := true
		for k, ck := range o.Checks {
			c, m := clocksync.CoveredRanks(o.Result.PerRank, ck.TrueOffsets, ck.After.Seconds())
			ok = ok && m == cfg.Ranks && c == m
			ratios[k] = append(ratios[k], o.Result.Bound.At(ck.After.Seconds())/max(*ck.TrueMaxAbs, 1e-12))
		}
		if ok {
			covered++
		} else {
			t.Logf("%s seed %d: not covered (bound %v)", spec, seed, o.Result.Bound)
		}
	}
	for _, r := range ratios {
		slices.Sort(r)
		ratio = append(ratio, r[len(r)/2])
	}
	return covered, ratio
}

// The bottom-up trees state a bound too: HCA (Algorithms 2–4 of
// Hunold & Carpen-Amarie 2016: JK models merged up the tree (Alg. 4), intercepts re-measured
// from rank 0 by Compute_And_Set_All_Intercepts) and HCA2 (intercepts
// re-measured on every edge) propagate each link's bound along the rank's
// path to rank 0; HCA's intercept bound is the root re-measurement's
// causality interval. Checked against ground truth on 6 ranks (a power of
// two plus the remaining ranks of Sync_Clocks_Remaining) over a seeded
// battery: every rank within its own bound in at least 95 % of the runs.
// Netgauge (Algorithms 11–12) learns offsets only: its bound is unknown,
// and says why.
func TestBoundBottomUpTrees(t *testing.T) {
	n := 40
	if testing.Short() {
		n = 20
	}
	for _, spec := range []string{"hca:fitpts=100,exchanges=20", "hca2:fitpts=100,exchanges=20"} {
		cov, ratio := simBattery(t, mpitest.Config{Ranks: 6}, spec, n)
		// Right after sync the bound is SKaMPI's causality interval (±RTT/2
		// or so), while the simulator's symmetric latencies make the
		// midpoint nearly exact: the ratio there is large by design.
		t.Logf("%s: covered in %d of %d runs; median bound/true max error %.3g right after sync, %.3g after 5 s",
			spec, cov, n, ratio[0], ratio[1])
		if float64(cov) < 0.95*float64(n) {
			t.Errorf("%s: bound covered every rank in %d of %d runs", spec, cov, n)
		}
		// After 5 s the bound is mostly its slope part, and a third of
		// that is the systematic term SlopeWanderTerm(RTT)/span,
		// calibrated on real links whose biases wander; the simulator's do
		// not, so the ratio is 8.7 with a term of 40 ns + 0.5 % of the RTT,
		// 12 with 40 ns + 2 % and 14.7–14.9 with the present one (the
		// larger of 40 ns and 5 %: 100 ns on the simulator's 2 µs RTT). A
		// bound that ignores the fit's error, or a slope part 10× too wide,
		// reads 80 or more.
		if ratio[1] > 20 {
			t.Errorf("%s: median bound/true %.3g after 5 s: the bound says little", spec, ratio[1])
		}
	}
	o := runSim(t, mpitest.Config{Ranks: 6, Seed: 1}, "netgauge:pingpongs=20", nil)
	if b := o.Result.Bound; !b.Unknown || b.Why != clocksync.WhyOffsetOnly || !strings.Contains(b.String(), "no drift") {
		t.Errorf("netgauge: bound %v, want unknown because offset-only", b)
	}
	for _, rr := range o.Result.PerRank[1:] {
		if !rr.Bound.Unknown || rr.Bound.Why != clocksync.WhyOffsetOnly {
			t.Errorf("netgauge rank %d: bound %v", rr.Rank, rr.Bound)
		}
	}
}

// JK's linear scheme with an accuracy target: every rank learns
// against rank 0 with the Spread learner, one after the other. On 4
// simulated ranks of one host (300 ns one way; on the simulator's default
// 2 µs RTT the bound's systematic slope term, 5 % of the RTT per span,
// keeps 1 µs@10s out of reach) with the target 1 µs@10 s and a 4 s
// budget, every seed keeps every rank within 1 µs 10 s after the sync, and
// the bound covers the truth in at least 95 % of 20 seeds.
func TestSpreadLinearJK(t *testing.T) {
	const n = 20
	host := mpitest.Config{Ranks: 4, Latency: mpitest.Latency{Base: 300 * time.Nanosecond}}
	cov, in, worst := coverage(t, host, n, "jk:accuracy=1us@10s,budget=4s")
	t.Logf("jk with target, 4 ranks: covered %d of %d, within 1 µs after 10 s %d (worst %.3g µs)", cov, n, in, worst*1e6)
	if in != n || float64(cov) < 0.95*n {
		t.Errorf("jk with target, 4 ranks: covered %d of %d, within 1 µs after 10 s %d (worst %.3g µs)", cov, n, in, worst*1e6)
	}
	// Every link stops when its bound meets the target; an unreachable
	// target uses up the budget and says so.
	host.Seed = 1
	o := runSim(t, host, "jk:accuracy=1us@10s,budget=4s", nil)
	if r := o.Result; !r.TargetMet || r.Duration > 4 || r.Bound.At(10) > 1e-6 {
		t.Errorf("target met %v, sync %.3g s, bound %v", r.TargetMet, r.Duration, r.Bound)
	}
	o = runSim(t, mpitest.Config{Ranks: 4, Seed: 1}, "jk:accuracy=5ns@10s,budget=0.3s", nil)
	if r := o.Result; r.TargetMet || r.BudgetExceeded != 3 || r.Duration > 0.3 {
		t.Errorf("unreachable target: met %v, %d ranks out of budget, sync %.3g s", r.TargetMet, r.BudgetExceeded, r.Duration)
	}
}

// A check records when its truth was read (Check.Elapsed, on rank 0's clock,
// whose drift the simulated sleep does not follow): after its delay
// and, on real ranks, after its ping-pongs, which a loaded machine stretches;
// clockcheck judges the bound there (a smoke run at load 16 missed by 1.3 µs
// at "0 s" with a 75 ppm slope bound, read milliseconds after the sync).
func TestCheckElapsed(t *testing.T) {
	o := runSim(t, mpitest.Config{Ranks: 3, Seed: 2}, "hca3:fitpts=20,exchanges=5", []time.Duration{0, time.Second})
	c0, c1 := o.Checks[0], o.Checks[1]
	if !(c0.Elapsed >= 0 && c0.Elapsed < 1e-3) || !(c1.Elapsed >= 1-100e-6 && c1.Elapsed < 1.001) {
		t.Errorf("elapsed %.6g s and %.6g s for checks after 0 s and 1 s", c0.Elapsed, c1.Elapsed)
	}
}
