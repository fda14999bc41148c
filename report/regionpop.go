package report

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/reprobench/reprobench/analysis"
)

// regionAnalysisView fills the Regions section's account, totals and POP
// rows of one run from its analysis (nothing when a is nil).
func regionAnalysisView(rv *regionView, a *analysis.RegionRunAnalysis) {
	if a == nil {
		return
	}
	var acc []string
	if a.Incomplete {
		acc = append(acc, "INCOMPLETE RUN: read back from the ranks' spill files after it ended before Close; times on each rank's own clock.")
		rv.Warn = true
	}
	if a.Misuse.Any() {
		acc = append(acc, "Recorder misuse: "+a.Misuse.String()+".")
		rv.Warn = true
	} else {
		acc = append(acc, "Recorder misuse: none (0 misuses, 0 drops, 0 unclosed).")
	}
	switch {
	case math.IsNaN(a.RunS):
		acc = append(acc, "The run's span is unknown.")
	case math.IsInf(a.RunErrS, 1):
		acc = append(acc, fmt.Sprintf("Run: at least %s (the longest rank's own clock; no global times with a stated bound).", fmtSeconds(a.RunS)))
	default:
		acc = append(acc, fmt.Sprintf("Run: %s ± %s, the earliest global start of a record to the latest end (± the two largest stated clock bounds and the clocks' rate error).", fmtSeconds(a.RunS), fmtSeconds(a.RunErrS)))
	}
	acc = append(acc, "Totals from the "+a.Source+"; every observation kept (no outlier filter for regions unless --tukey is given).")
	rv.Account = strings.Join(acc, " ")
	for _, t := range a.Totals {
		share := "—"
		if a.RunS > 0 {
			share = fmt.Sprintf("%.1f%%", 100*t.MeanS/a.RunS)
		}
		rv.Totals = append(rv.Totals, totalRow{Region: t.Name(), Ranks: strconv.Itoa(t.Ranks), Mean: fmtSeconds(t.MeanS), Max: fmtSeconds(t.MaxS),
			Min: fmtSeconds(t.MinS), Share: share, Imbalance: fmt.Sprintf("%.3f", t.Imbalance)})
	}
	p := a.POP
	if p == nil {
		rv.PopNote = "POP efficiencies: no region marked as computation (report --compute NAMES)."
		return
	}
	rv.PopNote = fmt.Sprintf("POP efficiencies with useful computation = %s: each interval holds what the stated clock bounds and a clock rate error of ±%g ppm allow; wider than %g is too wide to conclude (docs/regions.md).",
		strings.Join(p.Compute, ", "), 1e6*a.Options.RateErr, a.Options.MaxWidth)
	effs := []struct {
		name string
		e    analysis.Efficiency
	}{{"load balance (mean/max useful)", p.LoadBalance}, {"communication efficiency (max useful/run)", p.CommEfficiency}, {"parallel efficiency (product)", p.ParallelEfficiency}}
	if !math.IsNaN(p.TypicalLoadBalance.Value) { // needs the per-rank medians
		effs = append(effs, struct {
			name string
			e    analysis.Efficiency
		}{"load balance of typical occurrences (per-rank median × count)", p.TypicalLoadBalance})
	}
	for _, e := range effs {
		row := popRow{Name: e.name, Value: "unknown", Interval: "—", Verdict: "—"}
		if !math.IsNaN(e.e.Value) {
			row.Value = fmt.Sprintf("%.3f", e.e.Value)
			row.Interval = fmt.Sprintf("[%.3f, %.3f]", e.e.Lo, e.e.Hi)
			row.Verdict = "concluded"
			if e.e.TooWide {
				row.Verdict = "too wide to conclude"
			}
		}
		rv.POP = append(rv.POP, row)
	}
}
