package tables

import (
	"bufio"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"unicode"

	"github.com/reprobench/reprobench/analysis"
)

// Column is one column of the text table of group summaries
// (WriteSummaryText): its name for SelectColumns and its help.
type Column struct {
	Name, Help string
	// head returns the column's header for confidence level lv ("95%").
	head func(lv string) string
	// cell returns the column's cell of a group; f formats a time in the
	// row's unit, ci an interval.
	cell func(s analysis.GroupSummary, f func(float64) string, ci func(analysis.Interval) string) string
}

// columns are the columns of the text table, in order; "group" is
// always first. The help texts are those of "reprobench help analyze". A
// new column is one more entry here (and a field in the CSV and JSON
// writers).
var columns = []Column{
	{"n", "observations after outlier removal, all mpiruns",
		func(string) string { return "n" },
		func(s analysis.GroupSummary, _ func(float64) string, _ func(analysis.Interval) string) string {
			return strconv.Itoa(s.N)
		}},
	{"mpiruns", "mpiruns with observations (the independent samples)",
		func(string) string { return "mpiruns" },
		func(s analysis.GroupSummary, _ func(float64) string, _ func(analysis.Interval) string) string {
			return strconv.Itoa(s.NMpiruns)
		}},
	{"median", "the headline: with ≥ 2 mpiruns the median of the per-mpirun medians; with 1 mpirun the median of its observations",
		func(string) string { return "median" },
		func(s analysis.GroupSummary, f func(float64) string, _ func(analysis.Interval) string) string {
			return f(s.Median)
		}},
	{"ci", "confidence interval of that median; with ≥ 2 mpiruns from the per-mpirun medians, so it includes the mpirun-to-mpirun variation (exact order statistics; with < 6 mpiruns [min, max] of the medians, whose lower confidence follows: 93.8% for 5)",
		func(lv string) string { return lv + " CI" },
		func(s analysis.GroupSummary, _ func(float64) string, ci func(analysis.Interval) string) string {
			return ci(s.MedianCI)
		}},
	{"mpirun_medians", "smallest..largest per-mpirun median: how far a rerun can move the result",
		func(string) string { return "mpirun medians" },
		func(s analysis.GroupSummary, f func(float64) string, _ func(analysis.Interval) string) string {
			if len(s.MpirunMedians) == 0 {
				return "-"
			}
			unit, _ := analysis.TimeUnit(s.Median)
			return strings.TrimSuffix(f(slices.Min(s.MpirunMedians)), unit) + ".." + f(slices.Max(s.MpirunMedians))
		}},
	{"pooled_median", "(header pooled) median of the observations of all mpiruns pooled (secondary: it weighs mpiruns by their observations)",
		func(string) string { return "pooled" },
		func(s analysis.GroupSummary, f func(float64) string, _ func(analysis.Interval) string) string {
			return f(s.PooledMedian)
		}},
	{"pooled_ci", "interval of the pooled median; it treats observations as independent and ignores mpirun-to-mpirun variation, so it is too narrow when mpiruns differ",
		func(lv string) string { return "pooled " + lv + " CI" },
		func(s analysis.GroupSummary, _ func(float64) string, ci func(analysis.Interval) string) string {
			return ci(s.PooledMedianCI)
		}},
	{"mean", "mean of the pooled observations that Tukey's filter kept (--tukey; 0 keeps every valid one): the outliers it removed are not in it",
		func(string) string { return "mean" },
		func(s analysis.GroupSummary, f func(float64) string, _ func(analysis.Interval) string) string {
			return f(s.Mean)
		}},
	{"mean_ci", "Student-t interval of that mean, of the kept observations (assumes independent, roughly normal observations)",
		func(lv string) string { return "mean " + lv + " CI" },
		func(s analysis.GroupSummary, _ func(float64) string, ci func(analysis.Interval) string) string {
			return ci(s.MeanCI)
		}},
	{"min", "smallest observation that Tukey's filter kept",
		func(string) string { return "min" },
		func(s analysis.GroupSummary, f func(float64) string, _ func(analysis.Interval) string) string {
			return f(s.Min)
		}},
	{"p99", "99th percentile of the pooled observations that Tukey's filter kept (tail percentiles of every valid observation: --percentiles)",
		func(string) string { return "p99" },
		func(s analysis.GroupSummary, f func(float64) string, _ func(analysis.Interval) string) string {
			return f(s.P99)
		}},
	{"max", "largest observation that Tukey's filter kept, not the largest measured: with the default k = 1.5 it lies within Q3 + 1.5·IQR of its mpirun",
		func(string) string { return "max" },
		func(s analysis.GroupSummary, f func(float64) string, _ func(analysis.Interval) string) string {
			return f(s.Max)
		}},
	{"outliers", "observations removed by Tukey's fences (--tukey K, default 1.5), applied per mpirun",
		func(string) string { return "outliers" },
		func(s analysis.GroupSummary, _ func(float64) string, _ func(analysis.Interval) string) string {
			return strconv.Itoa(s.OutliersRemoved)
		}},
	{"invalid", "rows with errorcode ≠ 0 (the measurement failed, e.g. a window missed; docs/data-format.md), not analyzed",
		func(string) string { return "invalid" },
		func(s analysis.GroupSummary, _ func(float64) string, _ func(analysis.Interval) string) string {
			return strconv.Itoa(s.Invalid)
		}},
	{"bad", "rows with errorcode 0 but a runtime_s that is NaN, infinite or negative, skipped",
		func(string) string { return "bad" },
		func(s analysis.GroupSummary, _ func(float64) string, _ func(analysis.Interval) string) string {
			return strconv.Itoa(s.Bad)
		}},
	{"normal", "(header normal(p)) Shapiro-Wilk p-value of the per-mpirun medians (≥ 3 mpiruns); small p: not normal, prefer the medians and rank tests to means and t",
		func(string) string { return "normal(p)" },
		func(s analysis.GroupSummary, _ func(float64) string, _ func(analysis.Interval) string) string {
			if math.IsNaN(s.Normality.P) {
				return "-"
			}
			return fmt.Sprintf("%.3f", s.Normality.P)
		}},
	{"modes", "clusters of the per-mpirun medians (analysis.FindModes; docs/modes.md): 1, or the count with each mode's median over the fastest's and share of mpiruns, and in parentheses a recorded covariate that explains them (a split group also gets a warning below the table)",
		func(string) string { return "modes" },
		func(s analysis.GroupSummary, _ func(float64) string, _ func(analysis.Interval) string) string {
			return s.Modes.String()
		}},
	// p2p: the derived columns of the bandwidth calls.
	{"bytes_per_s", "(header bytes/s) bw, bibw, mbw_mr: M·msize_bytes/median with M the messages per window (bw w, bibw 2w, mbw_mr np/2·w; docs/data-format.md); shown by default when a group is a bandwidth call, '-' for the others",
		func(string) string { return "bytes/s" },
		func(s analysis.GroupSummary, _ func(float64) string, _ func(analysis.Interval) string) string {
			if b, _, ok := analysis.Rates(s.Key, s.Median); ok {
				return anRate(b, "B/s")
			}
			return "-"
		}},
	{"msgs_per_s", "(header msgs/s) bw, bibw, mbw_mr: M/median, the message rate (osu_mbw_mr's); '-' for other calls",
		func(string) string { return "msgs/s" },
		func(s analysis.GroupSummary, _ func(float64) string, _ func(analysis.Interval) string) string {
			if _, m, ok := analysis.Rates(s.Key, s.Median); ok {
				return anRate(m, "/s")
			}
			return "-"
		}},
}

