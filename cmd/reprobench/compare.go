package main

import (
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

	"github.com/reprobench/reprobench/analysis"
)

func init() {
	register(command{
		name:    "compare",
		summary: "compare two data sets (A... -- B...) or label values (--by LABEL) with the Wilcoxon test on per-mpirun medians",
		run:     runCompare,
	})
}

func runCompare(stdout, stderr io.Writer, args []string) error {
	fs := newFlagSet("compare", "[--alternative two-sided|less|greater] [--alpha 0.05] [--format text|csv|json] (A... -- B... | --by LABEL [--paired] FILES...)", stderr)
	var o anOptions
	o.register(true, fs, "text, csv or json")
	alt := fs.String("alternative", "two-sided", "alternative hypothesis for A relative to B: two-sided, less (A faster) or greater")
	alpha := fs.Float64("alpha", 0.05, "significance level; rows with p > alpha are marked ~ in text output")
	by := fs.String("by", "", "compare groups that differ only in this label (smallest value is the baseline A)")
	paired := fs.Bool("paired", false, "with --by: pair the per-mpirun medians of label values that ran in the same mpiruns and use the signed-rank test (removes mpirun-to-mpirun variation; needs ≥ 6 mpiruns to reach p < 0.05)")
	if err := parseFlagsAnywhere(fs, args); err != nil {
		return err
	}
	opt, err := o.options()
	if err != nil {
		return err
	}
	if opt.Alternative, err = analysis.ParseAlternative(*alt); err != nil {
		return fmt.Errorf("%w: %v", errUsage, err)
	}
	if !(*alpha > 0 && *alpha < 1) {
		return fmt.Errorf("%w: --alpha must be in (0, 1)", errUsage)
	}
	opt.Alpha = *alpha
	if *paired && *by == "" {
		return fmt.Errorf("%w: --paired needs --by: data sets given as A -- B come from different mpiruns", errUsage)
	}
	opt.PairByMpirun = *paired
	rest := fs.Args()
	var rows []analysis.Comparison
	if *by != "" {
		if len(rest) == 0 || slices.Contains(rest, "--") {
			return fmt.Errorf("%w: --by takes one data set: FILES... without --", errUsage)
		}
		d, err := anReadFiles(os.Stdin, rest, o.keepDup)
		if err != nil {
			return err
		}
		reportDropped(stderr, "compare", "", d, nil)
		if rows, err = analysis.CompareBy(d, *by, opt); err != nil {
			return err
		}
		if len(rows) == 0 {
			return fmt.Errorf("label %q never has two values within one group: nothing to compare", *by)
		}
	} else {
		i := slices.Index(rest, "--")
		if i <= 0 || i == len(rest)-1 {
			fs.Usage()
			return fmt.Errorf("%w: want A-FILES... -- B-FILES... (two data sets separated by --)", errUsage)
		}
		da, err := anReadFiles(os.Stdin, rest[:i], o.keepDup)
		if err != nil {
			return err
		}
		db, err := anReadFiles(os.Stdin, rest[i+1:], o.keepDup)
		if err != nil {
			return err
		}
		reportDropped(stderr, "compare", "A", da, nil)
		reportDropped(stderr, "compare", "B", db, nil)
		var onlyA, onlyB []analysis.GroupKey
		rows, onlyA, onlyB = analysis.Compare(da, db, opt)
		for _, k := range onlyA {
			fmt.Fprintf(stderr, "compare: group %s only in A\n", k)
		}
		for _, k := range onlyB {
			fmt.Fprintf(stderr, "compare: group %s only in B\n", k)
		}
		if len(rows) == 0 {
			return fmt.Errorf("no group in common between A and B (groups include every label; to compare label values within one data set use --by LABEL)")
		}
	}
	switch o.format {
	case "text":
		return cmpWriteText(stdout, rows, opt)
	case "csv":
		return cmpWriteCSV(stdout, rows, opt)
	case "json":
		return cmpWriteJSON(stdout, rows, opt)
	}
	return fmt.Errorf("%w: unknown --format %q", errUsage, o.format)
}

