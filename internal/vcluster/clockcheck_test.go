package vcluster

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// buildReprobench builds cmd/reprobench for a flavor.
func buildReprobench(t *testing.T, flavor string) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "reprobench-"+flavor)
	args := []string{"build", "-o", bin}
	if flavor == "mpich" {
		args = append(args, "-tags", "mpich")
	}
	if out, err := exec.Command("go", append(args, "../../cmd/reprobench")...).CombinedOutput(); err != nil {
		t.Fatalf("go build reprobench for %s: %v\n%s", flavor, err, out)
	}
	return bin
}

// TestClockcheckAcrossNodes synchronizes real ranks on namespaced nodes
// whose CLOCK_MONOTONIC differ by up to ±1000 s and drift by up to ±100 ppm,
// and checks the exact truth: it is there, it agrees with the ping-pong
// measurement, and it sees SKaMPI's error grow with exactly the injected
// skew. Two-level must find the nodes itself (MPI_Comm_split_type SHARED).
// HCA3 on 2 × 1 runs the default, whose
// stated bound must cover every rank's true error at every check: on the
// calibration records (bench/clocksync/calib.sh, 160 links
// across 2 nodes) and in the 63 clockchecks with no flags across 2 nodes
// of bench/clocksync/out/defaults-*/vcluster (bench/clocksync/defaults.sh)
// it covered every one, the true error right after the sync at most 0.66
// of the bound. It is a statistical
// bound, and one CI run of this test saw it miss right after
// the sync (0.899 µs stated, 1.285 µs true; after 2 s 3.150 µs covered
// 1.268 µs): a miss is logged and the sync repeated once, and a second
// miss fails. The other drift-aware algorithms' errors are logged; their
// accuracy depends on the load and is measured by vcluster bench (make
// vcluster RUNS=10). RB_VCLUSTER_AFTER sets the checks (default 0,2s); the
// docs/measured.md's numbers come from make vcluster RUNS=10.
func TestClockcheckAcrossNodes(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: no MPI launches")
	}
	requireVCluster(t)
	fs := flavors(t)
	after := os.Getenv("RB_VCLUSTER_AFTER")
	if after == "" {
		after = "0,2s"
	}
	c := newCluster(t, Config{Nodes: 4, Seed: 1, MaxOffset: 1000 * time.Second, MaxSkewPPM: 100})
	for _, n := range c.Nodes {
		t.Logf("node %s: offset %v, skew %+g ppm", n.Name, n.Offset, n.SkewPPM)
	}
	// Fewer fit points than the defaults (1000 × 100 exchanges): CI time
	// stays modest on a loaded 2-core machine, where 4 ranks of a
	// busy-polling MPICH share 2 cores.
	const light = ":fitpts=100,exchanges=20"
	cases := []struct {
		alg, params    string
		nodes, perNode int
	}{
		{"hca3", "", 2, 1}, {"jk", light, 2, 2}, {"twolevel", light, 2, 2}, {"skampi", "", 4, 1},
	}
	for _, f := range fs {
		bin := buildReprobench(t, f)
		for _, tc := range cases {
			t.Run(fmt.Sprintf("%s/%s/%dx%d", f, tc.alg, tc.nodes, tc.perNode), func(t *testing.T) {
				ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
				defer cancel()
				r, err := c.Clockcheck(ctx, f, tc.nodes, tc.perNode, bin, tc.alg+tc.params, after)
				if err != nil {
					t.Fatal(err)
				}
				if miss := structureMiss(r, tc.alg, tc.perNode); miss != "" {
					// A node whose two offset checks disagree (ranks
					// descheduled between them: busy-polling MPICH ranks
					// share 2 cores here) is synchronized to its leader
					// instead, by design. Once is load; a second sync must
					// find the structure, and both are logged.
					t.Logf("first sync: %s; synchronizing once more", miss)
					if r, err = c.Clockcheck(ctx, f, tc.nodes, tc.perNode, bin, tc.alg+tc.params, after); err != nil {
						t.Fatal(err)
					}
				}
				checkTruth(t, c, r, tc.alg, tc.perNode)
				if tc.params != "" || tc.alg != "hca3" {
					return
				}
				if miss := boundMiss(r); miss != "" {
					// The bound is statistical (3 standard errors and
					// calibrated terms), so one sync in many may miss: a
					// second sync must then hold, and both are logged.
					// Two misses in a row fail the test.
					t.Logf("first sync: %s; synchronizing once more", miss)
					if r, err = c.Clockcheck(ctx, f, tc.nodes, tc.perNode, bin, tc.alg+tc.params, after); err != nil {
						t.Fatal(err)
					}
				}
				checkBound(t, r)
			})
		}
	}
}