// anRate formats a rate with an SI prefix: 5.24 GB/s, 1.20 M/s.
func anRate(v float64, unit string) string {
	for _, p := range []struct {
		f float64
		s string
	}{{1e9, "G"}, {1e6, "M"}, {1e3, "k"}} {
		if v >= p.f {
			return fmt.Sprintf("%.3g %s%s", v/p.f, p.s, unit)
		}
	}
	return fmt.Sprintf("%.3g %s", v, unit)
}

// Columns returns every column of the text table of group summaries, in
// order.
func Columns() []Column { return slices.Clone(columns) }

// defaultColumns are the columns of the default text table (it fits 120
// characters for group names up to 50 characters); the rows removed before
// the medians (outliers, invalid, bad) are summed below it. SelectColumns
// adds the bandwidth columns when a group is a bandwidth call.
var defaultColumns = []string{"n", "mpiruns", "median", "ci", "mpirun_medians", "pooled_median"}

// ColumnHelp explains the text table's columns (the "Text columns" part of
// "reprobench help analyze").
func ColumnHelp() string {
	var b strings.Builder
	b.WriteString("Text columns (default: " + strings.Join(defaultColumns, ",") + ", and a line with the total\nof outliers, invalid and bad rows; --columns NAME,... or --wide for all; CSV and JSON have all).\n" +
		"Every statistic is of the observations Tukey's filter kept (--tukey; a line above the table says so\nfor min, mean, p99 and max, whose CSV and JSON columns min_s, mean_s, mean_ci_*, p99_s, max_s keep\ntheir names), except the --percentiles table, which keeps every valid observation:\n")
	b.WriteString("  group           call/msize (bytes)/np/datatype/labels; labels shared by every group are\n                  printed once above the table (\"every group:\")\n")
	for _, c := range columns {
		fmt.Fprintf(&b, "  %-15s %s\n", c.Name, anWrap(c.Help, 62, 18))
	}
	return b.String()
}

