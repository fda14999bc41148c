package main

import (
	"math"
	"math/rand/v2"
	"path/filepath"
	"testing"
	"time"

	"github.com/reprobench/reprobench/analysis"
	"github.com/reprobench/reprobench/clocksync"
	"github.com/reprobench/reprobench/mpi/mpitest"
	"github.com/reprobench/reprobench/region"
	"github.com/reprobench/reprobench/timing"
)

// TestStencilGroundTruth runs the instrumented stencil on 2 simulated ranks
// whose clocks are up to 1 s apart and drift by up to ±50 ppm (mpitest's
// defaults, seed 11), with compute times drawn per rank and iteration
// (seed 5), and checks what the recorder wrote against the simulator's
// ground truth (World.TrueTime of every recorded timestamp):
//
//   - each region's runtime_s (largest duration over the ranks, each on its
//     own clock) equals the true largest duration within the clock model's
//     error: |drift|·duration + 1 resolution (1 ns) per rank's reading pair;
//   - entry_spread_s equals the true spread of the two ranks' entries within
//     the sum of their stated bounds, plus rank 0's drift times the spread
//     and 2 ns of resolution.
//
// The simulation is deterministic, so either bound holds for every row or
// for none: a failure is a bug, not noise.
func TestStencilGroundTruth(t *testing.T) {
	const p, iters = 2, 2000
	w, err := mpitest.New(mpitest.Config{Ranks: p, Seed: 11})
	if err != nil {
		t.Fatal(err)
	}
	sp, err := clocksync.ParseSpec("hca3:fitpts=100,exchanges=10")
	if err != nil {
		t.Fatal(err)
	}
	alg, err := sp.New()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	var res *region.Result
	err = w.Run(func(r *mpitest.Rank) error {
		rng := rand.New(rand.NewPCG(5, uint64(r.ID())))
		cfg := Config{Cells: 64, Iters: iters, Sync: alg,
			Out: region.Output{Dir: dir, RunID: "st", PerRank: true, Labels: map[string]string{"app": "stencil"}},
			// 10 µs of compute on rank 0, 12 µs on rank 1, ±2 µs uniform.
			Work: func(int) {
				r.Sleep(time.Duration(10_000+2_000*r.ID()) + time.Duration(rng.IntN(4001)-2000))
			}}
		out, err := Run(r.Comm(), r.Clock(), cfg)
		if r.ID() == 0 {
			res = out
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if got := len(res.Rows); got != 2*iters {
		t.Fatalf("%d rows, want %d", got, 2*iters)
	}
	bound := make([]float64, p)
	for _, l := range res.Record.PerRank {
		if l.BoundS == nil {
			t.Fatalf("rank %d states no clock bound", l.Rank)
		}
		bound[l.Rank] = *l.BoundS
		t.Logf("rank %d: bound %.1f ns, pair overhead %.0f ns (virtual), %d records, %d dropped", l.Rank, bound[l.Rank]*1e9, l.PairOverheadNs, l.Records, l.Dropped)
	}
	if res.Record.Sync != "start+end" {
		t.Errorf("sync %q, want start+end", res.Record.Sync)
	}
	const res1 = 1e-9 // resolution
	worstDur, worstSpread := 0.0, 0.0
	for _, row := range res.Rows {
		if row.Nranks != p || row.ErrorCode != 0 {
			t.Fatalf("row %v: %d ranks, errorcode %d", row, row.Nranks, row.ErrorCode)
		}
		if want := int64(row.Rep); row.Iter != want {
			t.Fatalf("row %v: iter %d, want %d", row, row.Iter, want)
		}
		trueDur, tol := 0.0, 0.0
		lo, hi := math.Inf(1), math.Inf(-1)
		for r, s := range row.PerRank {
			ts := w.TrueTime(r, timing.Ticks(math.Round(s.LocalStartS*1e9)))
			te := w.TrueTime(r, timing.Ticks(math.Round(s.LocalEndS*1e9)))
			trueDur = math.Max(trueDur, te-ts)
			tol = math.Max(tol, math.Abs(w.TrueDriftPPM(r, ts))*1e-6*(te-ts)+res1)
			lo, hi = math.Min(lo, ts), math.Max(hi, ts)
		}
		if d := math.Abs(row.RuntimeS - trueDur); d > tol+1e-12 {
			t.Fatalf("row %v: runtime_s %.9g, true %.9g: off by %.3g s, allowed %.3g", row, row.RuntimeS, trueDur, d, tol)
		} else {
			worstDur = math.Max(worstDur, d)
		}
		trueSpread := hi - lo
		allowed := bound[0] + bound[1] + math.Abs(w.TrueDriftPPM(0, lo))*1e-6*trueSpread + 2*res1
		if d := math.Abs(row.EntrySpreadS - trueSpread); d > allowed {
			t.Fatalf("row %v: entry spread %.9g, true %.9g: off by %.3g s, allowed %.3g", row, row.EntrySpreadS, trueSpread, d, allowed)
		} else {
			worstSpread = math.Max(worstSpread, d)
		}
	}
	t.Logf("largest error: runtime_s %.2f ns, entry_spread_s %.2f ns (allowed %.1f ns + drift)", worstDur*1e9, worstSpread*1e9, (bound[0]+bound[1])*1e9)

	// The files are what analyze and compare --by region read: one group
	// per region, np 2, labels app and region.
	d := analysis.NewDataset()
	if err := d.ReadFiles(filepath.Join(dir, "st-mpirun000.csv"), filepath.Join(dir, "st-mpirun000.ranks.csv")); err != nil {
		t.Fatal(err)
	}
	if len(d.Groups) != 2 || len(d.PerRank) != 2 {
		t.Fatalf("%d groups, %d per-rank groups, want 2 and 2", len(d.Groups), len(d.PerRank))
	}
	for _, g := range d.Groups {
		if len(g.Runtimes) != iters || g.Key.LabelValue("region") == "" || g.Key.LabelValue("app") != "stencil" {
			t.Errorf("group %v: %d runtimes", g.Key, len(g.Runtimes))
		}
	}
	cmp, err := analysis.CompareBy(d, "region", analysis.DefaultOptions)
	if err != nil || len(cmp) != 1 {
		t.Fatalf("CompareBy region: %d rows, %v", len(cmp), err)
	}
}
