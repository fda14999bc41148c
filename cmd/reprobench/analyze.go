package main

import (
	"bufio"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"unicode"

	"github.com/reprobench/reprobench/analysis"
)

func init() {
	register(command{
		name:    "analyze",
		summary: "summarize raw observations per group (paper 000 Alg. 6): medians with CIs, per-mpirun medians",
		run:     runAnalyze,
	})
}

// anReadFiles reads raw (and per-rank) files into one Dataset. "-" is stdin.
// An observation read twice is an error unless keepDup (--keep-duplicates).
func anReadFiles(stdin io.Reader, files []string, keepDup bool) (*analysis.Dataset, error) {
	d := analysis.NewDataset()
	d.KeepDuplicates = keepDup
	for _, f := range files {
		if f == "-" {
			if err := d.Read(stdin, "<stdin>"); err != nil {
				return nil, anReadError(err)
			}
			continue
		}
		fh, err := os.Open(f)
		if err != nil {
			return nil, err
		}
		err = d.Read(fh, f)
		fh.Close()
		if err != nil {
			return nil, anReadError(err)
		}
	}
	return d, nil
}

// anOptions registers the options shared by analyze, compare and plot.
type anOptions struct {
	format  string
	tukey   float64
	level   float64
	keepDup bool
}

func (o *anOptions) register(fsFormat bool, fs interface {
	StringVar(*string, string, string, string)
	Float64Var(*float64, string, float64, string)
	BoolVar(*bool, string, bool, string)
}, formats string) {
	fs.BoolVar(&o.keepDup, "keep-duplicates", false, "count observations read twice (same run_id, mpirun, exp, rep) instead of refusing them")
	if fsFormat {
		fs.StringVar(&o.format, "format", "text", "output format: "+formats)
	}
	fs.Float64Var(&o.tukey, "tukey", 1.5, "Tukey fence constant k for outlier removal per mpirun (0 = keep all)")
	fs.Float64Var(&o.level, "level", 0.95, "confidence level of the intervals")
}

func (o *anOptions) options() (analysis.Options, error) {
	opt := analysis.DefaultOptions
	if !(o.level > 0 && o.level < 1) {
		return opt, fmt.Errorf("%w: --level must be in (0, 1)", errUsage)
	}
	if o.tukey < 0 || math.IsNaN(o.tukey) {
		return opt, fmt.Errorf("%w: --tukey must be ≥ 0", errUsage)
	}
	opt.Level, opt.TukeyK = o.level, o.tukey
	return opt, nil
}

func runAnalyze(stdout, stderr io.Writer, args []string) error {
	fs := newFlagSet("analyze", "[--format text|csv|json|benchstat] [--tukey K] [--level L] FILES...", stderr)
	var o anOptions
	o.register(true, fs, "text, csv, json or benchstat (Go benchmark format, one line per mpirun median)")
	if err := parseFlagsAnywhere(fs, args); err != nil {
		return err
	}
	opt, err := o.options()
	if err != nil {
		return err
	}
	if fs.NArg() == 0 {
		fs.Usage()
		return fmt.Errorf("%w: no input files", errUsage)
	}
	d, err := anReadFiles(os.Stdin, fs.Args(), o.keepDup)
	if err != nil {
		return err
	}
	reportDuplicates(stderr, "analyze", "", d)
	sums := analysis.Analyze(d, opt)
	pool := analysis.PoolRanks(d, 1-opt.Level)
	if len(sums) == 0 && len(pool) == 0 {
		return fmt.Errorf("no observations in %s", strings.Join(fs.Args(), ", "))
	}
	switch o.format {
	case "text":
		return anWriteText(stdout, sums, pool, opt)
	case "csv":
		return anWriteCSV(stdout, sums)
	case "json":
		return anWriteJSON(stdout, sums, pool)
	case "benchstat":
		return anWriteBenchstat(stdout, sums)
	}
	return fmt.Errorf("%w: unknown --format %q", errUsage, o.format)
}

// anUnit picks the unit for a row from a representative value in seconds,
// as benchstat does: ns below 1µs, µs below 1ms, ms below 1s, else s.
func anUnit(v float64) (string, float64) {
	a := math.Abs(v)
	switch {
	case math.IsNaN(v) || a < 1e-6:
		return "ns", 1e9
	case a < 1e-3:
		return "µs", 1e6
	case a < 1:
		return "ms", 1e3
	}
	return "s", 1
}

