package tables

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/reprobench/reprobench/analysis"
)

// BaselineNote says in one sentence what the machine's own share is.
const BaselineNote = "machine's own: the invalid share of the window loop with nothing to time, measured by the library " +
	"after the first clock synchronization of each mpirun (window.MeasureBaseline), pooled over the group's mpiruns; " +
	"excess: the group's share minus it, with Newcombe's interval, which treats observations as independent (docs/windows.md)"

// WriteInvalidExcess prints, below the analyze table, each group's invalid
// share beside the machine's own (analysis.GroupSummary.InvalidExcess),
// and which groups lose more than it; nothing when no group has one.
func WriteInvalidExcess(w io.Writer, sums []analysis.GroupSummary, level float64) error {
	var keys []analysis.GroupKey
	for _, s := range sums {
		if s.InvalidExcess != nil {
			keys = append(keys, s.Key)
		}
	}
	if len(keys) == 0 {
		return nil
	}
	common := commonLabels(keys)
	fmt.Fprintf(w, "\ninvalid shares beside the machine's own late share\n")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "group\tinvalid\tmachine's own\texcess [%g%% CI]\t\n", 100*level)
	over := 0
	for _, s := range sums {
		e := s.InvalidExcess
		if e == nil {
			continue
		}
		mark := ""
		if e.InExcess() {
			mark = "in excess"
			over++
		}
		if s.Load.Explains() { // analysis.GroupLoad: see WriteCPULoad
			mark = strings.TrimPrefix(mark+"; busy machine", "; ")
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", anShortKey(s.Key, common), SharePct(e.Share), SharePct(e.Baseline), ExcessText(*e), mark)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintf(w, "%d of %d groups lose more than the machine's own share\n", over, len(keys))
	fmt.Fprintln(w, WrapLine(BaselineNote, 0))
	return nil
}

// SharePct formats a share as a percentage ("11.0%"; "-" for NaN).
func SharePct(v float64) string {
	if v != v {
		return "-"
	}
	return fmt.Sprintf("%.1f%%", 100*v)
}

// ExcessText formats an excess in percentage points with its interval:
// "+2.0 [+0.5, +3.4] points".
func ExcessText(e analysis.InvalidExcess) string {
	if e.Excess != e.Excess {
		return "-"
	}
	if !e.CI.Valid() {
		return fmt.Sprintf("%+.1f points", 100*e.Excess)
	}
	return fmt.Sprintf("%+.1f [%+.1f, %+.1f] points", 100*e.Excess, 100*e.CI.Lo, 100*e.CI.Hi)
}

// invalidExcessJSON is the JSON object of an InvalidExcess.
func invalidExcessJSON(e *analysis.InvalidExcess) map[string]any {
	return map[string]any{"invalid": e.Invalid, "rows": e.Rows, "share": anJ(e.Share),
		"baseline_invalid": e.BaseInvalid, "baseline_observations": e.BaseN, "baseline_share": anJ(e.Baseline),
		"excess": anJ(e.Excess), "excess_ci": anJS([]float64{e.CI.Lo, e.CI.Hi}), "ci_confidence": anJ(e.CI.Confidence),
		"in_excess": e.InExcess()}
}