func checkTruth(t *testing.T, c *Cluster, r *ClockcheckReport, alg string, perNode int) {
	t.Helper()
	if r.Truth != "shared clock" || len(r.Checks) < 2 {
		t.Fatalf("truth %q, %d checks: want the shared clock and at least 2 checks", r.Truth, len(r.Checks))
	}
	first, last := r.Checks[0], r.Checks[len(r.Checks)-1]
	for _, ck := range r.Checks {
		if ck.TrueMaxAbs == nil || len(ck.TrueErrors) != r.Ranks || len(ck.Offsets) != r.Ranks {
			t.Fatalf("after %gs: no true errors per rank", ck.After)
		}
		t.Logf("after %5gs: true max |error| %9.3f µs, measured max |offset| %9.3f µs (sync %.2fs)", ck.After, *ck.TrueMaxAbs*1e6, ck.MaxAbs*1e6, r.SyncDuration)
		// The ping-pong estimate and the truth describe the same error; a
		// wrong truth (a node offset missed) is off by whole seconds (node
		// offsets differ by 1 to 2000 s). The bound is loose: on a loaded
		// machine a ping-pong can wait for a core, and MPICH's busy-polling
		// ranks across namespaces have measured 5.1 ms against a true
		// 0.1 µs at load 16.
		for i := range ck.Offsets {
			if d := math.Abs(ck.Offsets[i] - ck.TrueErrors[i]); d > 0.5 {
				t.Errorf("after %gs rank %d: measured %g s, true %g s: apart by %g s", ck.After, i, ck.Offsets[i], ck.TrueErrors[i], d)
			}
		}
	}
	// The growth of each rank's true error between the first and the last
	// check, against the drift injected between its node and rank 0's. The
	// truth is read at one instant for all ranks, so with offsets only
	// (SKaMPI) every rank's growth is its drift times the same elapsed
	// time E. E is the checks' distance dt plus the time the last check's
	// ping-pongs took before its truth was read, less the first check's:
	// near dt on a quiet machine, 8.5 % above it in an MPICH 4 × 1 run at
	// load 14. What must hold exactly is that E is one for all ranks.
	dt := last.After - first.After
	var ratios []float64
	for i := 1; i < r.Ranks; i++ {
		grow := last.TrueErrors[i] - first.TrueErrors[i]
		inj := (c.Nodes[i/perNode].SkewPPM - c.Nodes[0].SkewPPM) * 1e-6 * dt
		if alg == "skampi" {
			if inj == 0 || grow/inj < 0.5 || grow/inj > 1.5 {
				t.Errorf("skampi rank %d: error grew by %g s in %gs, the injected skew %g s", i, grow, dt, inj)
			}
			ratios = append(ratios, grow/inj)
			continue
		}
		// How well a drift-aware algorithm learned the drift depends on the
		// machine's load (a fit over ping-pongs that waited for a core);
		// the accuracy is measured by vcluster bench, not asserted here.
		t.Logf("%s rank %d: true error grew by %.3f µs in %gs; injected skew %.3f µs", alg, i, grow*1e6, dt, inj*1e6)
	}
	for _, q := range ratios {
		if math.Abs(q-ratios[0]) > 0.02 {
			t.Errorf("skampi: error growth / injected skew differs between ranks: %v (one elapsed time for all)", ratios)
			break
		}
	}
	if miss := structureMiss(r, alg, perNode); miss != "" {
		t.Error(miss)
	}
}

