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
// labels every row shares, one row per comparison (medians, ratio and
// shift with intervals, p-value and significance at opt.Alpha), then the
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
	lv := fmt.Sprintf("%g%% CI", 100*opt.Level)
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
	fmt.Fprintf(tw, "median A\tmedian B\tB/A [%s]\tshift B−A [%s]\tp  sig", lv, lv)
	if len(tests) > 1 {
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
		ratio := analysis.FormatRatio(c.RatioShift) + " [-]"
		if c.RatioCI.Valid() {
			ratio = analysis.FormatRatio(c.RatioShift) + " [" + analysis.FormatRatio(c.RatioCI.Lo) + ", " + analysis.FormatRatio(c.RatioCI.Hi) + "]"
		}
		shift := analysis.FormatTimeSigned(c.Shift.Estimate, sc, unit) + " [-]"
		if c.Shift.Valid() {
			shift = analysis.FormatTimeSigned(c.Shift.Estimate, sc, unit) + " [" + strings.ReplaceAll(analysis.FormatTimeScaledPair(c.Shift.Lo, c.Shift.Hi, sc, unit), unit, "") + "]"
		}
		sig := analysis.Stars(c.Result.P)
		if !c.Significant || sig == "" {
			sig = "~"
		}
		if c.Test == TestObservations {
			sig, anyObs = "(obs)", true
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s %s",
			analysis.FormatTimeScaled(c.MedianA, sc, unit), analysis.FormatTimeScaled(c.MedianB, sc, unit),
			ratio, shift, cmpP(c.Result.P), sig)
		if (nn{c.NA, c.NB}) != modeN {
			otherN = append(otherN, fmt.Sprintf("%s %d+%d", name, c.NA, c.NB))
		}
		if len(tests) > 1 {
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
	if len(otherN) == 0 {
		fmt.Fprintf(w, "n: %d+%d values per side in every row\n", modeN.a, modeN.b)
	} else {
		fmt.Fprintln(w, wrapLine(fmt.Sprintf("n: %d+%d values per side, except %s", modeN.a, modeN.b,
			strings.Join(otherN, "; ")), len("n: ")))
	}
	for _, t := range slices.Sorted(maps.Keys(tests)) {
		fmt.Fprintf(w, "test %s: %s\n", cmpShortTest(t), cmpTestHelp(t))
	}
	fmt.Fprintf(w, "p: %s; sig: * p≤0.05, ** p≤0.01, *** p≤0.001, ~ not significant at alpha=%g (Hunold & Carpen-Amarie 2016, §6.2)\n", opt.Alternative, opt.Alpha)
	if anyObs {
		fmt.Fprintln(w, obsNote)
	}
	fmt.Fprintln(w, "columns: reprobench help compare")
	for _, wn := range anFoldWarnings(warns) {
		fmt.Fprintln(w, wrapLine("warning: "+wn, len("warning: ")))
	}
	return nil
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

var comparisonCSVHeader = []string{"call", "msize_bytes", "np", "datatype", "labels", "a", "b", "median_a_s", "median_b_s", "ratio",
	"p_value", "stars", "significant", "alternative", "test", "n_a", "n_b", "shift_s", "shift_ci_lo_s", "shift_ci_hi_s", "a12", "ratio_ci_lo", "ratio_ci_hi", "warnings", "ratio_shift"}

// WriteComparisonCSV writes one CSV row per comparison, every column,
// times unscaled in seconds.
func WriteComparisonCSV(w io.Writer, rows []analysis.Comparison, opt analysis.Options) error {
	cw := csv.NewWriter(w)
	cw.Write(comparisonCSVHeader)
	for _, c := range rows {
		cw.Write([]string{c.Key.Call, strconv.Itoa(c.Key.MsizeBytes), strconv.Itoa(c.Key.Np), c.Key.Datatype, c.Key.Labels,
			c.NameA, c.NameB, anF(c.MedianA), anF(c.MedianB), anF(c.Ratio), anF(c.Result.P), Stars(c),
			strconv.FormatBool(c.Significant), opt.Alternative.String(), c.Test, strconv.Itoa(c.NA), strconv.Itoa(c.NB),
			anF(c.Shift.Estimate), anF(c.Shift.Lo), anF(c.Shift.Hi), anF(c.A12), anF(c.RatioCI.Lo), anF(c.RatioCI.Hi), strings.Join(c.Warnings, "; "),
			anF(c.RatioShift)})
	}
	cw.Flush()
	return cw.Error()
}

// WriteComparisonJSON writes {"alpha", "matching": header, "comparisons":
// […]} as indented JSON; NaN and ±Inf are null.
func WriteComparisonJSON(w io.Writer, rows []analysis.Comparison, header []string, opt analysis.Options, gate *analysis.GateReport) error {
	out := []map[string]any{}
	for _, c := range rows {
		warn := c.Warnings
		if warn == nil {
			warn = []string{}
		}
		out = append(out, map[string]any{
			"call": c.Key.Call, "msize_bytes": c.Key.MsizeBytes, "np": c.Key.Np, "datatype": c.Key.Datatype, "labels": c.Key.Labels,
			"a": c.NameA, "b": c.NameB, "median_a_s": anJ(c.MedianA), "median_b_s": anJ(c.MedianB), "ratio": anJ(c.Ratio),
			"p_value": anJ(c.Result.P), "stars": Stars(c), "significant": c.Significant,
			"alternative": opt.Alternative.String(), "test": c.Test, "n_a": c.NA, "n_b": c.NB, "warnings": warn,
			"shift_s": anJ(c.Shift.Estimate), "shift_ci_s": anJS([]float64{c.Shift.Lo, c.Shift.Hi}), "a12": anJ(c.A12),
			"ratio_ci": anJS([]float64{c.RatioCI.Lo, c.RatioCI.Hi}), "ratio_shift": anJ(c.RatioShift),
		})
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	if header == nil {
		header = []string{}
	}
	doc := map[string]any{"alpha": opt.Alpha, "matching": header, "comparisons": out}
	if gate != nil {
		doc["gate"] = gate
	}
	return enc.Encode(doc)
}
