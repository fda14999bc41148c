package analysis_test

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/reprobench/reprobench/analysis"
	"github.com/reprobench/reprobench/clocksync"
	"github.com/reprobench/reprobench/mpi/mpitest"
	"github.com/reprobench/reprobench/rawdata"
	"github.com/reprobench/reprobench/region"
	"github.com/reprobench/reprobench/timing"
)

// imbalancedRun records, on p simulated ranks (mpitest seed 11: clocks up
// to 1 s apart, ±50 ppm drift), iters iterations of a "compute" region of
// work[r]·20 µs ± 2 µs (uniform, seed 7 per rank) and a "halo" region
// ending in a Barrier, plus one slow compute occurrence (+1 ms on rank 0
// at iteration iters/2), and writes them to a temporary directory. It
// returns the world, rank 0's result and the directory.
func imbalancedRun(t *testing.T, work []int, iters int) (*mpitest.World, *region.Result, string) {
	t.Helper()
	p := len(work)
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
		rng := rand.New(rand.NewPCG(7, uint64(r.ID())))
		rec, err := region.New(r.Comm(), r.Clock(), region.Options{Sync: alg})
		if err != nil {
			return err
		}
		for it := range iters {
			rec.SetIter(int64(it))
			rec.Begin("compute")
			d := time.Duration(work[r.ID()]*20_000+rng.IntN(4001)-2000) * time.Nanosecond
			if it == iters/2 && r.ID() == 0 {
				d += time.Millisecond
			}
			r.Sleep(d)
			rec.End("compute")
			rec.Begin("halo")
			if err := r.Comm().Barrier(); err != nil {
				return err
			}
			rec.End("halo")
		}
		out, err := rec.Close(region.Output{Dir: dir, RunID: "app", PerRank: true, Labels: map[string]string{"app": "sim"}})
		if r.ID() == 0 {
			res = out
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return w, res, dir
}

// truePOP computes the POP efficiencies from the simulator's true time of
// every recorded timestamp (World.TrueTime).
func truePOP(w *mpitest.World, res *region.Result, p int) (lb, comm, pe float64) {
	u := make([]float64, p)
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, row := range res.Rows {
		for r, s := range row.PerRank {
			if s.Rank < 0 {
				continue
			}
			ts := w.TrueTime(r, timing.Ticks(math.Round(s.LocalStartS*1e9)))
			te := w.TrueTime(r, timing.Ticks(math.Round(s.LocalEndS*1e9)))
			lo, hi = math.Min(lo, ts), math.Max(hi, te)
			if row.Region == "compute" {
				u[r] += te - ts
			}
		}
	}
	mean, mx := 0.0, 0.0
	for _, v := range u {
		mean, mx = mean+v/float64(p), math.Max(mx, v)
	}
	return mean / mx, mx / (hi - lo), mean / (hi - lo)
}

// TestRegionPOPGroundTruth: on a simulated world with a known imbalance
// (rank 0 does twice the work of the others), the POP efficiencies from
// the per-rank rows hold the true ones (from the simulator's true times)
// within their stated intervals, the intervals are narrow enough to
// conclude, and load balance is near its design value mean/max of the
// work (about 0.603 for 2,1,1,1 and 0.74 for 2,1 with the slow occurrence). The simulation is deterministic:
// a bound holds for every run or for none. A formula that is off (max/mean
// instead of mean/max, T without the halo) lands outside the intervals,
// which are below 0.005 wide (ρ = 500 ppm makes them about 4ρ wide).
func TestRegionPOPGroundTruth(t *testing.T) {
	for _, work := range [][]int{{2, 1}, {2, 1, 1, 1}} {
		p, iters := len(work), 400
		w, res, dir := imbalancedRun(t, work, iters)
		m, err := rawdata.ReadMetadata(filepath.Join(dir, "app-mpirun000.json"))
		if err != nil {
			t.Fatal(err)
		}
		opt := analysis.DefaultRegionOptions
		opt.Compute = []string{"compute"}
		a, err := analysis.AnalyzeRegionRun(analysis.MpirunID{RunID: "app"}, m, filepath.Join(dir, "app-mpirun000.ranks.csv"), opt)
		if err != nil {
			t.Fatal(err)
		}
		if a.Source != "per-rank rows" || a.POP == nil || len(a.Totals) != 2 {
			t.Fatalf("work %v: source %q, %d totals, POP %v", work, a.Source, len(a.Totals), a.POP)
		}
		lb, comm, pe := truePOP(w, res, p)
		// The design's useful time: work·20 µs per iteration, +1 ms once on
		// rank 0; the ±2 µs jitter sums to a standard deviation of 23 µs
		// per rank over 400 iterations, 0.3 % of the smallest total.
		var wsum, wmax float64
		for r, x := range work {
			u := float64(x) * 20e-6 * float64(iters)
			if r == 0 {
				u += 1e-3
			}
			wsum, wmax = wsum+u, math.Max(wmax, u)
		}
		design := wsum / float64(p) / wmax
		for _, c := range []struct {
			name  string
			e     analysis.Efficiency
			truth float64
		}{{"load balance", a.POP.LoadBalance, lb}, {"communication efficiency", a.POP.CommEfficiency, comm}, {"parallel efficiency", a.POP.ParallelEfficiency, pe}} {
			t.Logf("work %v: %s %v, true %.6f", work, c.name, c.e, c.truth)
			if !(c.e.Lo <= c.truth && c.truth <= c.e.Hi) || c.e.TooWide || c.e.Hi-c.e.Lo > 0.005 {
				t.Errorf("work %v: %s %v does not hold the truth %.6f in an interval under 0.005 wide", work, c.name, c.e, c.truth)
			}
		}
		if d := math.Abs(a.POP.LoadBalance.Value - design); d > 0.01 {
			t.Errorf("work %v: load balance %.4f, design %.4f", work, a.POP.LoadBalance.Value, design)
		}
		// Typical occurrences: the slow one weighs as one, so the work's own
		// balance, mean/max of work, shows (±2 µs jitter on 20 µs medians).
		var ws, wm float64
		for _, x := range work {
			ws, wm = ws+float64(x), math.Max(wm, float64(x))
		}
		if typ, want := a.POP.TypicalLoadBalance, ws/float64(p)/wm; math.Abs(typ.Value-want) > 0.02 || typ.TooWide {
			t.Errorf("work %v: typical load balance %v, want %.3f ± 0.02", work, typ, want)
		}
		for _, tt := range a.Totals {
			if tt.Region == "compute" && math.Abs(tt.Imbalance-1/design) > 0.02 {
				t.Errorf("work %v: compute imbalance %.4f, want about %.4f", work, tt.Imbalance, 1/design)
			}
			if tt.Ranks != p || tt.Labels != "" || tt.Count[0] != iters {
				t.Errorf("work %v: total %+v", work, tt)
			}
		}
		if a.Misuse.Any() || a.Incomplete {
			t.Errorf("work %v: misuse %v, incomplete %v", work, a.Misuse, a.Incomplete)
		}
	}
}

// TestRegionVocabularyAndKeep: region groups are named in the
// application's vocabulary, and the default analysis keeps the slow
// occurrence that Tukey's k = 1.5 removes when asked for.
func TestRegionVocabularyAndKeep(t *testing.T) {
	const iters = 400
	_, _, dir := imbalancedRun(t, []int{2, 1}, iters)
	d := analysis.NewDataset()
	if err := d.ReadFiles(filepath.Join(dir, "app-mpirun000.csv"), filepath.Join(dir, "app-mpirun000.ranks.csv")); err != nil {
		t.Fatal(err)
	}
	sums := analysis.Analyze(d, analysis.DefaultOptions)
	for _, s := range sums {
		name := s.Key.String()
		if !s.Key.Region || strings.Contains(name, "msize") || strings.Contains(name, "byte") || !strings.HasPrefix(name, "region=") {
			t.Errorf("group %q (region %v)", name, s.Key.Region)
		}
		if s.N != iters || s.OutliersRemoved != 0 {
			t.Errorf("%s: %d kept, %d removed, want all %d kept", name, s.N, s.OutliersRemoved, iters)
		}
	}
	for _, g := range d.PerRank {
		if name := g.Key.String(); !g.Key.Region || strings.Contains(name, "msize") {
			t.Errorf("per-rank group %q", name)
		}
	}
	opt := analysis.DefaultOptions
	opt.RegionTukeyK = 1.5
	removed := 0
	for _, s := range analysis.Analyze(d, opt) {
		removed += s.OutliersRemoved
	}
	if removed == 0 {
		t.Errorf("Tukey's k = 1.5 asked for removed nothing: the slow occurrence should go")
	}
}

// TestRegionSidecarTotals: from the sidecar's totals alone (hand-built:
// 2 ranks, compute totals 2 s and 1 s, run 2.5 s, bound 1 µs), the POP
// efficiencies are LB = 1.5/2 = 0.75, CommE = 2/2.5 = 0.8, PE = 0.6, each
// within ρ and the bound; a second compute region widens LB to the
// interval the totals allow; the misuse account and the incomplete mark
// are carried.
func TestRegionSidecarTotals(t *testing.T) {
	rec := map[string]any{
		"totals": []rawdata.RegionTotals{
			{Region: "compute", Ranks: 2, SumS: 3, MaxS: 2, MinS: 1},
			{Region: "halo", Ranks: 2, SumS: 1, MaxS: 0.9, MinS: 0.1},
			{Region: "io", Ranks: 2, SumS: 0.2, MaxS: 0.2, MinS: 0},
		},
		"run_s": 2.5, "bound_s": 1e-6, "compute": []string{"compute"},
		"misuse":     rawdata.RegionMisuse{Misuses: 1, Drops: 2, First: `End("x") without Begin`},
		"incomplete": true,
	}
	b, err := json.Marshal(rec)
	if err != nil {
		t.Fatal(err)
	}
	m := &rawdata.Metadata{Np: 2, Regions: b}
	opt := analysis.DefaultRegionOptions
	a, err := analysis.AnalyzeRegionRun(analysis.MpirunID{RunID: "x"}, m, "", opt)
	if err != nil {
		t.Fatal(err)
	}
	if a.Source != "sidecar totals" || !a.Incomplete || a.Misuse.Misuses != 1 || a.Misuse.Drops != 2 || a.POP == nil {
		t.Fatalf("analysis %+v", a)
	}
	const rho = 500e-6
	for _, c := range []struct {
		name string
		e    analysis.Efficiency
		want float64
		tol  float64
	}{
		{"LB", a.POP.LoadBalance, 0.75, 0.75 * 2.1 * rho},
		{"CommE", a.POP.CommEfficiency, 0.8, 0.8*2.1*rho + 1e-6},
		{"PE", a.POP.ParallelEfficiency, 0.6, 0.6*2.1*rho + 1e-6},
	} {
		if math.Abs(c.e.Value-c.want) > 1e-12 || c.e.Lo < c.want-c.tol || c.e.Hi > c.want+c.tol || c.e.Lo > c.want || c.e.Hi < c.want || c.e.TooWide {
			t.Errorf("%s %v, want %.3f ± %.2g", c.name, c.e, c.want, c.tol)
		}
	}
	if s := a.Share(a.Totals[0]); math.Abs(s-0.6) > 1e-12 {
		t.Errorf("compute's share %.4f, want 1.5/2.5", s)
	}
	// compute and io: mean(u) = 1.6; max(u) in [2, 2.2]: LB in [0.727, 0.8].
	opt.Compute = []string{"compute", "io"}
	a, err = analysis.AnalyzeRegionRun(analysis.MpirunID{RunID: "x"}, m, "", opt)
	if err != nil {
		t.Fatal(err)
	}
	if lb := a.POP.LoadBalance; lb.Lo > 1.6/2.2 || lb.Hi < 0.8 || lb.Hi > 0.8*(1+3*rho) {
		t.Errorf("two compute regions: LB %v, want about [0.727, 0.800]", lb)
	}
	opt.MaxWidth = 0.05
	a, _ = analysis.AnalyzeRegionRun(analysis.MpirunID{RunID: "x"}, m, "", opt)
	if !a.POP.LoadBalance.TooWide || !strings.Contains(a.POP.LoadBalance.String(), "too wide to conclude") {
		t.Errorf("LB %v wider than 0.05 not marked", a.POP.LoadBalance)
	}
}

// TestRegionMisuseFromRecorder: each kind of misuse the recorder counts
// today (an End without Begin, a region left open at Close, records
// dropped from a full buffer) reaches the analysis's account through the
// sidecar's per-rank entries, on 2 simulated ranks (seed 3).
func TestRegionMisuseFromRecorder(t *testing.T) {
	w, err := mpitest.New(mpitest.Config{Ranks: 2, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	err = w.Run(func(r *mpitest.Rank) error {
		rec, err := region.New(r.Comm(), r.Clock(), region.Options{Capacity: 4})
		if err != nil {
			return err
		}
		if r.ID() == 1 {
			rec.End("x") // without Begin
		}
		if r.ID() == 0 {
			rec.Begin("open") // never closed
		}
		for range 5 { // capacity 4: rank 0 drops 2, rank 1 drops 1
			rec.Begin("compute")
			rec.End("compute")
		}
		_, err = rec.Close(region.Output{Dir: dir, RunID: "mis"})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	m, err := rawdata.ReadMetadata(filepath.Join(dir, "mis-mpirun000.json"))
	if err != nil {
		t.Fatal(err)
	}
	a, err := analysis.AnalyzeRegionRun(analysis.MpirunID{RunID: "mis"}, m, filepath.Join(dir, "mis-mpirun000.ranks.csv"), analysis.DefaultRegionOptions)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("account: %v", a.Misuse)
	if a.Misuse.Misuses != 1 || a.Misuse.Drops != 3 || a.Misuse.Unclosed != 1 || !strings.Contains(a.Misuse.First, "rank 1") {
		t.Errorf("account %v: want 1 misuse (rank 1's End without Begin), 3 drops, 1 unclosed", a.Misuse)
	}
}
