package main

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/reprobench/reprobench/analysis"
)

// cmpTestObs is Comparison.Test when a side had one mpirun.
const cmpTestObs = "wilcoxon-observations"

// cmpObsNote explains the (obs) mark of the text table.
const cmpObsNote = "(obs): a side had one mpirun; p compares observations of that mpirun, not mpiruns, and earns no stars (the mpirun is the unit: Hunold, Carpen-Amarie & Träff 2014)"

// Exit statuses of compare --fail-if-slower (0: no regression).
const (
	exitRegression = 3
	exitUndecided  = 4
)

// cmpStars is the stars of a row for CSV and JSON: none for a row that
// compared single observations of one mpirun.
func cmpStars(c analysis.Comparison) string {
	if c.Test == cmpTestObs {
		return ""
	}
	return analysis.Stars(c.Result.P)
}

// cmpParsePct parses --fail-if-slower: a percentage, "5" or "5%".
func cmpParsePct(s string) (float64, error) {
	v, err := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(s), "%"), 64)
	if err != nil || !(v >= 0) || math.IsInf(v, 0) {
		return 0, fmt.Errorf("%w: --fail-if-slower %q: want a percentage ≥ 0, e.g. 5 or 5%%", errUsage, s)
	}
	return v / 100, nil
}

// cmpGate runs the regression gate when --fail-if-slower is set (nil
// otherwise) and checks that --junit and --verdict come with it.
func cmpGate(pct, junit, verdict string, rows []analysis.Comparison, alpha float64) (*analysis.GateReport, error) {
	if pct == "" {
		if junit != "" || verdict != "" {
			return nil, fmt.Errorf("%w: --junit and --verdict need --fail-if-slower", errUsage)
		}
		return nil, nil
	}
	thr, err := cmpParsePct(pct)
	if err != nil {
		return nil, err
	}
	r := analysis.Gate(rows, analysis.GateOptions{Threshold: thr, Alpha: alpha})
	return &r, nil
}

// cmpWriteGateText prints the gate's decisions below the comparison table.
func cmpWriteGateText(w io.Writer, r analysis.GateReport) error {
	fmt.Fprintf(w, "\ngate: B slower than A by more than %g%%? one-sided rank-sum on per-mpirun medians, Holm over %d groups, alpha %g\n",
		100*r.Threshold, r.Family, r.Alpha)
	// Group names without the labels every group shares, as in the table.
	keys := make([]analysis.GroupKey, len(r.Rows))
	for i, g := range r.Rows {
		keys[i] = g.Key
	}
	common := commonLabels(keys)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "group\tmpiruns\tB/A\tp\tp_holm\tdecision")
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
		fmt.Fprintln(w, wrapLine(fmt.Sprintf("undecided (%d groups): %s", count[rs], rs), 2))
	}
	_, err := fmt.Fprintln(w, "verdict: "+r.Summary())
	return err
}

// cmpGateFinish writes the verdict files and returns the gate's exit
// status as an error (nil for no regression or no gate).
func cmpGateFinish(r *analysis.GateReport, junit, verdict string) error {
	if r == nil {
		return nil
	}
	if junit != "" {
		if err := cmpWriteFile(junit, r.WriteJUnit); err != nil {
			return err
		}
	}
	if verdict != "" {
		err := cmpWriteFile(verdict, func(w io.Writer) error {
			enc := json.NewEncoder(w)
			enc.SetIndent("", "  ")
			return enc.Encode(r)
		})
		if err != nil {
			return err
		}
	}
	switch r.Verdict {
	case analysis.Regression:
		return &exitStatusError{status: exitRegression, msg: "compare: " + r.Summary()}
	case analysis.Undecided:
		return &exitStatusError{status: exitUndecided, msg: "compare: " + r.Summary()}
	}
	return nil
}

// cmpWriteFile writes a file through write, reporting close errors.
func cmpWriteFile(path string, write func(io.Writer) error) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := write(f); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
