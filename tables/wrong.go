package tables

import (
	"fmt"
	"io"
	"strings"

	"github.com/reprobench/reprobench/analysis"
)

// writeWrongResults says, below the analyze table, how many rows the
// result check (run --check) found wrong and in which groups; nothing
// when none.
func writeWrongResults(w io.Writer, sums []analysis.GroupSummary) {
	total := 0
	var groups []string
	for _, s := range sums {
		if s.WrongResults > 0 {
			total += s.WrongResults
			groups = append(groups, fmt.Sprintf("%s %d", s.Key, s.WrongResults))
		}
	}
	if total == 0 {
		return
	}
	fmt.Fprintln(w, WrapLine(fmt.Sprintf("WRONG RESULTS: %d rows whose result the check (run --check) found wrong, counted in invalid: %s",
		total, strings.Join(groups, "; ")), 2))
}