// structureMiss returns, for twolevel, the first rank whose fit points
// contradict the node structure (node leaders learn a fitted model from
// the leader of node 0; the others get their leader's clock through an
// offset only), or "".
func structureMiss(r *ClockcheckReport, alg string, perNode int) string {
	if alg != "twolevel" {
		return ""
	}
	for _, pr := range r.PerRank {
		leader := pr.Rank%perNode == 0
		if pr.Rank > 0 && leader != (pr.FitPoints > 1) {
			return fmt.Sprintf("twolevel rank %d (node %d, leader %v): %d fit points: the node structure was not found", pr.Rank, pr.Rank/perNode, leader, pr.FitPoints)
		}
	}
	return ""
}

// boundMiss returns what the stated bound of a clockcheck of the default
// missed (the first check whose bound did not cover every rank's true
// error), or "" when it covered them all or states none.
func boundMiss(r *ClockcheckReport) string {
	for _, ck := range r.Checks {
		if ck.Bound != nil && ck.RanksCovered != nil && ck.RanksJudged != nil && *ck.RanksCovered != *ck.RanksJudged {
			return fmt.Sprintf("after %gs the stated bound (%.3f µs) covered %d of %d ranks' true errors (max %.3f µs)",
				ck.After, *ck.Bound*1e6, *ck.RanksCovered, *ck.RanksJudged, *ck.TrueMaxAbs*1e6)
		}
	}
	return ""
}

// checkBound asserts that a clockcheck of the default learned to the
// default target and that its stated bound covered every rank's true error
// at every check.
func checkBound(t *testing.T, r *ClockcheckReport) {
	t.Helper()
	if r.Target == "" {
		t.Errorf("%s: no accuracy target: the default is not the accuracy target", r.Algorithm)
	}
	if miss := boundMiss(r); miss != "" {
		t.Error(miss)
	}
	for _, ck := range r.Checks {
		switch {
		case ck.Bound == nil || ck.RanksCovered == nil || ck.RanksJudged == nil:
			t.Errorf("after %gs: no stated bound (descheduled: %s)", ck.After, r.Descheduled)
		case *ck.RanksJudged != r.Ranks:
			t.Errorf("after %gs: the stated bound judged %d of %d ranks", ck.After, *ck.RanksJudged, r.Ranks)
		case *ck.RanksCovered == *ck.RanksJudged:
			t.Logf("after %5gs: stated bound %.3f µs covers the true max |error| %.3f µs", ck.After, *ck.Bound*1e6, *ck.TrueMaxAbs*1e6)
		}
	}
}

// TestBoundMiss: boundMiss names the first check whose stated bound left a
// rank's true error uncovered (as one CI run saw), and nothing for
// a report whose bounds covered every rank or that states none.
func TestBoundMiss(t *testing.T) {
	for _, c := range []struct{ name, checks, want string }{
		{"covered", `[{"after_s":0,"true_max_abs_error_s":1e-7,"predicted_bound_s":6e-7,"ranks_within_own_bound":2,"ranks_judged":2}]`, ""},
		{"no bound", `[{"after_s":0,"true_max_abs_error_s":1e-7}]`, ""},
		{"missed", `[{"after_s":0,"true_max_abs_error_s":1.285e-6,"predicted_bound_s":8.99e-7,"ranks_within_own_bound":1,"ranks_judged":2},
			{"after_s":2,"true_max_abs_error_s":1.268e-6,"predicted_bound_s":3.15e-6,"ranks_within_own_bound":2,"ranks_judged":2}]`,
			"after 0s the stated bound (0.899 µs) covered 1 of 2 ranks' true errors (max 1.285 µs)"},
	} {
		var r ClockcheckReport
		if err := json.Unmarshal([]byte(`{"checks":`+c.checks+`}`), &r); err != nil {
			t.Fatal(err)
		}
		if got := boundMiss(&r); got != c.want {
			t.Errorf("%s: boundMiss = %q, want %q", c.name, got, c.want)
		}
	}
}
