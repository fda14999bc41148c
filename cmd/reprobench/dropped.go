package main

import (
	"errors"
	"fmt"
	"io"

	"github.com/reprobench/reprobench/analysis"
)

// What the analysis commands did not use of their input, said on stderr:
// compare and plot name the invalid and NaN rows they leave out (analyze
// shows them in its invalid and bad columns), so nothing is dropped
// silently.

// anReadError adds the command-line remedy to a duplicate-observation error.
func anReadError(err error) error {
	var de *analysis.DuplicateError
	if errors.As(err, &de) {
		return fmt.Errorf("%w; pass --keep-duplicates to count both copies", err)
	}
	return err
}

// reportDuplicates says how many observations were read twice and kept
// (--keep-duplicates). set names the data set ("A", "B" or "").
func reportDuplicates(w io.Writer, cmd, set string, d *analysis.Dataset) {
	if d.Duplicates > 0 {
		fmt.Fprintf(w, "%s: %s%d observations were read more than once and are counted each time (--keep-duplicates)\n", cmd, setPrefix(set), d.Duplicates)
	}
}

func setPrefix(set string) string {
	if set == "" {
		return ""
	}
	return set + ": "
}

// reportDropped says what a command leaves out of the groups of d that use
// accepts (nil: every group): observations whose errorcode is not 0
// (invalid) or whose runtime_s is NaN, infinite or negative (bad). One
// group is named; several are summed up in one line, with analyze as the
// place for the per-group counts. It also reports kept duplicates, and
// returns the number of observations left out.
func reportDropped(w io.Writer, cmd, set string, d *analysis.Dataset, use func(analysis.GroupKey) bool) int {
	reportDuplicates(w, cmd, set, d)
	var invalid, bad, n, groups, all int
	var one analysis.GroupKey
	for _, g := range d.Groups {
		if use != nil && !use(g.Key) {
			continue
		}
		all++
		n += len(g.Runtimes) + g.Invalid + g.Bad
		if g.Invalid+g.Bad > 0 {
			invalid, bad = invalid+g.Invalid, bad+g.Bad
			groups++
			one = g.Key
		}
	}
	switch {
	case groups == 0:
	case all == 1:
		fmt.Fprintf(w, "%s: %s%s: left out %s of %d observations\n", cmd, setPrefix(set), one, droppedWhat(invalid, bad), n)
	default:
		fmt.Fprintf(w, "%s: %sleft out %s of %d observations, in %d of %d groups (per group: reprobench analyze)\n",
			cmd, setPrefix(set), droppedWhat(invalid, bad), n, groups, all)
	}
	return invalid + bad
}

func droppedWhat(invalid, bad int) string {
	var s string
	if invalid > 0 {
		s = fmt.Sprintf("%d invalid (errorcode ≠ 0)", invalid)
	}
	if bad > 0 {
		if s != "" {
			s += " and "
		}
		s += fmt.Sprintf("%d bad (runtime NaN, ±Inf or < 0)", bad)
	}
	return s
}
