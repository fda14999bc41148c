package main

import (
	"flag"
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"

	"github.com/reprobench/reprobench/analysis"
)

// unitStats describes the valid observations of one group in one unit (an
// mpirun, or one experiment of an mpirun).
type unitStats struct {
	Unit           string  `json:"unit"`
	N              int     `json:"n"`
	Invalid        int     `json:"invalid"`
	MedianS        float64 `json:"median_s"`
	MedianCILoS    float64 `json:"median_ci_lo_s"`
	MedianCIHiS    float64 `json:"median_ci_hi_s"`
	MeanS          float64 `json:"mean_s"`
	P99S           float64 `json:"p99_s"`
	Removed        int     `json:"tukey_removed"`
	FilteredMedian float64 `json:"filtered_median_s"`
	FilteredMean   float64 `json:"filtered_mean_s"`
}

type testOut struct {
	Method    string  `json:"method"`
	Statistic float64 `json:"statistic"`
	DF        float64 `json:"df"`
	DF2       float64 `json:"df2,omitempty"`
	P         float64 `json:"p"`
}

func toTest(t analysis.TestResult) testOut {
	o := testOut{Method: t.Method, Statistic: t.Statistic, DF: t.DF, P: t.P}
	if !math.IsNaN(t.DF2) {
		o.DF2 = t.DF2
	}
	return o
}

// factorResult is the test of "the unit is a factor" for one group.
type factorResult struct {
	Group string `json:"group"`
	Units int    `json:"units"`
	N     int    `json:"n_valid"`
	// Tests across units on the raw valid observations and on the
	// observations left after Tukey's filter (k = 1.5) per unit.
	KruskalWallisRaw      testOut `json:"kruskal_wallis_raw"`
	KruskalWallisFiltered testOut `json:"kruskal_wallis_filtered"`
	ANOVARaw              testOut `json:"anova_raw"`
	ANOVAFiltered         testOut `json:"anova_filtered"`
	// Spread of the per-unit medians (raw valid observations).
	MedianMinS      float64 `json:"unit_median_min_s"`
	MedianMaxS      float64 `json:"unit_median_max_s"`
	MedianMedianS   float64 `json:"unit_median_median_s"`
	MedianSpreadRel float64 `json:"unit_median_spread_rel"` // max/min − 1
	MedianCoV       float64 `json:"unit_median_cov"`
	// Units whose median CI does not contain the median of the unit medians.
	UnitsCIExcludeMedian int         `json:"units_ci_excluding_median_of_medians"`
	PerUnit              []unitStats `json:"per_unit"`
}

