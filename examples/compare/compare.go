package main

import (
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/reprobench/reprobench/analysis"
)

// Row is one line of the comparison table.
type Row struct {
	Key              analysis.GroupKey // without the ignored label
	A, B             analysis.GroupSummary
	MedianA, MedianB float64 // median of the per-mpirun medians, seconds
	Test             analysis.TestResult
}

// CompareCampaigns analyzes two data sets and compares every group present in
// both — the method of Hunold & Carpen-Amarie 2016 (Alg. 6 and §6.2), step by step:
//
//  1. group the observations by (call, msize, np, datatype, labels),
//     ignoring the label that names the campaign (e.g. mpi_lib);
//  2. per group and mpirun, drop outliers (Tukey) and take the median
//     (analysis.Analyze gives GroupSummary.MpirunMedians);
//  3. compare the two samples of per-mpirun medians with the Wilcoxon
//     rank-sum test: the mpirun is the experimental unit, observations within
//     one mpirun are not independent of it (Hunold et al. 2014).
//
// analysis.Compare and analysis.CompareBy do all of this in one call (and add
// the Hodges-Lehmann shift and effect sizes); this function spells it out.
func CompareCampaigns(a, b *analysis.Dataset, ignore string, opt analysis.Options) []Row {
	byKey := map[analysis.GroupKey]analysis.GroupSummary{}
	for _, s := range analysis.Analyze(a, opt) {
		byKey[s.Key.WithoutLabel(ignore)] = s
	}
	var rows []Row
	for _, sb := range analysis.Analyze(b, opt) { // sorted by call, labels, datatype, np, msize
		k := sb.Key.WithoutLabel(ignore)
		sa, ok := byKey[k]
		if !ok {
			continue
		}
		rows = append(rows, Row{Key: k, A: sa, B: sb,
			MedianA: analysis.Median(sa.MpirunMedians), MedianB: analysis.Median(sb.MpirunMedians),
			Test: analysis.WilcoxonRankSum(sa.MpirunMedians, sb.MpirunMedians, opt.Alternative)})
	}
	return rows
}

// Print writes the table: medians in µs, the relative difference only
// where it is significant at alpha (~ otherwise), p-values with stars.
func Print(w io.Writer, nameA, nameB string, rows []Row, alpha float64) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "group\t%s µs\t%s µs\tB vs A\tp\t\tmpiruns\t\n", nameA, nameB)
	for _, r := range rows {
		delta := "~"
		if r.Test.P <= alpha {
			delta = fmt.Sprintf("%+.1f%%", 100*(r.MedianB/r.MedianA-1))
		}
		fmt.Fprintf(tw, "%s\t%.3f\t%.3f\t%s\t%.4f\t%s\t%d+%d\t\n", r.Key, r.MedianA*1e6, r.MedianB*1e6,
			delta, r.Test.P, analysis.Stars(r.Test.P), r.A.NMpiruns, r.B.NMpiruns)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	_, err := fmt.Fprintf(w, "medians of per-mpirun medians; Wilcoxon rank-sum on per-mpirun medians; "+
		"~ not significant at %g; * p≤0.05 ** p≤0.01 *** p≤0.001\n", alpha)
	return err
}
