package analysis_test

import (
	"fmt"
	"slices"
	"strings"

	"github.com/reprobench/reprobench/analysis"
	"github.com/reprobench/reprobench/analysis/synth"
)

func ExampleMedianCI() {
	x := []float64{1.21, 1.05, 1.10, 1.32, 1.08, 1.15, 1.11, 1.09, 1.50, 1.12}
	slices.Sort(x)
	iv := analysis.MedianCI(x, 0.95)
	fmt.Printf("median %.3f, 95%% CI [%.2f, %.2f] = order statistics %d..%d, achieved %.4f\n",
		analysis.Quantile(0.5, x), iv.Lo, iv.Hi, iv.LoRank, iv.HiRank, iv.Confidence)
	iv = analysis.MedianCI(x[:5], 0.95)
	fmt.Println(iv.Valid(), iv.Warning)
	// Output:
	// median 1.115, 95% CI [1.08, 1.32] = order statistics 2..9, achieved 0.9785
	// false need at least 6 observations for a 95% confidence interval of the 0.5 quantile
}

func ExampleWilcoxonRankSum() {
	a := []float64{2.1, 2.3, 2.2, 2.4, 2.0, 2.25}
	b := []float64{2.6, 2.5, 2.45, 2.7, 2.35, 2.8}
	r := analysis.WilcoxonRankSum(a, b, analysis.Less)
	fmt.Printf("%s: W=%g p=%.5f %s\n", r.Method, r.Statistic, r.P, analysis.Stars(r.P))
	// R 4.2.2: wilcox.test(a, b, alternative = "less"): W = 1, p-value = 0.002165
	// Output:
	// Wilcoxon rank-sum (exact): W=1 p=0.00216 **
}

func ExampleTukeyFilter() {
	x := []float64{10, 11, 10.5, 10.2, 55, 10.8, 10.1}
	kept, removed := analysis.TukeyFilter(x, 1.5)
	fmt.Println(kept, removed)
	// Output:
	// [10 11 10.5 10.2 10.8 10.1] 1
}

func ExampleReadRaw() {
	raw := `run_id,mpirun,exp,call,msize_bytes,count,datatype,np,rep,runtime_s,errorcode,mpi_lib
c1,0,0,MPI_Bcast,8,8,MPI_BYTE,4,0,1.10e-06,0,openmpi
c1,0,0,MPI_Bcast,8,8,MPI_BYTE,4,1,1.20e-06,0,openmpi
c1,0,0,MPI_Bcast,8,8,MPI_BYTE,4,2,9.99e-06,1,openmpi
c1,1,0,MPI_Bcast,8,8,MPI_BYTE,4,0,1.30e-06,0,openmpi
`
	d, err := analysis.ReadRaw(strings.NewReader(raw), "example.csv")
	if err != nil {
		panic(err)
	}
	for _, s := range analysis.Analyze(d, analysis.DefaultOptions) {
		fmt.Printf("%s: n=%d mpiruns=%d invalid=%d median=%.2gs per-mpirun medians=%.3g\n",
			s.Key, s.N, s.NMpiruns, s.Invalid, s.Median, s.MpirunMedians)
	}
	// Output:
	// MPI_Bcast/msize=8/np=4/MPI_BYTE/mpi_lib=openmpi: n=3 mpiruns=2 invalid=1 median=1.2e-06s per-mpirun medians=[1.15e-06 1.3e-06]
}

func ExampleQuantileRegression() {
	a := []float64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}
	b := []float64{1, 2, 3, 4, 5, 6, 7, 8, 19, 20} // same body, heavier tail
	for _, q := range analysis.QuantileRegression(a, b, []float64{0.5, 0.9}, 0.9) {
		fmt.Printf("tau=%.1f A=%g B=%g diff=%g\n", q.Tau, q.A, q.B, q.Diff)
	}
	// Output:
	// tau=0.5 A=5 B=5 diff=0
	// tau=0.9 A=9 B=19 diff=10
}

func ExampleCompareBy() {
	// Two MPI libraries, 8 mpiruns each; libB is 5% slower.
	var b strings.Builder
	synth.Write(&b, synth.Config{RunID: "c", Mpiruns: 8, Reps: 50, Calls: []string{"MPI_Bcast"}, Msizes: []int{1024},
		Np: 4, Label: "mpi_lib", LabelValues: []string{"libA", "libB"}, Factors: []float64{1, 1.05},
		MpirunSD: 0.01, NoiseSD: 0.05, Seed: 3})
	d, _ := analysis.ReadRaw(strings.NewReader(b.String()), "example")
	rows, _ := analysis.CompareBy(d, "mpi_lib", analysis.DefaultOptions)
	for _, r := range rows {
		fmt.Printf("%s %s vs %s: ratio %.3f, p=%.4f %s (%s, n=%d+%d)\n",
			r.Key, r.NameB, r.NameA, r.Ratio, r.Result.P, analysis.Stars(r.Result.P), r.Test, r.NA, r.NB)
	}
	// Output:
	// MPI_Bcast/msize=1024/np=4/MPI_INT libB vs libA: ratio 1.042, p=0.0002 *** (wilcoxon-mpirun-medians, n=8+8)
}

