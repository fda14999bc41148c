package report

import (
	"strings"
	"testing"
)

// TestCountsWrongResults: the overview line names the rows the result
// check found wrong, and says nothing of them when there are none.
func TestCountsWrongResults(t *testing.T) {
	o := Overview{Mpiruns: 1, RunIDs: []string{"r"}, Rows: 10, Valid: 8, Invalid: 2, WrongResults: 2}
	if s := counts(o); !strings.Contains(s, "WRONG RESULTS: 2") {
		t.Errorf("counts = %q, want WRONG RESULTS: 2", s)
	}
	o.WrongResults = 0
	if s := counts(o); strings.Contains(s, "WRONG") {
		t.Errorf("counts = %q, want no wrong results", s)
	}
}
