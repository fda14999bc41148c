package vcluster

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/reprobench/reprobench/internal/mpirun"
)

// TestRunAcrossNodes runs a windowed "reprobench run" on 2 nodes × 1 rank
// whose clocks differ by days and drift apart by the node's skew. Every
// clock read of the rank on the skewed node must see that skew (run applies
// clocksync.NodeSkew): the drift its clock sync learns is the node's, where
// before it learned 0 ppm (rank 1, seed 1: −0.05 ± 0.05 ppm learned against
// +65.547 injected; 65.56 ± 0.06 with the skew applied). The clock sync is
// the default (hca3 to the run's derived accuracy target); see
// checkDrift for what is asserted. The same mpirun measures the allreduce
// under barrier and window synchronization, and checkWindows asserts that
// the windows work across the nodes.
func TestRunAcrossNodes(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: no MPI launches")
	}
	requireVCluster(t)
	fs := flavors(t)
	c := newCluster(t, Config{Nodes: 2, Seed: 1, MaxSkewPPM: 100})
	skew := c.Nodes[1].SkewPPM - c.Nodes[0].SkewPPM
	if math.Abs(skew) < 50 {
		t.Fatalf("seed 1 gives node 1 a skew of %g ppm; the test needs one far from 0", skew)
	}
	const nrep = 1000
	for _, f := range fs {
		t.Run(f, func(t *testing.T) {
			bin := buildReprobench(t, f)
			out := t.TempDir()
			ctx, cancel := context.WithTimeout(context.Background(), mpirun.Deadline(3*time.Minute))
			defer cancel()
			before, err := mpirun.BusyCPUs(probeTime)
			if err != nil {
				t.Fatal(err)
			}
			cmd, err := c.MPIRun(ctx, f, 2, 1, bin, "run", "--calls", "allreduce", "--sizes", "8",
				"--proc-sync", "barrier,window", "--nrep", fmt.Sprint(nrep), "--clock-sync", "hca3", "--out", out)
			if err != nil {
				t.Fatal(err)
			}
			if b, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("%v (ctx: %v)\n%s", err, ctx.Err(), tail(string(b)))
			}
			after, err := mpirun.BusyCPUs(probeTime)
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("other processes kept %.2f CPUs busy before the run, %.2f after", before, after)
			side, _ := filepath.Glob(filepath.Join(out, "*.json"))
			raw, _ := filepath.Glob(filepath.Join(out, "*.csv"))
			if len(side) != 1 || len(raw) != 1 {
				t.Fatalf("want one sidecar and one raw CSV, got %v %v", side, raw)
			}
			var meta struct {
				ClockSyncs []struct {
					Result struct {
						PerRank     []rankSync      `json:"per_rank"`
						Descheduled json.RawMessage `json:"descheduled"`
					} `json:"result"`
				} `json:"clock_syncs"`
			}
			b, err := os.ReadFile(side[0])
			if err != nil {
				t.Fatal(err)
			}
			if err := json.Unmarshal(b, &meta); err != nil {
				t.Fatal(err)
			}
			if len(meta.ClockSyncs) == 0 || len(meta.ClockSyncs[0].Result.PerRank) != 2 {
				t.Fatalf("sidecar has no per-rank clock sync: %s", tail(string(b)))
			}
			for _, cs := range meta.ClockSyncs {
				checkDrift(t, cs.Result.PerRank[1], c.Nodes[0].SkewPPM, c.Nodes[1].SkewPPM, len(cs.Result.Descheduled) > 0 && string(cs.Result.Descheduled) != "null")
			}
			checkWindows(t, raw[0], side[0], nrep, max(before, after))
		})
	}
}

// rankSync is the part of a rank's clock sync record (clocksync.RankRecord)
// that checkDrift reads.
type rankSync struct {
	Rank    int     `json:"rank"`
	Slope   float64 `json:"slope"`
	SlopeSE float64 `json:"slope_se"`
	Span    float64 `json:"fit_span_s"`
	Bound   struct {
		Slope   float64 `json:"bound_slope"`
		Unknown bool    `json:"bound_unknown"`
		Why     string  `json:"bound_unknown_why"`
	} `json:"bound"`
}

// checkDrift asserts that a rank on a node skewed by ppm1 against rank 0's
// node (ppm0) learned that drift within its own stated uncertainty, the
// slope part of its predicted bound (3 standard errors of the fitted slope
// plus the systematic term, clocksync.SlopeWanderTerm(RTT) / span), and,
// unless the sync's ranks were descheduled (descheduled: it then states
// the worst case, wide by construction, or nothing), that the uncertainty
// is narrow enough to tell a learned drift from a missed one and stated.
//
// The true slope of the rank's model (offset = slope·local + intercept,
// local the skewed clock) is (ppm1 − ppm0)/(1 + ppm1) parts: 4 ppb from
// ppm1 − ppm0 at 65 ppm, a tenth of the bound.
//
// It cannot pass by luck: a missed skew is off by the whole skew (50 ppm or
// more here), and a stated uncertainty above a quarter of it fails (quiet
// runs state 0.2–1.3 ppm). It does not fail by chance: the learned drift's
// error over the slope part of the bound, with a systematic term of
// 40 ns + 5 % of the RTT, was at most 0.59 in the 40 syncs of make
// vcluster ×10 (with 40 ns + 2 % one of 27 syncs had read
// 1.22, and with 0.5 % one of 40 had read 1.09), and the cross-node
// calibration links of bench/clocksync/calib read at most 0.33 with 5 %
// (replay.txt, column "s/b max"). The present term, the larger of 40 ns
// and 5 %, is 0.94 of that on these 13 µs links. A run checks 2–4 syncs; the counts of the
// latest proof runs are in docs/reliability.md.
func checkDrift(t *testing.T, pr rankSync, ppm0, ppm1 float64, descheduled bool) {
	t.Helper()
	truth := (ppm1 - ppm0) / (1 + ppm1*1e-6)
	learned, stated := pr.Slope*1e6, pr.Bound.Slope*1e6
	t.Logf("rank %d learned %.4f ppm (±%.4f ppm stated, slope SE %.4f ppm, fit span %.3f s, descheduled %v); true drift %+.4f ppm",
		pr.Rank, learned, stated, pr.SlopeSE*1e6, pr.Span, descheduled, truth)
	switch {
	case pr.Bound.Unknown && descheduled:
		t.Logf("rank %d stated no bound (%s): ranks descheduled", pr.Rank, pr.Bound.Why)
	case pr.Bound.Unknown:
		t.Errorf("rank %d stated no bound (%s): the clock sync learned no usable drift", pr.Rank, pr.Bound.Why)
	case !descheduled && stated > math.Abs(truth)/4:
		t.Errorf("rank %d stated ±%.3f ppm: too wide to tell the node's drift %+.3f ppm from a missed one", pr.Rank, stated, truth)
	case math.Abs(learned-truth) > stated:
		t.Errorf("rank %d learned %.4f ppm, %.4f ppm from the true %+.4f ppm: outside its stated ±%.4f ppm", pr.Rank, learned, learned-truth, truth, stated)
	}
}