// everyGroupLine is the "every group:" line of analyze and compare, its
// labels wrapped to the 120 columns the tables keep to.
func everyGroupLine(common []string) string {
	return WrapLine("every group: "+strings.Join(common, " "), len("every group: "))
}

// WrapLine wraps a line of the text output at spaces to the 120 columns
// the tables keep to, indenting continuation lines by indent spaces; a
// word longer than a line stays whole.
func WrapLine(line string, indent int) string {
	return anWrap(line, 120-indent, indent)
}

// anWrap wraps text at width, indenting continuation lines by indent.
func anWrap(text string, width, indent int) string {
	var b strings.Builder
	n := 0
	for i, w := range strings.Fields(text) {
		if i > 0 && n+1+len([]rune(w)) > width {
			b.WriteString("\n" + strings.Repeat(" ", indent))
			n = 0
		} else if i > 0 {
			b.WriteByte(' ')
			n++
		}
		b.WriteString(w)
		n += len([]rune(w))
	}
	return b.String()
}

// SelectColumns returns the columns named in spec (comma-separated), every
// column when wide, or else the default ones for sums (defaultColumns, and
// the bandwidth columns when a group is a bandwidth call). An unknown name
// is an error that lists the known ones.
func SelectColumns(spec string, wide bool, sums []analysis.GroupSummary) ([]Column, error) {
	var names []string
	switch {
	case wide:
		for _, c := range columns {
			names = append(names, c.Name)
		}
	case spec != "":
		names = strings.Split(spec, ",")
	default:
		names = slices.Clone(defaultColumns)
		if slices.ContainsFunc(sums, func(s analysis.GroupSummary) bool { _, ok := analysis.MessagesPerCall(s.Key); return ok }) {
			names = append(names, "bytes_per_s", "msgs_per_s") // p2p
		}
	}
	var out []Column
	for _, n := range names {
		i := slices.IndexFunc(columns, func(c Column) bool { return c.Name == strings.TrimSpace(n) })
		if i < 0 {
			var all []string
			for _, c := range columns {
				all = append(all, c.Name)
			}
			return nil, fmt.Errorf("tables: unknown column %q (have %s)", n, strings.Join(all, ","))
		}
		out = append(out, columns[i])
	}
	return out, nil
}