// anScaled formats v·scale with at least 3 significant digits.
func anScaled(v, scale float64, unit string) string {
	if math.IsNaN(v) {
		return "-"
	}
	x := v * scale
	dec := 0
	switch a := math.Abs(x); {
	case a == 0:
		dec = 0
	case a < 1:
		dec = 3
	case a < 10:
		dec = 2
	case a < 100:
		dec = 1
	}
	return strconv.FormatFloat(x, 'f', dec, 64) + unit
}

// anScaledPair formats an interval so that distinct bounds print distinctly
// (adding digits up to 6 decimals when the interval is narrow).
func anScaledPair(lo, hi, scale float64, unit string) string {
	a, b := anScaled(lo, scale, unit), anScaled(hi, scale, unit)
	for dec := 1; a == b && lo != hi && dec <= 6; dec++ {
		a = strconv.FormatFloat(lo*scale, 'f', dec, 64) + unit
		b = strconv.FormatFloat(hi*scale, 'f', dec, 64) + unit
	}
	return a + ", " + b
}

func anWriteText(w io.Writer, sums []analysis.GroupSummary, pool []analysis.RankPooling, opt analysis.Options) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	lv := fmt.Sprintf("%g%%", 100*opt.Level)
	if len(sums) > 0 {
		fmt.Fprintf(tw, "group\tn\tmpiruns\tinvalid\tbad\toutliers\tmedian\t%s CI\tmean\t%s CI\tmin\tp99\tmax\tmpirun medians\tnormal(p)\n", lv, lv)
	}
	var warns []string
	// Labels every group shares (the factor columns of one configuration,
	// a library name) are said once above the table, not on every row.
	common := anCommonLabels(sums)
	if len(common) > 0 {
		fmt.Fprintf(w, "every group: %s\n", strings.Join(common, " "))
	}
	for _, s := range sums {
		name := anShortKey(s.Key, common)
		unit, sc := anUnit(s.Median)
		f := func(v float64) string { return anScaled(v, sc, unit) }
		ci := func(iv analysis.Interval) string {
			if !iv.Valid() {
				return "-"
			}
			return "[" + anScaledPair(iv.Lo, iv.Hi, sc, unit) + "]"
		}
		mm := "-"
		if len(s.MpirunMedians) > 0 {
			lo, hi := s.MpirunMedians[0], s.MpirunMedians[0]
			for _, v := range s.MpirunMedians {
				lo, hi = math.Min(lo, v), math.Max(hi, v)
			}
			mm = f(lo) + ".." + f(hi)
		}
		norm := "-"
		if !math.IsNaN(s.Normality.P) {
			norm = fmt.Sprintf("%.3f", s.Normality.P)
		}
		med := f(s.Median)
		if s.MedianCI.Valid() && s.Median > 0 {
			// benchstat style: the larger distance to a CI bound, in %.
			pm := math.Max(s.Median-s.MedianCI.Lo, s.MedianCI.Hi-s.Median) / s.Median * 100
			med += fmt.Sprintf(" ±%.2g%%", pm)
		}
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%d\t%d\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n",
			name, s.N, s.NMpiruns, s.Invalid, s.Bad, s.OutliersRemoved, med, ci(s.MedianCI),
			f(s.Mean), ci(s.MeanCI), f(s.Min), f(s.P99), f(s.Max), mm, norm)
		for _, wn := range s.Warnings {
			warns = append(warns, name+": "+wn)
		}
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if len(pool) > 0 {
		if len(sums) > 0 {
			fmt.Fprintln(w)
		}
		fmt.Fprintln(w, "can ranks be pooled? (paper 002 Rule 10: ANOVA and Kruskal-Wallis across ranks)")
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
		for _, wn := range warns {
			fmt.Fprintln(w, "warning:", wn)
		}
	}
	return nil
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

var anCSVHeader = []string{"call", "msize_bytes", "np", "datatype", "labels", "n", "n_mpiruns", "invalid", "bad", "outliers_removed",
	"median_s", "median_ci_lo_s", "median_ci_hi_s", "median_ci_confidence", "mean_s", "mean_ci_lo_s", "mean_ci_hi_s",
	"min_s", "p99_s", "max_s", "mpirun_medians_s", "mpirun_means_normalized_max", "normality_w", "normality_p", "warnings"}

