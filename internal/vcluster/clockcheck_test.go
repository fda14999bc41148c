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

	"github.com/reprobench/reprobench/clocksync"
	"github.com/reprobench/reprobench/internal/mpirun"
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
// skew. It asserts only what holds under any load (4 ranks on 2 cores
// here, with other work beside them):
//
//   - two-level finds the node structure from facts (boot id, clock source,
//     node skew): every rank that does not lead its node takes its
//     leader's counter (clocksync.IntraCounter), whatever its offset
//     measurements said;
//   - a rank that waited for a CPU during more than half of the sync is
//     reported (descheduled), and the sync then states the worst case or
//     nothing;
//   - a stated bound covers every rank's true error at every check. A
//     worst-case bound (descheduled ranks) is a hard bound and must hold
//     every time. A statistical bound (3 standard errors and calibrated
//     terms, on the calibration records and 63 clockchecks across 2 nodes
//     of bench/clocksync/defaults.sh it covered every one) may miss in one
//     sync of many, as one CI run saw (0.899 µs stated, 1.285 µs true): a
//     miss is logged and the sync repeated once, and a second miss fails.
//
// How accurate the drift-aware algorithms are depends on the load and is
// measured by vcluster bench (make vcluster RUNS=10), not asserted here.
// RB_VCLUSTER_AFTER sets the checks (default 0,2s).
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
	// Fewer fit points than the published counts (1000 × 100 exchanges):
	// CI time stays modest on a loaded 2-core machine, where 4 ranks of a
	// busy-polling MPICH share 2 cores.
	const light = ":fitpts=100,exchanges=20"
	cases := []struct {
		alg, params    string
		nodes, perNode int
	}{
		{"hca3", "", 2, 1}, {"jk", light, 2, 2}, {"twolevel", light, 2, 2}, {"twolevel", "", 2, 2}, {"skampi", "", 4, 1},
	}
	for _, f := range fs {
		bin := buildReprobench(t, f)
		for _, tc := range cases {
			name := fmt.Sprintf("%s/%s/%dx%d", f, tc.alg, tc.nodes, tc.perNode)
			if tc.params != "" {
				name = fmt.Sprintf("%s/%s-light/%dx%d", f, tc.alg, tc.nodes, tc.perNode)
			}
			t.Run(name, func(t *testing.T) {
				ctx, cancel := context.WithTimeout(context.Background(), mpirun.Deadline(3*time.Minute))
				defer cancel()
				r, err := c.Clockcheck(ctx, f, tc.nodes, tc.perNode, bin, tc.alg+tc.params, after)
				if err != nil {
					t.Fatal(err)
				}
				if miss := boundMiss(r); miss != "" && len(r.Descheduled) == 0 {
					// A statistical bound may miss in one sync of many: a
					// second sync must then hold, and both are logged.
					t.Logf("first sync: %s; synchronizing once more", miss)
					if r, err = c.Clockcheck(ctx, f, tc.nodes, tc.perNode, bin, tc.alg+tc.params, after); err != nil {
						t.Fatal(err)
					}
				}
				checkTruth(t, c, r, tc.alg, tc.perNode)
				checkUnderLoad(t, r, tc.alg, tc.perNode)
				if tc.alg == "hca3" && tc.params == "" {
					checkDefaultTarget(t, r)
				}
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
		t.Logf("%s rank %d: true error grew by %.3f µs in %gs; injected skew %.3f µs", alg, i, grow*1e6, dt, inj*1e6)
	}
	for _, q := range ratios {
		if math.Abs(q-ratios[0]) > 0.02 {
			t.Errorf("skampi: error growth / injected skew differs between ranks: %v (one elapsed time for all)", ratios)
			break
		}
	}
}

// checkUnderLoad asserts what holds whatever the load: the node structure
// from facts (structureMiss), a run that lost its CPU reported
// (lostCPUUnreported), and a stated bound that covers every rank's true
// error (boundMiss).
func checkUnderLoad(t *testing.T, r *ClockcheckReport, alg string, perNode int) {
	t.Helper()
	if miss := structureMiss(r, alg, perNode); miss != "" {
		t.Error(miss)
	}
	if miss := lostCPUUnreported(r); miss != "" {
		t.Error(miss)
	}
	if miss := boundMiss(r); miss != "" {
		t.Errorf("%s (descheduled: %s)", miss, r.Descheduled)
	}
	switch {
	case r.Bound.Unknown:
		t.Logf("no bound stated: %s (descheduled: %s)", r.Bound.Why, r.Descheduled)
	case len(r.Descheduled) > 0:
		t.Logf("worst-case bound stated (ranks descheduled): %.3f µs + %.3g ppm", r.Bound.AtSync*1e6, r.Bound.Slope*1e6)
	}
}

// structureMiss returns, for twolevel on nodes of several ranks, the first
// rank that does not lead its node and did not take its leader's counter
// from the facts (clocksync.IntraCounter), or "". Node leaders learn a
// fitted model from the leader of node 0.
func structureMiss(r *ClockcheckReport, alg string, perNode int) string {
	if alg != "twolevel" || perNode < 2 {
		return ""
	}
	for _, pr := range r.PerRank {
		leader := pr.Rank%perNode == 0
		if !leader && pr.Intra != clocksync.IntraCounter {
			return fmt.Sprintf("twolevel rank %d (node %d): intra %q, %d fit points: the node structure was not found from the facts", pr.Rank, pr.Rank/perNode, pr.Intra, pr.FitPoints)
		}
	}
	return ""
}

// lostCPUUnreported returns the first rank that waited for a CPU during
// more than clocksync.DescheduledMajority of the sync without the report
// saying the ranks were descheduled, or "" (skampi learns from no timed
// fit, and a node whose ranks all read one counter learns nothing from
// exchanges: neither is judged, clocksync.DeschedulingRule).
func lostCPUUnreported(r *ClockcheckReport) string {
	if len(r.Descheduled) > 0 || r.Bound.Why == clocksync.WhyOffsetOnly {
		return ""
	}
	for _, pr := range r.PerRank {
		if pr.CPUWait != nil && pr.Duration > 0 && *pr.CPUWait > clocksync.DescheduledMajority*pr.Duration {
			return fmt.Sprintf("rank %d waited for a CPU during %.0f %% of the sync, and the report does not say it was descheduled", pr.Rank, 100**pr.CPUWait/pr.Duration)
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

// checkDefaultTarget asserts that a clockcheck of the default learned to
// the default target, and logs each check's stated bound against the
// truth (boundMiss asserts the coverage).
func checkDefaultTarget(t *testing.T, r *ClockcheckReport) {
	t.Helper()
	if r.Target == "" {
		t.Errorf("%s: no accuracy target: the default is not the accuracy target", r.Algorithm)
	}
	for _, ck := range r.Checks {
		if ck.Bound != nil && ck.TrueMaxAbs != nil {
			t.Logf("after %5gs: stated bound %.3f µs, true max |error| %.3f µs", ck.After, *ck.Bound*1e6, *ck.TrueMaxAbs*1e6)
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

// TestUnderLoadChecks: structureMiss names a two-level rank that did not
// take its leader's counter from the facts (the case: a
// non-leader that learned 100 fit points because its offset checks
// disagreed under load, and one that took a measured offset), and nothing
// for leaders or other algorithms; lostCPUUnreported names a rank that
// waited most of the sync in a report that does not say so.
func TestUnderLoadChecks(t *testing.T) {
	parse := func(js string) *ClockcheckReport {
		var r ClockcheckReport
		if err := json.Unmarshal([]byte(js), &r); err != nil {
			t.Fatal(err)
		}
		return &r
	}
	counter := `{"rank":1,"fit_points":1,"intra":"` + clocksync.IntraCounter + `"}`
	for _, c := range []struct {
		name, perRank, alg string
		want               string
	}{
		{"facts", `[{"rank":0},` + counter + `,{"rank":2,"fit_points":200},{"rank":3,"fit_points":1,"intra":"` + clocksync.IntraCounter + `"}]`, "twolevel", ""},
		{"fitted under load", `[{"rank":0},{"rank":1,"fit_points":100,"intra":"` + clocksync.IntraNotShared + `"},{"rank":2,"fit_points":100},` + counter + `]`, "twolevel",
			`twolevel rank 1 (node 0): intra "` + clocksync.IntraNotShared + `", 100 fit points: the node structure was not found from the facts`},
		{"offset measured", `[{"rank":0},{"rank":1,"fit_points":1,"intra":"` + clocksync.IntraShared + `"}]`, "twolevel",
			`twolevel rank 1 (node 0): intra "` + clocksync.IntraShared + `", 1 fit points: the node structure was not found from the facts`},
		{"other algorithm", `[{"rank":0},{"rank":1,"fit_points":100}]`, "jk", ""},
	} {
		if got := structureMiss(parse(`{"per_rank":`+c.perRank+`}`), c.alg, 2); got != c.want {
			t.Errorf("%s: structureMiss = %q, want %q", c.name, got, c.want)
		}
	}
	lost := `{"per_rank":[{"rank":0,"cpu_wait_s":0.1,"sync_duration_s":1},{"rank":1,"cpu_wait_s":0.7,"sync_duration_s":1}]`
	if got := lostCPUUnreported(parse(lost + `}`)); got == "" {
		t.Error("a rank that waited 70 % of the sync, unreported: lostCPUUnreported found nothing")
	}
	if got := lostCPUUnreported(parse(lost + `,"descheduled":{"rank":1}}`)); got != "" {
		t.Errorf("reported: lostCPUUnreported = %q", got)
	}
}