// cmdFactor tests whether the unit (mpirun, or experiment within an mpirun)
// is a factor of the run time: Hunold & Carpen-Amarie 2016, §5.2.
func cmdFactor(args []string) error {
	fs := flag.NewFlagSet("factor", flag.ContinueOnError)
	unit := fs.String("unit", "mpirun", "unit of grouping: mpirun, or exp (each experiment of each mpirun)")
	out := fs.String("out", ".", "output directory")
	name := fs.String("name", "factor", "output file prefix")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *unit != "mpirun" && *unit != "exp" {
		return fmt.Errorf("factor: -unit %q: want mpirun or exp", *unit)
	}
	all, err := readAll(fs.Args())
	if err != nil {
		return err
	}
	if len(all) == 0 {
		return fmt.Errorf("factor: no observations")
	}
	type gu struct{ key, unit string }
	valid := map[gu][]float64{}
	invalid := map[gu]int{}
	unitsOf := map[string][]string{}
	for _, o := range all {
		k := gu{o.key, o.unit(*unit == "exp")}
		if _, seen := valid[k]; !seen {
			valid[k] = nil
			unitsOf[o.key] = append(unitsOf[o.key], k.unit)
		}
		if o.code != 0 || math.IsNaN(o.runtime) || o.runtime < 0 {
			invalid[k]++
			continue
		}
		valid[k] = append(valid[k], o.runtime)
	}
	keys := make([]string, 0, len(unitsOf))
	for k := range unitsOf {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	var results []factorResult
	var rows [][]string
	for _, key := range keys {
		units := unitsOf[key]
		slices.Sort(units)
		res := factorResult{Group: key, Units: len(units)}
		var raw, filt [][]float64
		var meds []float64
		for _, u := range units {
			x := slices.Clone(valid[gu{key, u}])
			fx, removed := analysis.TukeyFilter(x, 1.5)
			raw, filt = append(raw, x), append(filt, fx)
			slices.Sort(x)
			s := analysis.Summarize(x)
			ci := analysis.MedianCI(x, 0.95)
			us := unitStats{Unit: u, N: len(x), Invalid: invalid[gu{key, u}], MedianS: s.Median,
				MedianCILoS: ci.Lo, MedianCIHiS: ci.Hi, MeanS: s.Mean, P99S: s.P99, Removed: removed,
				FilteredMedian: analysis.Median(fx), FilteredMean: analysis.Mean(fx)}
			res.PerUnit = append(res.PerUnit, us)
			res.N += len(x)
			meds = append(meds, s.Median)
			rows = append(rows, []string{key, u, strconv.Itoa(us.N), strconv.Itoa(us.Invalid), g(us.MedianS), g(us.MedianCILoS),
				g(us.MedianCIHiS), g(us.MeanS), g(us.P99S), strconv.Itoa(removed), g(us.FilteredMedian), g(us.FilteredMean)})
		}
		res.KruskalWallisRaw = toTest(analysis.KruskalWallis(raw))
		res.KruskalWallisFiltered = toTest(analysis.KruskalWallis(filt))
		res.ANOVARaw = toTest(analysis.OneWayANOVA(raw))
		res.ANOVAFiltered = toTest(analysis.OneWayANOVA(filt))
		ms := analysis.Summarize(meds)
		res.MedianMinS, res.MedianMaxS, res.MedianMedianS = ms.Min, ms.Max, ms.Median
		res.MedianSpreadRel = ms.Max/ms.Min - 1
		res.MedianCoV = ms.CoV
		for _, us := range res.PerUnit {
			if us.MedianCILoS > ms.Median || us.MedianCIHiS < ms.Median {
				res.UnitsCIExcludeMedian++
			}
		}
		results = append(results, res)
		fmt.Printf("%s: %d %ss, %d valid observations\n", key, res.Units, *unit, res.N)
		fmt.Printf("  per-%s medians: min %.4g µs, median %.4g µs, max %.4g µs; spread max/min−1 = %.2f%%, CoV %.2f%%; %d of %d CIs (95%%) exclude the median of medians\n",
			*unit, 1e6*ms.Min, 1e6*ms.Median, 1e6*ms.Max, 100*res.MedianSpreadRel, 100*res.MedianCoV, res.UnitsCIExcludeMedian, res.Units)
		for _, t := range []struct {
			what string
			t    testOut
		}{{"Kruskal-Wallis, raw", res.KruskalWallisRaw}, {"Kruskal-Wallis, Tukey-filtered", res.KruskalWallisFiltered},
			{"ANOVA, raw", res.ANOVARaw}, {"ANOVA, Tukey-filtered", res.ANOVAFiltered}} {
			fmt.Printf("  %-31s statistic %10.2f  df %g  p = %.3g %s\n", t.what+":", t.t.Statistic, t.t.DF, t.t.P, analysis.Stars(t.t.P))
		}
		if err := plotUnits(filepath.Join(*out, *name+"_"+fileSafe(key)+".png"), key, *unit, res.PerUnit, ms.Median); err != nil {
			return err
		}
	}
	if err := writeCSV(filepath.Join(*out, *name+"_units.csv"), []string{"group", "unit", "n", "invalid", "median_s", "median_ci_lo_s",
		"median_ci_hi_s", "mean_s", "p99_s", "tukey_removed", "filtered_median_s", "filtered_mean_s"}, rows); err != nil {
		return err
	}
	return writeJSON(filepath.Join(*out, *name+"_tests.json"), results)
}

// fileSafe turns a group key into a file name part.
func fileSafe(s string) string {
	return strings.NewReplacer("/", "_", "=", "", ",", "_").Replace(s)
}

// errPoints are points with asymmetric vertical error bars.
type errPoints struct {
	plotter.XYs
	plotter.YErrors
}

// plotUnits draws each unit's median with its 95% CI (Hunold & Carpen-Amarie 2016, Fig. 14
// shows means; we show medians) and the median of the unit medians.
func plotUnits(path, key, unit string, us []unitStats, mm float64) error {
	p := plot.New()
	p.Title.Text = key
	p.X.Label.Text = unit + " (index)"
	p.Y.Label.Text = "median run time (µs), 95% CI"
	pts := make(plotter.XYs, len(us))
	errs := make(plotter.YErrors, len(us))
	for i, u := range us {
		pts[i] = plotter.XY{X: float64(i), Y: 1e6 * u.MedianS}
		errs[i].Low = 1e6 * (u.MedianS - u.MedianCILoS)
		errs[i].High = 1e6 * (u.MedianCIHiS - u.MedianS)
	}
	sc, err := plotter.NewScatter(pts)
	if err != nil {
		return err
	}
	eb, err := plotter.NewYErrorBars(errPoints{pts, errs})
	if err != nil {
		return err
	}
	ln, err := plotter.NewLine(plotter.XYs{{X: -0.5, Y: 1e6 * mm}, {X: float64(len(us)) - 0.5, Y: 1e6 * mm}})
	if err != nil {
		return err
	}
	ln.Dashes = []vg.Length{vg.Points(4), vg.Points(3)}
	ticks := make([]plot.Tick, len(us))
	for i := range us {
		ticks[i] = plot.Tick{Value: float64(i), Label: strconv.Itoa(i)}
	}
	p.X.Tick.Marker = plot.ConstantTicks(ticks)
	p.Add(plotter.NewGrid(), sc, eb, ln)
	p.Legend.Add("median of "+unit+" medians", ln)
	p.Legend.Top = true
	return p.Save(7*vg.Inch, 4*vg.Inch, path)
}