func anWriteCSV(w io.Writer, sums []analysis.GroupSummary) error {
	cw := csv.NewWriter(w)
	cw.Write(anCSVHeader)
	for _, s := range sums {
		mm := make([]string, len(s.MpirunMedians))
		for i, v := range s.MpirunMedians {
			mm[i] = anF(v)
		}
		cw.Write([]string{s.Key.Call, strconv.FormatInt(s.Key.MsizeBytes, 10), strconv.Itoa(s.Key.NP), s.Key.Datatype, s.Key.Labels,
			strconv.Itoa(s.N), strconv.Itoa(s.NMpiruns), strconv.Itoa(s.Invalid), strconv.Itoa(s.Bad), strconv.Itoa(s.OutliersRemoved),
			anF(s.Median), anF(s.MedianCI.Lo), anF(s.MedianCI.Hi), anF(s.MedianCI.Confidence), anF(s.Mean), anF(s.MeanCI.Lo), anF(s.MeanCI.Hi),
			anF(s.Min), anF(s.P99), anF(s.Max), strings.Join(mm, ";"), anF(anNormMax(s)), anF(s.Normality.Statistic), anF(s.Normality.P),
			strings.Join(s.Warnings, "; ")})
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

func anWriteJSON(w io.Writer, sums []analysis.GroupSummary, pool []analysis.RankPooling) error {
	type row = map[string]any
	groups := []row{}
	for _, s := range sums {
		warn := s.Warnings
		if warn == nil {
			warn = []string{}
		}
		groups = append(groups, row{
			"call": s.Key.Call, "msize_bytes": s.Key.MsizeBytes, "np": s.Key.NP, "datatype": s.Key.Datatype, "labels": s.Key.Labels,
			"n": s.N, "n_mpiruns": s.NMpiruns, "invalid": s.Invalid, "bad": s.Bad, "outliers_removed": s.OutliersRemoved,
			"median_s": anJ(s.Median), "median_ci_s": anJS([]float64{s.MedianCI.Lo, s.MedianCI.Hi}),
			"median_ci_confidence": anJ(s.MedianCI.Confidence),
			"mean_s":               anJ(s.Mean), "mean_ci_s": anJS([]float64{s.MeanCI.Lo, s.MeanCI.Hi}),
			"min_s": anJ(s.Min), "p99_s": anJ(s.P99), "max_s": anJ(s.Max),
			"mpirun_medians_s":            anJS(s.MpirunMedians),
			"mpirun_means_normalized_max": anJ(anNormMax(s)),
			"normality":                   row{"test": "shapiro-wilk", "w": anJ(s.Normality.Statistic), "p_value": anJ(s.Normality.P)},
			"warnings":                    warn,
		})
	}
	out := row{"groups": groups}
	if len(pool) > 0 {
		var pr []row
		for _, p := range pool {
			pr = append(pr, row{"call": p.Key.Call, "msize_bytes": p.Key.MsizeBytes, "np": p.Key.NP, "ranks": p.Ranks,
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
	fmt.Fprintf(&b, "/np=%d", k.NP)
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

// anWriteBenchstat writes the Go benchmark format: one line per mpirun
// median (the independent samples of paper 000 Alg. 6), in ns/op.
//
// Labels with one value across the whole output are written once, on a
// "# labels:" line that benchstat ignores, and left out of the names, so
// that the outputs for two data sets that differ only in such a label
// (say mpi_lib=openmpi and mpi_lib=mpich) compare row by row with
// "benchstat a.txt b.txt". Labels that vary stay in the names as
// key=value parts; compare their values with "benchstat -col /LABEL".
func anWriteBenchstat(w io.Writer, sums []analysis.GroupSummary) error {
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

// anNormMax is the reproducibility metric of paper 000 §6.3 for one group:
// the largest per-mpirun mean divided by the smallest (1 = perfectly
// reproducible); NaN without mpiruns.
func anNormMax(s analysis.GroupSummary) float64 {
	v := analysis.ReproducibilityMetric(s)
	if len(v) == 0 {
		return math.NaN()
	}
	return slices.Max(v)
}
