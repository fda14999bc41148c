package tables

import (
	"fmt"
	"io"
	"math"
	"strings"
	"text/tabwriter"

	"github.com/reprobench/reprobench/analysis"
)

// maxRankRows is the largest rank count for which WriteRegionRuns lists
// every rank's total per region; above it, the per-region statistics only.
const maxRankRows = 16

// WriteRegionRuns writes, per run of application regions, where the time
// went: the run's span with its error, the incomplete mark and the misuse
// account, per region the ranks' totals (mean, max, min), share of the run
// and load imbalance, each rank's total and share (up to maxRankRows
// ranks), and the POP efficiencies with their intervals
// (analysis.AnalyzeRegionRun).
func WriteRegionRuns(w io.Writer, runs []*analysis.RegionRunAnalysis) error {
	for _, a := range runs {
		fmt.Fprintf(w, "\napplication regions of %s mpirun %d (np %d, from the %s)\n%s\n", a.ID.RunID, a.ID.Mpirun, a.Np, a.Source, runSpan(a))
		if a.Incomplete {
			fmt.Fprintln(w, "INCOMPLETE RUN: read back from the ranks' spill files after it ended before Close; times on each rank's own clock")
		}
		if a.Misuse.Any() {
			fmt.Fprintf(w, "misuse: %s\n", a.Misuse)
		} else {
			fmt.Fprintln(w, "misuse: none (0 misuses, 0 drops, 0 unclosed)")
		}
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "region\tranks\tmean total\tmax\tmin\tshare of run\timbalance (max/mean)")
		for _, t := range a.Totals {
			fmt.Fprintf(tw, "%s\t%d\t%s\t%s\t%s\t%s\t%.3f\n", t.Name(), t.Ranks, fmtS(t.MeanS), fmtS(t.MaxS), fmtS(t.MinS), pctOf(t.MeanS, a.RunS), t.Imbalance)
		}
		if err := tw.Flush(); err != nil {
			return err
		}
		if len(a.Totals) > 0 && a.Totals[0].PerRankS != nil {
			if n := len(a.Totals[0].PerRankS); n <= maxRankRows {
				tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
				fmt.Fprintln(tw, "region\trank\ttotal\tshare of run\toccurrences")
				for _, t := range a.Totals {
					for r, v := range t.PerRankS {
						if !math.IsNaN(v) {
							fmt.Fprintf(tw, "%s\t%d\t%s\t%s\t%d\n", t.Name(), r, fmtS(v), pctOf(v, a.RunS), t.Count[r])
						}
					}
				}
				if err := tw.Flush(); err != nil {
					return err
				}
			} else {
				fmt.Fprintf(w, "per rank: %d ranks, more than %d: not listed\n", n, maxRankRows)
			}
		}
		if p := a.POP; p != nil {
			fmt.Fprintf(w, "POP efficiencies, useful = %s (intervals: clock bounds, ±%g ppm rate; too wide past %g):\n",
				strings.Join(p.Compute, ", "), 1e6*a.Options.RateErr, a.Options.MaxWidth)
			fmt.Fprintf(w, "  load balance (mean/max useful)            %s\n", p.LoadBalance)
			fmt.Fprintf(w, "  communication efficiency (max useful/run) %s\n", p.CommEfficiency)
			fmt.Fprintf(w, "  parallel efficiency (product)             %s\n", p.ParallelEfficiency)
			if !math.IsNaN(p.TypicalLoadBalance.Value) {
				fmt.Fprintf(w, "  load balance of typical occurrences       %s (per-rank median × count: long occurrences, e.g. descheduling, weigh less)\n", p.TypicalLoadBalance)
			}
		} else {
			fmt.Fprintln(w, "POP efficiencies: no region marked as computation (analyze --compute NAMES)")
		}
		for _, n := range a.Notes {
			fmt.Fprintln(w, "note: "+n)
		}
	}
	return nil
}

func runSpan(a *analysis.RegionRunAnalysis) string {
	switch {
	case math.IsNaN(a.RunS):
		return "the run's span is unknown"
	case math.IsInf(a.RunErrS, 1):
		return fmt.Sprintf("run: at least %s (the longest rank's own clock; no global times with a stated bound)", fmtS(a.RunS))
	}
	return fmt.Sprintf("run: %s ± %s (earliest global start to latest end; ± two largest clock bounds + rate error)", fmtS(a.RunS), fmtS(a.RunErrS))
}

func fmtS(s float64) string {
	if math.IsNaN(s) || math.IsInf(s, 0) {
		return "-"
	}
	unit, sc := analysis.TimeUnit(s)
	return fmt.Sprintf("%.4g %s", s*sc, unit)
}

func pctOf(x, of float64) string {
	if !(of > 0) {
		return "-"
	}
	return fmt.Sprintf("%.1f%%", 100*x/of)
}