// WriteSummaryText writes the text table of the group summaries sums
// (analysis.Analyze) with the columns cols (SelectColumns), the rows
// removed before the medians, the rank pooling table of pool
// (analysis.PoolRanks; nil: none) and the warnings, as "reprobench
// analyze" prints them. opt gives the confidence level of the headers.
func WriteSummaryText(w io.Writer, sums []analysis.GroupSummary, pool []analysis.RankPooling, opt analysis.Options, cols []Column) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	lv := fmt.Sprintf("%g%%", 100*opt.Level)
	var warns []string
	// Labels every group shares (the factor columns of one configuration,
	// a library name) are said once above the table, not on every row.
	common := anCommonLabels(sums)
	if len(common) > 0 {
		fmt.Fprintln(w, everyGroupLine(common))
	}
	// The achieved confidence of the headline intervals: in the header
	// when all rows share it, else after each interval below the level.
	headConf, mixed := opt.Level, false
	for i, s := range sums {
		c := s.MedianCI.Confidence
		if math.IsNaN(c) {
			continue
		}
		if i > 0 && c != headConf && headConf != opt.Level {
			mixed = true
		}
		if c < opt.Level {
			headConf = c
		}
	}
	if !mixed && headConf < opt.Level {
		lv = fmt.Sprintf("%.3g%%", 100*headConf)
	}
	if len(sums) > 0 {
		if slices.ContainsFunc(cols, func(c Column) bool { return c.Name == "median" }) {
			fmt.Fprintln(w, "median: the median of the per-mpirun medians (1 mpirun: of its observations), CI from them;")
			fmt.Fprintln(w, "pooled: the median of all observations pooled (secondary). Columns: reprobench help analyze")
		}
		if l := filteredNote(cols, opt.TukeyK, lv); l != "" {
			fmt.Fprintln(w, l)
		}
		if l := regionFilterNote(sums, opt); l != "" {
			fmt.Fprintln(w, l)
		}
		fmt.Fprint(tw, "group")
		for _, c := range cols {
			fmt.Fprint(tw, "\t"+c.head(lv))
		}
		fmt.Fprintln(tw)
	}
	for _, s := range sums {
		name := anShortKey(s.Key, common)
		unit, sc := analysis.TimeUnit(s.Median)
		f := func(v float64) string { return analysis.FormatTimeScaled(v, sc, unit) }
		ci := func(iv analysis.Interval) string {
			if !iv.Valid() {
				return "-"
			}
			c := "[" + analysis.FormatTimeScaledPair(iv.Lo, iv.Hi, sc, unit) + "]"
			if mixed && iv.Confidence < iv.Level-1e-12 {
				c += fmt.Sprintf(" %.3g%%", 100*iv.Confidence)
			}
			return c
		}
		fmt.Fprint(tw, name)
		for _, c := range cols {
			fmt.Fprint(tw, "\t"+c.cell(s, f, ci))
		}
		fmt.Fprintln(tw)
		for _, wn := range s.Warnings {
			warns = append(warns, name+": "+wn)
		}
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	anWriteRemoved(w, sums, cols)
	writeWrongResults(w, sums)
	if len(pool) > 0 {
		if len(sums) > 0 {
			fmt.Fprintln(w)
		}
		fmt.Fprintln(w, "can ranks be pooled? (Hoefler & Belli 2015, Rule 10: ANOVA and Kruskal-Wallis across ranks)")
		tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		fmt.Fprintf(tw, "group\tranks\tANOVA p\tKruskal-Wallis p\tpool\n")
		for _, p := range pool {
			verdict := "yes"
			if !p.Poolable {
				verdict = "no"
			}
			fmt.Fprintf(tw, "%s\t%d\t%s\t%s\t%s\n", p.Key, p.Ranks, anP(p.ANOVA.P), anP(p.KruskalWallis.P), verdict)
		}
		if err := tw.Flush(); err != nil {
			return err
		}
	}
	if len(warns) > 0 {
		fmt.Fprintln(w)
		for _, wn := range anFoldWarnings(warns) {
			fmt.Fprintln(w, WrapLine("warning: "+wn, len("warning: ")))
		}
	}
	return nil
}

// filteredNote is the line above the text table that says which
// observations its min, mean, mean CI, p99 and max columns describe (those
// shown among cols): the ones Tukey's filter with constant k kept, or all
// valid ones when k is 0. "" when none of these columns is shown.
func filteredNote(cols []Column, k float64, lv string) string {
	var heads []string
	for _, c := range cols {
		switch c.Name {
		case "min", "mean", "mean_ci", "p99", "max":
			heads = append(heads, c.head(lv))
		}
	}
	if len(heads) == 0 {
		return ""
	}
	if k == 0 {
		return strings.Join(heads, ", ") + ": of every valid observation (--tukey 0: no outlier filter)."
	}
	return strings.Join(heads, ", ") + fmt.Sprintf(": of the observations Tukey's filter kept (k = %g per mpirun; --tukey 0 keeps all).", k)
}

// regionFilterNote says what the outlier filter did to the groups of
// application regions among sums (analysis.Options.RegionTukeyK): ""
// when there are none.
func regionFilterNote(sums []analysis.GroupSummary, opt analysis.Options) string {
	if !slices.ContainsFunc(sums, func(s analysis.GroupSummary) bool { return s.Key.Region }) {
		return ""
	}
	if opt.RegionTukeyK == 0 {
		return "regions: every observation kept (no outlier filter for an application's regions; --tukey K asks for one)"
	}
	return fmt.Sprintf("regions: Tukey's filter asked for (k = %g per mpirun, --tukey)", opt.RegionTukeyK)
}