func cmpWriteText(w io.Writer, rows []analysis.Comparison, opt analysis.Options) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	withNames := rows[0].NameA != "" || rows[0].NameB != ""
	if withNames {
		fmt.Fprint(tw, "group\tA\tB\t")
	} else {
		fmt.Fprint(tw, "group\t")
	}
	fmt.Fprintf(tw, "median A\tmedian B\tvs A\tp (%s)\t\tn\ttest\n", opt.Alternative)
	keys := make([]analysis.GroupKey, len(rows))
	for i, c := range rows {
		keys[i] = c.Key
	}
	common := commonLabels(keys)
	if len(common) > 0 {
		fmt.Fprintf(w, "every group: %s\n", strings.Join(common, " "))
	}
	var warns []string
	for _, c := range rows {
		name := anShortKey(c.Key, common)
		unit, sc := anUnit(c.MedianA)
		delta := "~"
		if c.Significant {
			delta = fmt.Sprintf("%+.2f%%", 100*(c.Ratio-1))
		}
		if withNames {
			fmt.Fprintf(tw, "%s\t%s\t%s\t", name, c.NameA, c.NameB)
		} else {
			fmt.Fprintf(tw, "%s\t", name)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\tp=%s\t%s\tn=%d+%d\t%s\n", anScaled(c.MedianA, sc, unit), anScaled(c.MedianB, sc, unit),
			delta, cmpP(c.Result.P), analysis.Stars(c.Result.P), c.NA, c.NB, c.Test)
		for _, wn := range c.Warnings {
			warns = append(warns, name+": "+wn)
		}
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintf(w, "\n~: not significant at alpha=%g; * p≤0.05, ** p≤0.01, *** p≤0.001 (paper 000 §6.2)\n", opt.Alpha)
	for _, wn := range warns {
		fmt.Fprintln(w, "warning:", wn)
	}
	return nil
}

func cmpP(p float64) string {
	if math.IsNaN(p) {
		return "NaN"
	}
	return strconv.FormatFloat(p, 'f', 3, 64)
}

var cmpCSVHeader = []string{"call", "msize_bytes", "np", "datatype", "labels", "a", "b", "median_a_s", "median_b_s", "ratio",
	"p_value", "stars", "significant", "alternative", "test", "n_a", "n_b", "shift_s", "shift_ci_lo_s", "shift_ci_hi_s", "a12", "warnings"}

func cmpWriteCSV(w io.Writer, rows []analysis.Comparison, opt analysis.Options) error {
	cw := csv.NewWriter(w)
	cw.Write(cmpCSVHeader)
	for _, c := range rows {
		cw.Write([]string{c.Key.Call, strconv.FormatInt(c.Key.MsizeBytes, 10), strconv.Itoa(c.Key.NP), c.Key.Datatype, c.Key.Labels,
			c.NameA, c.NameB, anF(c.MedianA), anF(c.MedianB), anF(c.Ratio), anF(c.Result.P), analysis.Stars(c.Result.P),
			strconv.FormatBool(c.Significant), opt.Alternative.String(), c.Test, strconv.Itoa(c.NA), strconv.Itoa(c.NB),
			anF(c.Shift.Estimate), anF(c.Shift.Lo), anF(c.Shift.Hi), anF(c.A12), strings.Join(c.Warnings, "; ")})
	}
	cw.Flush()
	return cw.Error()
}

func cmpWriteJSON(w io.Writer, rows []analysis.Comparison, opt analysis.Options) error {
	out := []map[string]any{}
	for _, c := range rows {
		warn := c.Warnings
		if warn == nil {
			warn = []string{}
		}
		out = append(out, map[string]any{
			"call": c.Key.Call, "msize_bytes": c.Key.MsizeBytes, "np": c.Key.NP, "datatype": c.Key.Datatype, "labels": c.Key.Labels,
			"a": c.NameA, "b": c.NameB, "median_a_s": anJ(c.MedianA), "median_b_s": anJ(c.MedianB), "ratio": anJ(c.Ratio),
			"p_value": anJ(c.Result.P), "stars": analysis.Stars(c.Result.P), "significant": c.Significant,
			"alternative": opt.Alternative.String(), "test": c.Test, "n_a": c.NA, "n_b": c.NB, "warnings": warn,
			"shift_s": anJ(c.Shift.Estimate), "shift_ci_s": anJS([]float64{c.Shift.Lo, c.Shift.Hi}), "a12": anJ(c.A12),
		})
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(map[string]any{"alpha": opt.Alpha, "comparisons": out})
}
