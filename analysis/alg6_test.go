package analysis

import (
	"bytes"
	"math"
	"slices"
	"testing"

	"github.com/reprobench/reprobench/analysis/synth"
)

func TestAnalyzeGroupAlg6(t *testing.T) {
	// Two mpiruns; mpirun 1 has an outlier that Tukey removes.
	g := &Group{Key: GroupKey{Call: "MPI_Bcast", MsizeBytes: 8, Np: 2},
		Runtimes: []float64{1, 2, 3, 4, 5, 10, 11, 12, 13, 100},
		Mpirun:   []int32{0, 0, 0, 0, 0, 1, 1, 1, 1, 1}, Invalid: 2}
	s := AnalyzeGroup(g, DefaultOptions)
	if s.OutliersRemoved != 1 || s.N != 9 || s.NMpiruns != 2 || s.Invalid != 2 {
		t.Fatalf("%+v", s)
	}
	// Per-mpirun medians of the filtered samples (R: median(1:5), median(10:13)).
	if s.MpirunMedians[0] != 3 || s.MpirunMedians[1] != 11.5 {
		t.Errorf("mpirun medians %v, want [3 11.5]", s.MpirunMedians)
	}
	if s.MpirunMeans[1] != 11.5 || s.PooledMedian != 5 || s.Min != 1 || s.Max != 13 {
		t.Errorf("means %v pooled median %v min %v max %v", s.MpirunMeans, s.PooledMedian, s.Min, s.Max)
	}
	// The headline is the median of the 2 mpirun medians, with [min, max]
	// of them as its (50 %) interval.
	if s.Median != 7.25 || s.MedianOf != medianOfMpiruns || s.MedianCI.Lo != 3 || s.MedianCI.Hi != 11.5 || s.MedianCI.Confidence != 0.5 {
		t.Errorf("headline %v %s %+v", s.Median, s.MedianOf, s.MedianCI)
	}
	if m := ReproducibilityMetric(s); m[0] != 1 || m[1] != 11.5/3 {
		t.Errorf("normalized means %v", m)
	}
	// Without filtering the outlier stays.
	s0 := AnalyzeGroup(g, Options{Level: 0.95})
	if s0.OutliersRemoved != 0 || s0.Max != 100 {
		t.Errorf("k=0 removed %d", s0.OutliersRemoved)
	}
}