func ExampleHodgesLehmann() {
	x := []float64{1.83, 0.50, 1.62, 2.48, 1.68, 1.88, 1.55, 3.06, 1.30}
	y := []float64{0.878, 0.647, 0.598, 2.05, 1.06, 1.29, 1.06, 3.14, 1.29}
	sh := analysis.HodgesLehmann(x, y, analysis.TwoSided, 0.95)
	fmt.Printf("%s: shift %.4f, 95%% CI [%.4f, %.4f] (achieved %.4f)\n", sh.Method, sh.Estimate, sh.Lo, sh.Hi, sh.Confidence)
	// R 4.2.2: wilcox.test(x, y, conf.int = TRUE) gives 0.5600562 and
	// [-0.3699774, 1.1829708] (y has ties, so the normal approximation).
	// Output:
	// Hodges-Lehmann (normal approx.): shift 0.5600, 95% CI [-0.3700, 1.1830] (achieved 0.9500)
}

func ExampleFormatTime() {
	fmt.Println(analysis.FormatTime(1.5e-6), analysis.FormatTime(2.5e-4), analysis.FormatTime(0.0123))
	// A table shares the unit of a representative value:
	unit, sc := analysis.TimeUnit(1.02e-6)
	fmt.Println(analysis.FormatTimeScaledPair(1.0001e-6, 1.0002e-6, sc, unit))
	fmt.Println(analysis.FormatRatio(0.8912), analysis.FormatRatio(12.34))
	// Output:
	// 1.50µs 250µs 12.3ms
	// 1.0001µs, 1.0002µs
	// 0.891 12.3
}

func ExampleKernelDensity() {
	x := []float64{1.0, 1.1, 1.2, 1.2, 1.3, 1.9}
	d := analysis.KernelDensity(x, 5)
	fmt.Printf("bandwidth %.3f\n", d.Bandwidth)
	for i := range d.X {
		fmt.Printf("%.2f %.3f\n", d.X[i], d.Y[i])
	}
	// Output:
	// bandwidth 0.070
	// 1.00 1.328
	// 1.23 2.505
	// 1.45 0.100
	// 1.67 0.006
	// 1.90 0.944
}

func ExampleFiltered() {
	// Two mpiruns; Tukey's fences (k = 1.5) remove 100 from mpirun 1 only.
	g := &analysis.Group{
		Runtimes: []float64{3, 1, 2, 4, 5, 10, 11, 12, 13, 100},
		Mpirun:   []int32{0, 0, 0, 0, 0, 1, 1, 1, 1, 1},
	}
	fmt.Println(analysis.Filtered(g, 1.5))
	// Output: [1 2 3 4 5 10 11 12 13]
}

func ExampleMpirunMedianCI() {
	// Medians of 8 mpiruns of one benchmark, in µs: a rerun moves the
	// result by up to 2×, and the interval says so.
	medians := []float64{0.84, 0.51, 1.95, 0.92, 0.88, 0.61, 1.20, 0.79}
	iv := analysis.MpirunMedianCI(medians, 0.95)
	fmt.Printf("median %.3f, %.1f%% CI [%.2f, %.2f]\n", analysis.Median(medians), 100*iv.Confidence, iv.Lo, iv.Hi)
	// With 5 mpiruns 95% is out of reach: [min, max] and its true confidence.
	iv = analysis.MpirunMedianCI(medians[:5], 0.95)
	fmt.Printf("%.2f%% CI [%.2f, %.2f]\n%s\n", 100*iv.Confidence, iv.Lo, iv.Hi, iv.Warning)
	// Output:
	// median 0.860, 99.2% CI [0.51, 1.95]
	// 93.75% CI [0.51, 1.95]
	// only 5 mpiruns: [min, max] of their medians is a 93.75% interval (6 mpiruns needed for 95%)
}

func ExampleSideLabels() {
	// Two campaigns, each labelled with its library: lib names the sides.
	read := func(lib string, f float64) *analysis.Dataset {
		csv := "run_id,mpirun,exp,call,msize_bytes,count,datatype,np,rep,runtime_s,errorcode,lib\n"
		for m := range 4 {
			for r := range 5 {
				csv += fmt.Sprintf("%s,%d,0,MPI_Bcast,8,1,byte,2,%d,%g,0,%s\n", lib, m, r, f*(1+0.01*float64(m+r)), lib)
			}
		}
		d, err := analysis.ReadRaw(strings.NewReader(csv), lib)
		if err != nil {
			panic(err)
		}
		return d
	}
	a, b := read("openmpi", 1e-6), read("mpich", 1.2e-6)
	fmt.Println(analysis.SideLabels(a, b))
	rows, onlyA, onlyB := analysis.Compare(a, b, analysis.DefaultOptions) // ignores the side labels
	r := rows[0]
	fmt.Printf("%s: %s vs %s, ratio %s [%s, %s]; unmatched %d+%d\n", r.Key, r.NameA, r.NameB,
		analysis.FormatRatio(r.RatioShift), analysis.FormatRatio(r.RatioCI.Lo), analysis.FormatRatio(r.RatioCI.Hi), len(onlyA), len(onlyB))
	// Output:
	// [lib]
	// MPI_Bcast/msize=8/np=2/byte: lib=openmpi vs lib=mpich, ratio 1.20 [1.17, 1.24]; unmatched 0+0
}
