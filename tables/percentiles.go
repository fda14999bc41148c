package tables

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/reprobench/reprobench/analysis"
)

// anPctName is a percentile's column stem: "p99", "p99.9".
func anPctName(p float64) string { return "p" + strconv.FormatFloat(p, 'f', -1, 64) }

// WritePercentiles prints, below the analyze table, one row per group
// with each percentile and its interval; a pooled value is marked "(pooled)".
func WritePercentiles(w io.Writer, sums []analysis.GroupSummary, opt analysis.Options) error {
	if len(opt.Percentiles) == 0 || len(sums) == 0 {
		return nil
	}
	keys := make([]analysis.GroupKey, len(sums))
	for i, s := range sums {
		keys[i] = s.Key
	}
	common := commonLabels(keys)
	fmt.Fprintf(w, "\npercentiles (valid observations, not outlier-filtered): median over mpiruns of each mpirun's percentile [%g%% CI over mpiruns]\n", 100*opt.Level)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprint(tw, "group")
	for _, p := range opt.Percentiles {
		fmt.Fprintf(tw, "\t%s", strings.ToUpper(anPctName(p)))
	}
	fmt.Fprintln(tw)
	pooled, nearest := false, false
	var warns []string // distinct, in order, with their group counts
	wcount := map[string]int{}
	for _, s := range sums {
		name := anShortKey(s.Key, common)
		fmt.Fprint(tw, name)
		for _, ps := range s.Percentiles {
			unit, sc := analysis.TimeUnit(ps.Value)
			cell := analysis.FormatTimeScaled(ps.Value, sc, unit)
			if ps.CI.Valid() {
				cell += " [" + strings.ReplaceAll(analysis.FormatTimeScaledPair(ps.CI.Lo, ps.CI.Hi, sc, unit), unit, "") + "]"
			} else {
				cell += " [-]"
			}
			if ps.Of == analysis.PercentileOfPooled {
				cell += " (pooled)"
				pooled = true
			}
			nearest = nearest || ps.Rule == "nearest-rank"
			fmt.Fprint(tw, "\t"+cell)
			for _, wn := range ps.Warnings {
				if wcount[wn] == 0 {
					warns = append(warns, wn)
				}
				wcount[wn]++
			}
		}
		fmt.Fprintln(tw)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if pooled {
		fmt.Fprintln(w, "(pooled): too few mpiruns for an interval over mpiruns: the percentile of all observations pooled, whose interval treats them as independent")
	}
	if nearest {
		fmt.Fprintln(w, "runtime_type=osu groups: nearest-rank percentiles of the per-iteration times averaged over ranks, as OSU 7's -z")
	}
	for _, wn := range warns {
		fmt.Fprintln(w, WrapLine(fmt.Sprintf("warning: %d of %d groups: %s", wcount[wn], len(sums), wn), len("warning: ")))
	}
	return nil
}

// anPercentileCSVHeader returns the CSV columns of the percentiles of
// sums (those of the first group: every group has the same list).
func anPercentileCSVHeader(sums []analysis.GroupSummary) []string {
	if len(sums) == 0 {
		return nil
	}
	var h []string
	for _, ps := range sums[0].Percentiles {
		n := "pctl" + strings.TrimPrefix(anPctName(ps.Percent), "p") // p99_s is the pooled P99 column
		h = append(h, n+"_s", n+"_ci_lo_s", n+"_ci_hi_s", n+"_of")
	}
	return h
}

// anPercentileCSV returns the percentile cells of one group.
func anPercentileCSV(s analysis.GroupSummary) []string {
	var out []string
	for _, ps := range s.Percentiles {
		out = append(out, anF(ps.Value), anF(ps.CI.Lo), anF(ps.CI.Hi), ps.Of)
	}
	return out
}

// anPercentileJSON returns the percentiles of one group for JSON (an
// empty list without --percentiles).
func anPercentileJSON(s analysis.GroupSummary) []map[string]any {
	out := []map[string]any{}
	for _, ps := range s.Percentiles {
		warn := ps.Warnings
		if warn == nil {
			warn = []string{}
		}
		out = append(out, map[string]any{"percent": ps.Percent, "value_s": anJ(ps.Value),
			"ci_s": anJS([]float64{ps.CI.Lo, ps.CI.Hi}), "ci_confidence": anJ(ps.CI.Confidence),
			"of": ps.Of, "rule": ps.Rule, "n_mpiruns": ps.NMpiruns, "mpirun_values_s": anJS(ps.MpirunValues), "warnings": warn})
	}
	return out
}