func TestCompareDetectsShift(t *testing.T) {
	gen := func(f float64, seed uint64) *Dataset {
		var b bytes.Buffer
		synth.Write(&b, synth.Config{RunID: "x", Mpiruns: 10, Reps: 40, Calls: []string{"MPI_Allreduce"},
			Msizes: []int{8, 4096}, Np: 4, Label: "lib", LabelValues: []string{"a", "b"}, Factors: []float64{1, f},
			MpirunSD: 0.01, NoiseSD: 0.05, Seed: seed})
		d, err := ReadRaw(&b, "gen")
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	d := gen(1.10, 1)
	rows, err := CompareBy(d, "lib", DefaultOptions)
	if err != nil || len(rows) != 2 {
		t.Fatalf("rows %d err %v", len(rows), err)
	}
	for _, r := range rows {
		if !r.Significant || r.Test != "wilcoxon-mpirun-medians" || r.NA != 10 || math.Abs(r.Ratio-1.10) > 0.03 {
			t.Errorf("%+v", r)
		}
		if Stars(r.Result.P) != "***" {
			t.Errorf("stars %q for p=%g", Stars(r.Result.P), r.Result.P)
		}
	}
	// A vs B across data sets, same distribution: no group should be
	// significant at 0.001.
	a, b := gen(1, 2), gen(1, 3)
	rows, onlyA, onlyB := Compare(a, b, DefaultOptions)
	if len(onlyA)+len(onlyB) != 0 || len(rows) != 4 {
		t.Fatalf("rows %d only %v %v", len(rows), onlyA, onlyB)
	}
	for _, r := range rows {
		if r.Result.P < 0.001 {
			t.Errorf("spurious difference %+v", r)
		}
	}
	if _, err := CompareBy(d, "nolabel", DefaultOptions); err == nil {
		t.Error("CompareBy with unknown label: no error")
	}
}

// A 2% slowdown in every mpirun, hidden by 20% variation between mpiruns:
// the rank-sum test on per-mpirun medians cannot see it, the paired
// signed-rank test can; and the pairing is used only when asked for.
func TestCompareByPairedMpiruns(t *testing.T) {
	var b bytes.Buffer
	synth.Write(&b, synth.Config{RunID: "p", Mpiruns: 10, Reps: 40, Calls: []string{"MPI_Allreduce"},
		Msizes: []int{8}, Np: 4, Label: "alg", LabelValues: []string{"a", "b"}, Factors: []float64{1, 1.02},
		MpirunSD: 0.2, NoiseSD: 0.01, Seed: 5})
	d, err := ReadRaw(&b, "gen")
	if err != nil {
		t.Fatal(err)
	}
	rows, err := CompareBy(d, "alg", DefaultOptions)
	if err != nil || len(rows) != 1 {
		t.Fatalf("rows %v err %v", rows, err)
	}
	if r := rows[0]; r.Test != "wilcoxon-mpirun-medians" || r.Significant {
		t.Errorf("unpaired: %s p=%g, want the rank-sum test, not significant under 20%% mpirun variation", r.Test, r.Result.P)
	}
	opt := DefaultOptions
	opt.PairByMpirun = true
	rows, err = CompareBy(d, "alg", opt)
	if err != nil || len(rows) != 1 {
		t.Fatalf("rows %v err %v", rows, err)
	}
	r := rows[0]
	if r.Test != "wilcoxon-signed-rank-paired-mpirun-medians" || r.NA != 10 || r.NB != 10 {
		t.Fatalf("paired: %+v", r)
	}
	// Every mpirun is slower with b: V = 0 of 10 pairs, exact p = 2/2^10.
	if r.Result.Statistic != 0 || math.Abs(r.Result.P-2.0/1024) > 1e-15 || !r.Significant {
		t.Errorf("paired: V=%g p=%g significant %v, want V=0, p=%g", r.Result.Statistic, r.Result.P, r.Significant, 2.0/1024)
	}
	for _, w := range r.Warnings {
		if len(w) >= 5 && w[:5] == "only " {
			t.Errorf("10 pairs warned: %q", w)
		}
	}
	// Different mpiruns on the two sides: no pairing, whatever the option.
	sa, sb := AnalyzeGroup(d.Groups[0], opt), AnalyzeGroup(d.Groups[1], opt)
	sb.MpirunIndex = append([]int32(nil), sb.MpirunIndex...)
	sb.MpirunIndex[0] = 99
	if c := compareSummariesPaired(sa, sb, opt); c.Test != "wilcoxon-mpirun-medians" {
		t.Errorf("unpaired mpiruns compared with %s", c.Test)
	}
}

func TestStars(t *testing.T) {
	for _, c := range []struct {
		p    float64
		want string
	}{{0.0005, "***"}, {0.001, "***"}, {0.005, "**"}, {0.05, "*"}, {0.051, ""}, {math.NaN(), ""}} {
		if got := Stars(c.p); got != c.want {
			t.Errorf("Stars(%g) = %q, want %q", c.p, got, c.want)
		}
	}
}

func TestMedianCIStop(t *testing.T) {
	x := make([]float64, 200)
	for i := range x {
		x[i] = 100 + float64(i%20)/10
	}
	sorted := sorted(x)
	if !medianCIStop(sorted, 0.01, 0.95) || medianCIStop(sorted[:5], 0.5, 0.95) {
		t.Error("MedianCIStop")
	}
}

func TestQuantileRegressionMatchesQuantiles(t *testing.T) {
	d := loadFixtures(t)
	a, b := sorted(d["n30"]), sorted(d["n30b"])
	for _, q := range QuantileRegression(a, b, Taus(), 0.95) {
		if q.Diff != quantileType1(q.Tau, b)-quantileType1(q.Tau, a) {
			t.Fatalf("tau %g", q.Tau)
		}
		if q.Tau >= 0.2 && q.Tau <= 0.8 && !(q.Lo <= q.Diff && q.Diff <= q.Hi) {
			t.Errorf("tau %g: CI [%g, %g] excludes %g", q.Tau, q.Lo, q.Hi, q.Diff)
		}
	}
}

func TestACF(t *testing.T) {
	// An AR(1) series x_t = 0.8 x_{t−1} + e_t has lag-1 autocorrelation 0.8.
	rng := newRNG(t, 9)
	x := make([]float64, 64000)
	for i := 1; i < len(x); i++ {
		x[i] = 0.8*x[i-1] + rng.NormFloat64()
	}
	r, bound := ACF(x, 3, 0.05)
	if math.Abs(r[1]-0.8) > 0.02 || r[0] != 1 {
		t.Errorf("ACF lag 1 = %.3f, want ≈ 0.8", r[1])
	}
	t.Logf("ACF lag 1: %.3f (bound %.4f)", r[1], bound)
}

func TestNaNAndEmptyInputs(t *testing.T) {
	nan := math.NaN()
	x := []float64{1, 2, nan, 4}
	y := []float64{2, 3, 4, 5, 6}
	if r := WilcoxonRankSum(x, y, TwoSided); !math.IsNaN(r.P) || r.Warning == "" {
		t.Errorf("Wilcoxon with NaN: %+v", r)
	}
	if sh := HodgesLehmann(x, y, TwoSided, 0.95); !math.IsNaN(sh.Estimate) || sh.Warning == "" {
		t.Errorf("HL with NaN: %+v", sh)
	}
	if r := WilcoxonRankSum(nil, y, TwoSided); !math.IsNaN(r.P) {
		t.Error("Wilcoxon with empty sample")
	}
	if r := ShapiroWilk([]float64{1, 1, 1, 1}); !math.IsNaN(r.P) || r.Warning == "" {
		t.Error("Shapiro-Wilk on constant data")
	}
	if iv := meanCI([]float64{3}, 0.95); iv.Valid() {
		t.Error("MeanCI with n=1")
	}
	if iv := MedianCI(nil, 0.95); iv.Valid() {
		t.Error("MedianCI of empty sample")
	}
	if !math.IsNaN(Median(nil)) || !math.IsNaN(Mean(nil)) || !math.IsNaN(geoMean([]float64{1, -1})) {
		t.Error("empty or non-positive input must give NaN")
	}
	if r := KruskalWallis([][]float64{{1, 2}, {}}); !math.IsNaN(r.P) {
		t.Error("Kruskal-Wallis with one non-empty group")
	}
	// Any order: the same as sorted, the input unchanged (MedianCI must not
	// panic where Summarize sorts).
	u := []float64{3, 1, 2, 9, 7, 5, 4, 8, 6}
	s := slices.Sorted(slices.Values(u))
	if Quantile(0.5, u) != 5 || MedianCI(u, 0.9) != MedianCI(s, 0.9) || quantileCI(0.25, u, 0.5) != quantileCI(0.25, s, 0.5) ||
		medianCIStop(u, 1, 0.9) != medianCIStop(s, 1, 0.9) || u[0] != 3 {
		t.Errorf("unsorted input: quantile %v, CI %+v vs %+v, input now %v", Quantile(0.5, u), MedianCI(u, 0.9), MedianCI(s, 0.9), u)
	}
	if a, b := QuantileRegression(u, []float64{9, 1, 5}, []float64{0.5}, 0.5), QuantileRegression(s, []float64{1, 5, 9}, []float64{0.5}, 0.5); a[0].Diff != b[0].Diff {
		t.Errorf("QuantileRegression on unsorted input: %+v vs %+v", a, b)
	}
}
