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
)

// TestRunAcrossNodes runs a windowed "reprobench run" on 2 nodes × 1 rank
// whose clocks differ by days and drift apart by the node's skew. Every
// clock read of the rank on the skewed node must see that skew (run applies
// clocksync.NodeSkew): the drift its clock sync learns is the node's, where
// before it learned 0 ppm (rank 1, seed 1: −0.05 ± 0.05 ppm learned against
// +65.547 injected; 65.56 ± 0.06 with the skew applied). The same mpirun
// measures the allreduce under barrier and window synchronization, and
// checkWindows asserts that the windows work across the nodes.
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
			ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
			defer cancel()
			cmd, err := c.MPIRun(ctx, f, 2, 1, bin, "run", "--calls", "allreduce", "--sizes", "8",
				"--proc-sync", "barrier,window", "--nrep", fmt.Sprint(nrep), "--clock-sync", "hca3:fitpts=200,exchanges=20", "--out", out)
			if err != nil {
				t.Fatal(err)
			}
			if b, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("%v (ctx: %v)\n%s", err, ctx.Err(), tail(string(b)))
			}
			side, _ := filepath.Glob(filepath.Join(out, "*.json"))
			raw, _ := filepath.Glob(filepath.Join(out, "*.csv"))
			if len(side) != 1 || len(raw) != 1 {
				t.Fatalf("want one sidecar and one raw CSV, got %v %v", side, raw)
			}
			var meta struct {
				ClockSyncs []struct {
					Result struct {
						PerRank []struct {
							Rank    int     `json:"rank"`
							Slope   float64 `json:"slope"`
							SlopeSE float64 `json:"slope_se"`
						} `json:"per_rank"`
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
			pr := meta.ClockSyncs[0].Result.PerRank[1]
			learned := pr.Slope * 1e6
			t.Logf("rank 1 learned %.3f ± %.3f ppm; node skew %+.3f ppm", learned, pr.SlopeSE*1e6, skew)
			// 20 ppm: a fit over 200 points spans about 0.1 s, and a loaded
			// machine delays some exchanges; a missed skew is off by 65 ppm.
			// Or 4 standard errors of the fit where it says it knows less:
			// MPICH's ranks busy-poll, and at load 26 its fit reported
			// ±170 ppm (Open MPI's ±1.2 ppm in the same minute).
			if math.Abs(learned-skew) > max(20, 4*pr.SlopeSE*1e6) {
				t.Errorf("rank 1 learned a drift of %.3f ppm, the node's is %+.3f ppm", learned, skew)
			}
			checkWindows(t, raw[0], side[0], nrep)
		})
	}
}
