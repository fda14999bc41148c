package main

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"strings"

	"github.com/reprobench/reprobench/analysis"
)

// Exit statuses of compare --fail-if-slower (0: no regression).
const (
	exitRegression = 3
	exitUndecided  = 4
)

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
