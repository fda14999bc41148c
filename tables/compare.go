package tables

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/reprobench/reprobench/analysis"
)

// cmpShortTest names a Comparison.Test in the text table.
func cmpShortTest(t string) string {
	switch t {
	case "wilcoxon-mpirun-medians":
		return "medians"
	case analysis.TestPairedMpirunMedians:
		return "paired"
	case "wilcoxon-observations":
		return "obs"
	}
	return t
}

// WriteComparisonText writes the text table of comparisons rows
// (analysis.CompareIgnoring, analysis.CompareBy) as "reprobench compare"
// prints it: the header lines first (how the groups were matched), the
// labels every row shares, one row per comparison (medians, the median
// ratio and the Hodges-Lehmann ratio each with its own interval, p-value
// and significance at opt.Alpha; the shift B−A is in the CSV and JSON
// only, to keep the table within 120 columns), then the
// sample sizes, the tests and the warnings. rows must not be empty.
func WriteComparisonText(w io.Writer, rows []analysis.Comparison, header []string, opt analysis.Options) error {
	for _, h := range header {
		fmt.Fprintln(w, h)
	}
	keys := make([]analysis.GroupKey, len(rows))
	for i, c := range rows {
		keys[i] = c.Key
	}
	common := commonLabels(keys)
	if len(common) > 0 {
		fmt.Fprintln(w, everyGroupLine(common))
	}
	// Side names printed once when every row has the same; else per row.
	same := true
	for _, c := range rows {
		same = same && c.NameA == rows[0].NameA && c.NameB == rows[0].NameB
	}
	withNames := !same
	if same && (rows[0].NameA != "" || rows[0].NameB != "") {
		fmt.Fprintf(w, "A: %s   B: %s\n", rows[0].NameA, rows[0].NameB)
	}
	tests := map[string]bool{}
	for _, c := range rows {
		tests[c.Test] = true
	}
	// The test gets a column only when the rows use more than one test
	// besides the observations' one, which the sig column marks "(obs)":
	// the column would widen every row past 120 characters.
	testColumn := len(tests) > 1 && !(len(tests) == 2 && tests[testObservations])
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprint(tw, "group\t")
	if withNames {
		fmt.Fprint(tw, "A\tB\t")
	}
	// n goes below the table: the most common n, and the rows that differ.
	type nn struct{ a, b int }
	counts := map[nn]int{}
	for _, c := range rows {
		counts[nn{c.NA, c.NB}]++
	}
	modeN := nn{rows[0].NA, rows[0].NB}
	for k, v := range counts {
		if v > counts[modeN] || v == counts[modeN] && (k.a > modeN.a || k.a == modeN.a && k.b > modeN.b) {
			modeN = k
		}
	}
	var otherN []string
	// The intervals reach below the level when the sides are small: each
	// column's most common confidence goes in its header (as analyze
	// does), and the rows whose interval reaches another one are listed
	// below the table, so that no row grows wider than the others.
	mlv, mConf := confHeader(rows, func(c analysis.Comparison) analysis.Interval { return c.MedianRatioCI }, opt.Level)
	hlv, hConf := confHeader(rows, func(c analysis.Comparison) analysis.Interval { return c.RatioCI }, opt.Level)
	var otherConf []string
	fmt.Fprintf(tw, "median A\tmedian B\tmedian B/A [%s]\tHL B/A [%s]\tp  sig", mlv, hlv)
	if testColumn {
		fmt.Fprint(tw, "\ttest")
	}
	fmt.Fprintln(tw)
	var warns []string
	anyObs := false
	for _, c := range rows {
		name := anShortKey(c.Key, common)
		unit, sc := analysis.TimeUnit(c.MedianA)
		if withNames {
			fmt.Fprintf(tw, "%s\t%s\t%s\t", name, c.NameA, c.NameB)
		} else {
			fmt.Fprintf(tw, "%s\t", name)
		}
		mratio := ratioCell(c.Ratio, c.MedianRatioCI, false)
		ratio := ratioCell(c.RatioShift, c.RatioCI, false)
		if iv := c.MedianRatioCI; iv.Valid() && shownConf(iv) != mConf {
			otherConf = append(otherConf, fmt.Sprintf("%s median B/A %.3g%%", name, 100*iv.Confidence))
		}
		if iv := c.RatioCI; iv.Valid() && shownConf(iv) != hConf {
			otherConf = append(otherConf, fmt.Sprintf("%s HL B/A %.3g%%", name, 100*iv.Confidence))
		}
		sig := analysis.Stars(c.Result.P)
		if !c.Significant || sig == "" {
			sig = "~"
		}
		if c.Test == testObservations {
			sig, anyObs = "(obs)", true
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s %s",
			analysis.FormatTimeScaled(c.MedianA, sc, unit), analysis.FormatTimeScaled(c.MedianB, sc, unit),
			mratio, ratio, cmpP(c.Result.P), sig)
		if (nn{c.NA, c.NB}) != modeN {
			otherN = append(otherN, fmt.Sprintf("%s %d+%d", name, c.NA, c.NB))
		}
		if testColumn {
			fmt.Fprint(tw, "\t"+cmpShortTest(c.Test))
		}
		fmt.Fprintln(tw)
		for _, wn := range c.Warnings {
			warns = append(warns, name+": "+wn)
		}
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintln(w)
	if len(otherConf) > 0 {
		fmt.Fprintln(w, WrapLine("intervals of another confidence than their column's: "+strings.Join(otherConf, "; "), 2))
	}
	if len(otherN) == 0 {
		fmt.Fprintf(w, "n: %d+%d values per side in every row\n", modeN.a, modeN.b)
	} else {
		fmt.Fprintln(w, WrapLine(fmt.Sprintf("n: %d+%d values per side, except %s", modeN.a, modeN.b,
			strings.Join(otherN, "; ")), len("n: ")))
	}
	for _, t := range slices.Sorted(maps.Keys(tests)) {
		fmt.Fprintf(w, "test %s: %s\n", cmpShortTest(t), cmpTestHelp(t))
	}
	fmt.Fprintf(w, "p: %s; sig: * p≤0.05, ** p≤0.01, *** p≤0.001, ~ not significant at alpha=%g (Hunold & Carpen-Amarie 2016, §6.2)\n", opt.Alternative, opt.Alpha)
	if anyObs {
		fmt.Fprintln(w, WrapLine(obsNote, len("(obs): ")))
	}
	fmt.Fprintln(w, "columns: reprobench help compare")
	for _, wn := range anFoldWarnings(warns) {
		fmt.Fprintln(w, WrapLine("warning: "+wn, len("warning: ")))
	}
	return nil
}

// RatioWithCI formats a ratio and its interval as the comparison tables
// print them: "1.20 [1.15, 1.26]"; "[-]" when there is no interval, and
// the confidence the interval reaches after it, "1.20 [1.15, 1.26] (93.8%)",
// when that is below the level asked for.
func RatioWithCI(r float64, iv analysis.Interval) string { return ratioCell(r, iv, true) }

// ratioCell is RatioWithCI, with the confidence below the level only when
// showConf.
func ratioCell(r float64, iv analysis.Interval, showConf bool) string {
	if !iv.Valid() {
		return analysis.FormatRatio(r) + " [-]"
	}
	s := analysis.FormatRatio(r) + " [" + analysis.FormatRatio(iv.Lo) + ", " + analysis.FormatRatio(iv.Hi) + "]"
	if showConf && iv.Confidence < iv.Level*(1-1e-12) {
		s += fmt.Sprintf(" (%.3g%%)", 100*iv.Confidence)
	}
	return s
}

// confHeader returns a ratio column's interval header ("95% CI") and the
// confidence it names: the confidence most rows' valid intervals reach
// (shownConf; the larger on a tie), or level when no row has a valid
// interval. The intervals reach less than level when the sides are small.
func confHeader(rows []analysis.Comparison, iv func(analysis.Comparison) analysis.Interval, level float64) (string, float64) {
	count := map[float64]int{}
	for _, c := range rows {
		if v := iv(c); v.Valid() {
			count[shownConf(v)]++
		}
	}
	conf, best := level, 0
	for c, n := range count {
		if n > best || n == best && c > conf {
			conf, best = c, n
		}
	}
	return fmt.Sprintf("%.3g%% CI", 100*conf), conf
}

// shownConf is the confidence a table states for iv: its level when it
// reaches the level or more, else what it reaches.
func shownConf(iv analysis.Interval) float64 {
	if iv.Confidence >= iv.Level*(1-1e-12) {
		return iv.Level
	}
	return iv.Confidence
}

// cmpTestHelp explains a Comparison.Test in one line.
func cmpTestHelp(t string) string {
	switch t {
	case "wilcoxon-mpirun-medians":
		return "Wilcoxon rank-sum on the per-mpirun medians; n = mpiruns per side"
	case analysis.TestPairedMpirunMedians:
		return "Wilcoxon signed-rank on per-mpirun medians paired by mpirun; n = pairs"
	case "wilcoxon-observations":
		return "Wilcoxon rank-sum on single observations (a side had 1 mpirun: not independent of that mpirun)"
	}
	return t
}

func cmpP(p float64) string {
	if math.IsNaN(p) {
		return "NaN"
	}
	return strconv.FormatFloat(p, 'f', 3, 64)
}

// comparisonFormat is the version of the CSV and JSON outputs of the
// comparison ("compare_format" in JSON). Version 2 names each ratio for
// its estimator and gives each its own interval: median_ratio with
// median_ratio_ci_*, hl_ratio with hl_ratio_ci_*; version 1 (no
// compare_format key) had ratio (the median ratio) beside ratio_ci_lo,
// ratio_ci_hi (the interval of the Hodges-Lehmann ratio, ratio_shift).
const comparisonFormat = 2

// comparisonCSVHeader is the header of WriteComparisonCSV. An estimate
// named X has its interval in X_ci_lo and X_ci_hi (shift_s: shift_ci_lo_s,
// shift_ci_hi_s) and the confidence that interval reaches in
// X_ci_confidence; nothing else is paired with an interval.
var comparisonCSVHeader = []string{"call", "msize_bytes", "np", "datatype", "labels", "a", "b", "median_a_s", "median_b_s",
	"median_ratio", "median_ratio_ci_lo", "median_ratio_ci_hi", "median_ratio_ci_confidence",
	"hl_ratio", "hl_ratio_ci_lo", "hl_ratio_ci_hi", "hl_ratio_ci_confidence",
	"shift_s", "shift_ci_lo_s", "shift_ci_hi_s", "shift_ci_confidence",
	"p_value", "stars", "significant", "alternative", "test", "n_a", "n_b", "a12", "warnings"}

// WriteComparisonCSV writes one CSV row per comparison, every column of
// comparisonCSVHeader, times unscaled in seconds.
func WriteComparisonCSV(w io.Writer, rows []analysis.Comparison, opt analysis.Options) error {
	cw := csv.NewWriter(w)
	cw.Write(comparisonCSVHeader)
	for _, c := range rows {
		cw.Write([]string{c.Key.Call, strconv.Itoa(c.Key.MsizeBytes), strconv.Itoa(c.Key.Np), c.Key.Datatype, c.Key.Labels,
			c.NameA, c.NameB, anF(c.MedianA), anF(c.MedianB),
			anF(c.Ratio), anF(c.MedianRatioCI.Lo), anF(c.MedianRatioCI.Hi), anF(c.MedianRatioCI.Confidence),
			anF(c.RatioShift), anF(c.RatioCI.Lo), anF(c.RatioCI.Hi), anF(c.RatioCI.Confidence),
			anF(c.Shift.Estimate), anF(c.Shift.Lo), anF(c.Shift.Hi), anF(c.Shift.Confidence),
			anF(c.Result.P), stars(c), strconv.FormatBool(c.Significant), opt.Alternative.String(), c.Test,
			strconv.Itoa(c.NA), strconv.Itoa(c.NB), anF(c.A12), strings.Join(c.Warnings, "; ")})
	}
	cw.Flush()
	return cw.Error()
}

// WriteComparisonJSON writes {"compare_format": comparisonFormat,
// "alpha", "matching": header, "comparisons": […], "gate"} as indented
// JSON, each comparison with the fields of comparisonCSVHeader (an
// interval as one [lo, hi] pair: median_ratio_ci, hl_ratio_ci,
// shift_ci_s); NaN and ±Inf are null.
func WriteComparisonJSON(w io.Writer, rows []analysis.Comparison, header []string, opt analysis.Options, gate *analysis.GateReport) error {
	out := []map[string]any{}
	for _, c := range rows {
		warn := c.Warnings
		if warn == nil {
			warn = []string{}
		}
		out = append(out, map[string]any{
			"call": c.Key.Call, "msize_bytes": c.Key.MsizeBytes, "np": c.Key.Np, "datatype": c.Key.Datatype, "labels": c.Key.Labels,
			"a": c.NameA, "b": c.NameB, "median_a_s": anJ(c.MedianA), "median_b_s": anJ(c.MedianB),
			"median_ratio": anJ(c.Ratio), "median_ratio_ci": anJS([]float64{c.MedianRatioCI.Lo, c.MedianRatioCI.Hi}),
			"median_ratio_ci_confidence": anJ(c.MedianRatioCI.Confidence),
			"hl_ratio":                   anJ(c.RatioShift), "hl_ratio_ci": anJS([]float64{c.RatioCI.Lo, c.RatioCI.Hi}),
			"hl_ratio_ci_confidence": anJ(c.RatioCI.Confidence),
			"p_value":                anJ(c.Result.P), "stars": stars(c), "significant": c.Significant,
			"alternative": opt.Alternative.String(), "test": c.Test, "n_a": c.NA, "n_b": c.NB, "warnings": warn,
			"shift_s": anJ(c.Shift.Estimate), "shift_ci_s": anJS([]float64{c.Shift.Lo, c.Shift.Hi}),
			"shift_ci_confidence": anJ(c.Shift.Confidence), "a12": anJ(c.A12),
		})
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	if header == nil {
		header = []string{}
	}
	doc := map[string]any{"compare_format": comparisonFormat, "alpha": opt.Alpha, "matching": header, "comparisons": out}
	if gate != nil {
		doc["gate"] = gate
	}
	return enc.Encode(doc)
}
