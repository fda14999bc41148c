package tables

import (
	"fmt"
	"io"
	"strconv"
	"text/tabwriter"

	"github.com/reprobench/reprobench/analysis"
)

// testObservations is Comparison.Test when a side had one mpirun: the
// test compared that mpirun's observations, not mpiruns.
const testObservations = "wilcoxon-observations"

// obsNote explains the (obs) mark of the text table.
const obsNote = "(obs): a side had one mpirun; p compares observations of that mpirun, not mpiruns, and earns no stars (the mpirun is the unit: Hunold, Carpen-Amarie & Träff 2014)"

// stars returns the stars of a comparison row: none for a row that
// compared single observations of one mpirun.
func stars(c analysis.Comparison) string {
	if c.Test == testObservations {
		return ""
	}
	return analysis.Stars(c.Result.P)
}

// WriteGateText prints the regression gate's decisions (analysis.Gate)
// for a person, below the comparison table.
func WriteGateText(w io.Writer, r analysis.GateReport) error {
	fmt.Fprintf(w, "\ngate: B slower than A by more than %g%%? one-sided rank-sum on per-mpirun medians, Holm over %s, alpha %g\n",
		100*r.Threshold, Groups(r.Family), r.Alpha)
	// Group names without the labels every group shares, as in the table.
	keys := make([]analysis.GroupKey, len(r.Rows))
	for i, g := range r.Rows {
		keys[i] = g.Key
	}
	common := commonLabels(keys)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "group\tmpiruns\tHL B/A\tp\tp_holm\tdecision")
	for _, g := range r.Rows {
		name := anShortKey(g.Key, common)
		if g.NameA != "" || g.NameB != "" {
			name += " (" + g.NameA + " vs " + g.NameB + ")"
		}
		fmt.Fprintf(tw, "%s\t%d+%d\t%s\t%s\t%s\t%s\n", name, g.NA, g.NB, analysis.FormatRatio(g.Ratio), cmpP(g.P), cmpP(g.PHolm), g.Decision)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	// Undecided groups share their reason (the same sample sizes): say
	// each reason once, with its count.
	var reasons []string
	count := map[string]int{}
	for _, g := range r.Rows {
		if g.Decision == analysis.Undecided {
			if count[g.Reason] == 0 {
				reasons = append(reasons, g.Reason)
			}
			count[g.Reason]++
		}
	}
	for _, rs := range reasons {
		fmt.Fprintln(w, WrapLine(fmt.Sprintf("undecided (%d groups): %s", count[rs], rs), 2))
	}
	if _, err := fmt.Fprintln(w, "verdict: "+r.Summary()); err != nil {
		return err
	}
	for _, d := range r.Differences {
		if _, err := fmt.Fprintln(w, WrapLine("  what else differed: "+d, 4)); err != nil {
			return err
		}
	}
	return nil
}

// Groups is "1 group" or "N groups", for sentences about n analysis groups.
func Groups(n int) string {
	if n == 1 {
		return "1 group"
	}
	return strconv.Itoa(n) + " groups"
}