// anWriteRemoved sums, below the table, the rows removed before the
// medians whose columns the table does not show.
func anWriteRemoved(w io.Writer, sums []analysis.GroupSummary, cols []Column) {
	shown := func(name string) bool {
		return slices.ContainsFunc(cols, func(c Column) bool { return c.Name == name })
	}
	var o, i, b int
	for _, s := range sums {
		o, i, b = o+s.OutliersRemoved, i+s.Invalid, b+s.Bad
	}
	var parts []string
	if !shown("outliers") {
		parts = append(parts, fmt.Sprintf("%d outliers", o))
	}
	if !shown("invalid") {
		parts = append(parts, fmt.Sprintf("%d invalid", i))
	}
	if !shown("bad") {
		parts = append(parts, fmt.Sprintf("%d bad", b))
	}
	if len(parts) > 0 {
		fmt.Fprintf(w, "removed before the medians: %s (per group: --wide; meaning: help analyze)\n", strings.Join(parts, ", "))
	}
}

// anFoldWarnings says a warning that every group has once, with "every
// group:", instead of once per group.
func anFoldWarnings(warns []string) []string {
	count := map[string]int{}
	groups := map[string]bool{}
	for _, w := range warns {
		g, msg, _ := strings.Cut(w, ": ")
		count[msg]++
		groups[g] = true
	}
	var out []string
	said := map[string]bool{}
	for _, w := range warns {
		_, msg, _ := strings.Cut(w, ": ")
		if len(groups) > 1 && count[msg] == len(groups) {
			if !said[msg] {
				out = append(out, "every group: "+msg)
				said[msg] = true
			}
			continue
		}
		out = append(out, w)
	}
	return out
}

func anP(p float64) string {
	if math.IsNaN(p) {
		return "-"
	}
	return fmt.Sprintf("%.3g", p)
}

func anF(v float64) string {
	if math.IsNaN(v) {
		return "NaN"
	}
	return strconv.FormatFloat(v, 'g', -1, 64)
}

var summaryCSVHeader = []string{"call", "msize_bytes", "np", "datatype", "labels", "n", "n_mpiruns", "invalid", "wrong_results", "bad", "outliers_removed",
	"median_s", "median_ci_lo_s", "median_ci_hi_s", "median_ci_confidence", "median_of",
	"pooled_median_s", "pooled_median_ci_lo_s", "pooled_median_ci_hi_s", "pooled_median_ci_confidence", "mean_s", "mean_ci_lo_s", "mean_ci_hi_s",
	"min_s", "p99_s", "max_s", "mpirun_medians_s", "mpirun_means_normalized_max", "normality_w", "normality_p", "warnings",
	"bytes_per_s", "msgs_per_s", // p2p
	"modes", "modes_explained_by"}

// WriteSummaryCSV writes one CSV row per group summary, every column,
// times unscaled in seconds, NaN as "NaN".
func WriteSummaryCSV(w io.Writer, sums []analysis.GroupSummary) error {
	cw := csv.NewWriter(w)
	cw.Write(append(slices.Clone(summaryCSVHeader), anPercentileCSVHeader(sums)...))
	for _, s := range sums {
		mm := make([]string, len(s.MpirunMedians))
		for i, v := range s.MpirunMedians {
			mm[i] = anF(v)
		}
		bps, mps := "", "" // p2p: empty for calls that are not bandwidth calls
		if b, m, ok := analysis.Rates(s.Key, s.Median); ok {
			bps, mps = anF(b), anF(m)
		}
		cw.Write(append([]string{s.Key.Call, strconv.Itoa(s.Key.MsizeBytes), strconv.Itoa(s.Key.Np), s.Key.Datatype, s.Key.Labels,
			strconv.Itoa(s.N), strconv.Itoa(s.NMpiruns), strconv.Itoa(s.Invalid), strconv.Itoa(s.WrongResults), strconv.Itoa(s.Bad), strconv.Itoa(s.OutliersRemoved),
			anF(s.Median), anF(s.MedianCI.Lo), anF(s.MedianCI.Hi), anF(s.MedianCI.Confidence), s.MedianOf,
			anF(s.PooledMedian), anF(s.PooledMedianCI.Lo), anF(s.PooledMedianCI.Hi), anF(s.PooledMedianCI.Confidence), anF(s.Mean), anF(s.MeanCI.Lo), anF(s.MeanCI.Hi),
			anF(s.Min), anF(s.P99), anF(s.Max), strings.Join(mm, ";"), anF(anNormMax(s)), anF(s.Normality.Statistic), anF(s.Normality.P),
			strings.Join(s.Warnings, "; "), bps, mps, s.Modes.String(), strings.Join(s.Modes.ExplainedBy, ";")}, anPercentileCSV(s)...))
	}
	cw.Flush()
	return cw.Error()
}

