package main

import (
	"context"
	"math"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/reprobench/reprobench/internal/mpirun"
	"github.com/reprobench/reprobench/internal/vcluster"
	"github.com/reprobench/reprobench/mpi/mpitest"
)

// TestDriftSimulated runs the experiment on 4 simulated ranks with perfect
// clocks except the injected skew on rank 1 (+250 µs, +100 ppm), and checks
// the paper's finding against ground truth: raw clocks and an offset-only
// synchronization drift by 100 µs per second, HCA3 stays within 0.5 µs.
//
// HCA3 runs with its defaults (1000 fit points × 100 exchanges): the fit then
// spans about 0.2 s, and the slope is good to a few hundredths of a ppm. With
// 200 × 20 the span is 10 ms and the slopes are off by up to a ppm — 2.5 µs
// after 4 s on this seed, which this test would catch.
func TestDriftSimulated(t *testing.T) {
	o := Options{Syncs: []string{"none", "hca3o", "hca3"},
		SkewRank: 1, SkewPPM: 100, SkewOffset: 250 * time.Microsecond,
		After: []time.Duration{0, 2 * time.Second, 4 * time.Second}}
	w, err := mpitest.New(mpitest.Config{Ranks: 4, Seed: 3,
		Clock: mpitest.ClockDist{Offset: mpitest.Off, DriftPPM: mpitest.Off}})
	if err != nil {
		t.Fatal(err)
	}
	var series []Series
	err = w.Run(func(r *mpitest.Rank) error {
		ro := o
		ro.Sleep, ro.TrueNow, ro.ClockAt = r.Sleep, r.TrueNow, w.ClockAt
		s, err := Drift(r.Comm(), r.Clock(), ro)
		if r.ID() == 0 {
			series = s
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	Print(&b, series, o)
	t.Logf("\n%s", b.String())
	for _, s := range series {
		for _, ck := range s.Checks {
			got, truth := ck.Offsets[1], ck.TrueOffsets[1]
			// What the experiment should find: the injected skew, left
			// uncorrected (none), its drift only (offset-only), nothing (HCA3).
			want := map[string]float64{
				"none":  250e-6 + 100e-6*ck.After.Seconds(),
				"hca3o": 100e-6 * ck.After.Seconds(),
			}[short(s.Sync)]
			// The harness measures with SKaMPI ping-pongs; ground truth says
			// how good that measurement is.
			if math.Abs(got-truth) > 50e-9 {
				t.Errorf("%s after %gs: measured %.3f µs, true %.3f µs", s.Sync, ck.After.Seconds(), got*1e6, truth*1e6)
			}
			// The experiment starts a little after the synchronization, so
			// the drift has had a little longer: allow 0.5 µs.
			if math.Abs(truth-want) > 0.5e-6 {
				t.Errorf("%s after %gs: true offset %.3f µs, want %.3f µs", s.Sync, ck.After.Seconds(), truth*1e6, want*1e6)
			}
			// Ranks 2 and 3 have unskewed clocks: every method is close.
			if e := math.Max(math.Abs(ck.TrueOffsets[2]), math.Abs(ck.TrueOffsets[3])); e > 0.5e-6 {
				t.Errorf("%s after %gs: unskewed ranks off by %.3f µs", s.Sync, ck.After.Seconds(), e*1e6)
			}
		}
		// HCA3 states a bound, and it covers every rank's true error at
		// every check; the others state none.
		if want := short(s.Sync) == "hca3"; s.Bound.Unknown == want {
			t.Errorf("%s: bound %v, want one stated: %v", s.Sync, s.Bound, want)
		}
		for i, ck := range s.Checks {
			for r, e := range ck.TrueOffsets {
				if b := s.BoundAt[i]; math.Abs(e) > b {
					t.Errorf("%s after %gs: rank %d's true error %.3f µs beyond the stated bound ±%.3f µs", s.Sync, ck.After.Seconds(), r, e*1e6, b*1e6)
				}
			}
		}
	}
}

// TestMpirun runs the experiment under a real mpirun with 2 ranks for every
// installed MPI library, one measurement 1 s after each synchronization,
// with 1000 ppm injected. Both ranks run on this host and read one
// CLOCK_MONOTONIC, so every check also has the exact error (the "(true)"
// columns), which the test asserts on. The measured offsets have been far
// off under heavy load (-208 µs in CI; -607 and +517 µs with oversubscribed
// MPICH tests alongside), and from them alone one cannot tell the
// synchronization's error from the ping-pong's.
func TestMpirun(t *testing.T) {
	if testing.Short() {
		t.Skip("integration test: needs mpirun")
	}
	for _, f := range mpirun.Flavors(t) {
		t.Run(f.Name, func(t *testing.T) {
			bin := mpirun.Build(t, f, ".", ".")
			out := mpirun.MustRun(t, f, 2, 90*time.Second, nil, bin,
				"-steps", "1", "-ppm", "1000", "-sync", "hca3o", "-sync", "hca3")
			t.Logf("\n%s", out)
			if !strings.Contains(out, "(true)") {
				t.Fatalf("no true-error columns, though both ranks run on this host:\n%s", out)
			}
			// after_s, hca3o measured, true, hca3 measured, true (µs).
			row := func(after string) (offsetOnly, driftAware float64) {
				m := regexp.MustCompile(`(?m)^` + after + `\s+\S+\s+(\S+)\s+\S+\s+(\S+)$`).FindStringSubmatch(out)
				if m == nil {
					t.Fatalf("no row for %s s in output:\n%s", after, out)
				}
				offsetOnly, _ = strconv.ParseFloat(m[1], 64)
				driftAware, _ = strconv.ParseFloat(m[2], 64)
				return offsetOnly, driftAware
			}
			o0, d0 := row(`0\.0`)
			o1, d1 := row(`1\.0`)
			// 1000 ppm for 1 s is 1000 µs. The offset-only clock is already
			// off at "0 s" by the drift since its single offset measurement,
			// and the check "at 1 s" comes about 1 s after the first, or
			// later when rank 0 wakes late: a test on the growth, bounded
			// below only.
			if g := o1 - o0; g < 900 {
				t.Errorf("hca3o: true error grew by %g µs in ≥ 1 s, want ≥ 1000 µs", g)
			}
			// The drift-aware clock's stated bound covers its true error,
			// or it states none (a descheduled synchronization may be off
			// by time slices, hundreds of µs or more).
			m := regexp.MustCompile(`(?m)^hca3: (?:stated bound .*; at the checks, µs: (\S+) (\S+)|no bound stated: .*)$`).FindStringSubmatch(out)
			if m == nil {
				t.Fatalf("no bound line for hca3 in output:\n%s", out)
			}
			if m[1] != "" {
				b0, _ := strconv.ParseFloat(m[1], 64)
				b1, _ := strconv.ParseFloat(m[2], 64)
				if math.Abs(d0) > b0 || math.Abs(d1) > b1 {
					t.Errorf("hca3: true error %g µs at 0 s and %g µs at 1 s, beyond the stated bound ±%g and ±%g µs", d0, d1, b0, b1)
				}
			}
			// With a core per rank it removes at least 95% of the drift:
			// held only when other processes kept under half a CPU busy.
			if math.Abs(d0) > 50 || math.Abs(d1) > 50 {
				busy, err := mpirun.BusyCPUs(300 * time.Millisecond)
				if err != nil || busy < 0.5 {
					t.Errorf("hca3: true error %g µs at 0 s and %g µs at 1 s on a machine with %.2f CPUs busy (%v), want about 0", d0, d1, busy, err)
				} else {
					t.Logf("hca3: true error %g µs at 0 s and %g µs at 1 s, with %.2f CPUs kept busy by other processes: not held to 50 µs", d0, d1, busy)
				}
			}
		})
	}
}

// TestAcrossNodes runs the experiment on 2 nodes of a virtual cluster
// (internal/vcluster; root): their CLOCK_MONOTONIC differ by up to 1000 s
// and node 1 drifts by its own skew under rank 1's injected 1000 ppm. The
// exact error still comes out (clocksync.Harness.ShareHostClock), and the
// offset-only clock's error grows by both drifts together.
func TestAcrossNodes(t *testing.T) {
	if testing.Short() {
		t.Skip("integration test: needs mpirun")
	}
	if err := vcluster.Available(); err != nil {
		if os.Getenv("RB_REQUIRE_VCLUSTER") == "1" {
			t.Fatalf("RB_REQUIRE_VCLUSTER=1 but %v", err)
		}
		t.Skipf("virtual cluster not possible here (set RB_REQUIRE_VCLUSTER=1 to fail instead): %v", err)
	}
	c, err := vcluster.New(vcluster.Config{Nodes: 2, Seed: 1, MaxSkewPPM: 100})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := c.Close(); err != nil {
			t.Error(err)
		}
	})
	skew := c.Nodes[1].SkewPPM - c.Nodes[0].SkewPPM
	for _, f := range mpirun.Flavors(t) {
		t.Run(f.Name, func(t *testing.T) {
			bin := mpirun.Build(t, f, ".", ".")
			ctx, cancel := context.WithTimeout(context.Background(), mpirun.Deadline(4*time.Minute))
			defer cancel()
			// Fewer fit points than hca3's defaults: MPICH's ranks busy-poll, and
			// across namespaces at load 30 a default sync took over 2 min.
			cmd, err := c.MPIRun(ctx, f.Name, 2, 1, bin, "-steps", "1", "-ppm", "1000", "-sync", "hca3o", "-sync", "hca3:fitpts=100,exchanges=20")
			if err != nil {
				t.Fatal(err)
			}
			b, err := cmd.Output()
			out := string(b)
			if err != nil {
				t.Fatalf("%v (ctx: %v)\n%s", err, ctx.Err(), out)
			}
			t.Logf("node 1 skew %+.3f ppm\n%s", skew, out)
			if !strings.Contains(out, "(true)") {
				t.Fatalf("no true-error columns across the nodes of one kernel:\n%s", out)
			}
			row := func(after string) (offsetOnly, driftAware float64) {
				m := regexp.MustCompile(`(?m)^` + after + `\s+\S+\s+(\S+)\s+\S+\s+(\S+)$`).FindStringSubmatch(out)
				if m == nil {
					t.Fatalf("no row for %s s in output:\n%s", after, out)
				}
				offsetOnly, _ = strconv.ParseFloat(m[1], 64)
				driftAware, _ = strconv.ParseFloat(m[2], 64)
				return offsetOnly, driftAware
			}
			o0, d0 := row(`0\.0`)
			o1, d1 := row(`1\.0`)
			// Rank 1's clock runs (1 + 1000e-6)(1 + skew·1e-6) − 1 fast:
			// 1000 + skew ppm to 0.1 ppm; in ≥ 1 s its error grows by at
			// least 0.9 of that (see TestMpirun).
			want := 1000 + skew
			if g := o1 - o0; g < 0.9*want {
				t.Errorf("hca3o: true error grew by %g µs in ≥ 1 s, want ≥ %g µs", g, want)
			}
			// Open MPI's drift-aware clock removes at least half of the drift
			// (0.017 → 0.028 µs at load 30, where the offset-only error grew
			// by 1068 µs). MPICH's is not asserted: its ranks busy-poll, and
			// across namespaces on this 2-core machine under load the fit
			// goes wrong (26 → 226 µs, and −12.8 → −19.2 ms, at load 30-38),
			// while the truth it is judged by is still exact. Under CPU load
			// Open MPI's sync across the bridge is itself off by milliseconds
			// (docs/measured.md, "Under CPU load, Open MPI's bound does not
			// hold"): with two busy loops alongside, this fixed-count fit passed
			// 6 of 6 runs and the default learner failed 5 of 6, and one
			// clean-clone CI run failed here (the error grew by 1150 µs). The fixed count stays, and the test wants a quiet machine.
			if g := math.Abs(d1 - d0); f.Name == "openmpi" && g > 0.5*(o1-o0) {
				t.Errorf("hca3: true error %g µs at 0 s and %g µs at 1 s: grew by more than half the offset-only growth %g µs", d0, d1, o1-o0)
			}
		})
	}
}