// anJ converts NaN and ±Inf to JSON null.
func anJ(v float64) any {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return nil
	}
	return v
}

func anJS(v []float64) []any {
	out := make([]any, len(v))
	for i, x := range v {
		out[i] = anJ(x)
	}
	return out
}

// WriteSummaryJSON writes the group summaries and the rank pooling (when
// pool is not empty) as one indented JSON object {"groups": […],
// "rank_pooling": […]}; NaN and ±Inf are null.
func WriteSummaryJSON(w io.Writer, sums []analysis.GroupSummary, pool []analysis.RankPooling) error {
	type row = map[string]any
	groups := []row{}
	for _, s := range sums {
		warn := s.Warnings
		if warn == nil {
			warn = []string{}
		}
		g := row{
			"call": s.Key.Call, "msize_bytes": s.Key.MsizeBytes, "np": s.Key.Np, "datatype": s.Key.Datatype, "labels": s.Key.Labels,
			"n": s.N, "n_mpiruns": s.NMpiruns, "invalid": s.Invalid, "bad": s.Bad, "outliers_removed": s.OutliersRemoved, "wrong_results": s.WrongResults, "percentiles": anPercentileJSON(s),
			"median_s": anJ(s.Median), "median_ci_s": anJS([]float64{s.MedianCI.Lo, s.MedianCI.Hi}),
			"median_ci_confidence": anJ(s.MedianCI.Confidence), "median_of": s.MedianOf,
			"pooled_median_s": anJ(s.PooledMedian), "pooled_median_ci_s": anJS([]float64{s.PooledMedianCI.Lo, s.PooledMedianCI.Hi}),
			"pooled_median_ci_confidence": anJ(s.PooledMedianCI.Confidence),
			"mean_s":                      anJ(s.Mean), "mean_ci_s": anJS([]float64{s.MeanCI.Lo, s.MeanCI.Hi}),
			"min_s": anJ(s.Min), "p99_s": anJ(s.P99), "max_s": anJ(s.Max),
			"mpirun_medians_s":            anJS(s.MpirunMedians),
			"mpirun_means_normalized_max": anJ(anNormMax(s)),
			"normality":                   row{"test": "shapiro-wilk", "w": anJ(s.Normality.Statistic), "p_value": anJ(s.Normality.P)},
			"warnings":                    warn,
		}
		if b, m, ok := analysis.Rates(s.Key, s.Median); ok { // p2p
			g["bytes_per_s"], g["msgs_per_s"] = b, m
		}
		if e := s.InvalidExcess; e != nil {
			g["invalid_baseline"] = invalidExcessJSON(e)
		}
		modes := []row{}
		for _, m := range s.Modes.Modes {
			modes = append(modes, row{"median_s": anJ(m.Median), "mpiruns": len(m.Mpiruns), "share": m.Share})
		}
		explained := s.Modes.ExplainedBy
		if explained == nil {
			explained = []string{}
		}
		g["modes"], g["modes_explained_by"] = modes, explained
		groups = append(groups, g)
	}
	out := row{"groups": groups}
	if len(pool) > 0 {
		var pr []row
		for _, p := range pool {
			pr = append(pr, row{"call": p.Key.Call, "msize_bytes": p.Key.MsizeBytes, "np": p.Key.Np, "ranks": p.Ranks,
				"anova_p": anJ(p.ANOVA.P), "kruskal_wallis_p": anJ(p.KruskalWallis.P), "poolable": p.Poolable})
		}
		out["rank_pooling"] = pr
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}

// anBenchName renders a group key as a Go benchmark name with key=value
// sub-benchmark parts, the form benchstat groups by. Labels in omit (those
// with one value in the whole output) are left out. np comes last: a name
// that ended in "-<digits>" (a label value such as "openmpi-5") would be
// read as a GOMAXPROCS suffix and lose those digits, "/np=4" cannot.
func anBenchName(k analysis.GroupKey, omit map[string]bool) string {
	var b strings.Builder
	b.WriteString("Benchmark")
	b.WriteString(anBenchSafe(k.Call))
	fmt.Fprintf(&b, "/msize_bytes=%d", k.MsizeBytes)
	if k.Datatype != "" {
		b.WriteString("/datatype=" + anBenchSafe(k.Datatype))
	}
	if k.Labels != "" {
		for _, kv := range strings.Split(k.Labels, ",") {
			if !omit[kv] {
				b.WriteString("/" + anBenchSafe(kv))
			}
		}
	}
	fmt.Fprintf(&b, "/np=%d", k.Np)
	return b.String()
}

func anBenchSafe(s string) string {
	return strings.Map(func(r rune) rune {
		if unicode.IsSpace(r) || r == '/' {
			return '_'
		}
		return r
	}, s)
}

// anShortKey names k without the labels in common.
func anShortKey(k analysis.GroupKey, common []string) string {
	if len(common) == 0 || k.Labels == "" {
		return k.String()
	}
	kvs := slices.DeleteFunc(strings.Split(k.Labels, ","), func(kv string) bool { return slices.Contains(common, kv) })
	k.Labels = strings.Join(kvs, ",")
	return k.String()
}

// anCommonLabels returns the labels ("name=value") that every group has
// with the same value.
func anCommonLabels(sums []analysis.GroupSummary) []string {
	keys := make([]analysis.GroupKey, len(sums))
	for i, s := range sums {
		keys[i] = s.Key
	}
	return commonLabels(keys)
}

// commonLabels returns the labels ("name=value") that every key has with
// the same value.
func commonLabels(keys []analysis.GroupKey) []string {
	var common []string
	for i, k := range keys {
		var kvs []string
		if k.Labels != "" {
			kvs = strings.Split(k.Labels, ",")
		}
		if i == 0 {
			common = kvs
			continue
		}
		common = slices.DeleteFunc(common, func(kv string) bool { return !slices.Contains(kvs, kv) })
	}
	return common
}

// WriteBenchstat writes the Go benchmark format: one line per mpirun
// median (the independent samples of Hunold & Carpen-Amarie 2016, Alg. 6), in ns/op.
//
// Labels with one value across the whole output are written once, on a
// "# labels:" line that benchstat ignores, and left out of the names, so
// that the outputs for two data sets that differ only in such a label
// (say mpi_lib=openmpi and mpi_lib=mpich) compare row by row with
// "benchstat a.txt b.txt". Labels that vary stay in the names as
// key=value parts; compare their values with "benchstat -col /LABEL".
func WriteBenchstat(w io.Writer, sums []analysis.GroupSummary) error {
	bw := bufio.NewWriter(w)
	fmt.Fprintln(bw, "pkg: reprobench")
	fmt.Fprintln(bw, "note: one line per mpirun; value = median of the Tukey-filtered observations of that mpirun")
	common := anCommonLabels(sums)
	omit := map[string]bool{}
	if len(common) > 0 {
		fmt.Fprintf(bw, "# labels: %s (the same in every group, so not in the names)\n", strings.Join(common, ", "))
		for _, kv := range common {
			omit[kv] = true
		}
	}
	for _, s := range sums {
		name := anBenchName(s.Key, omit)
		for _, v := range s.MpirunMedians {
			fmt.Fprintf(bw, "%s\t1\t%s ns/op\n", name, strconv.FormatFloat(v*1e9, 'g', 10, 64))
		}
	}
	return bw.Flush()
}

// anNormMax is the largest per-mpirun mean of one group divided by the
// smallest (1: every mpirun agrees); NaN without mpiruns. It applies the
// normalization of Hunold & Carpen-Amarie 2016 (§6.3) to the mpiruns of one
// campaign, not their metric itself, which normalizes per-trial means over
// whole repetitions of the method (bench/papers: papertool repro).
func anNormMax(s analysis.GroupSummary) float64 {
	v := analysis.ReproducibilityMetric(s)
	if len(v) == 0 {
		return math.NaN()
	}
	return slices.Max(v)
}
