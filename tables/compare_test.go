package tables

import (
	"bytes"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/reprobench/reprobench/analysis"
)

// TestComparisonConfidenceBelowTable: when one row's intervals reach
// another confidence than the others' (an mpirun lost to load leaves that
// group smaller), the headers name the most common confidence, that row
// says nothing more within the table, and a line below it names the row
// and its confidences. Every line stays within 120 columns.
func TestComparisonConfidenceBelowTable(t *testing.T) {
	iv := func(conf float64) analysis.Interval {
		return analysis.Interval{Lo: 0.98, Hi: 1.03, Level: 0.95, Confidence: conf}
	}
	row := func(call string, mconf, hconf float64) analysis.Comparison {
		return analysis.Comparison{Key: analysis.GroupKey{Call: call, MsizeBytes: 32768, Np: 2, Datatype: "byte", Labels: "lib=x"},
			MedianA: 1.234e-5, MedianB: 1.267e-5, Ratio: 1.0267, RatioShift: 1.021,
			MedianRatioCI: iv(mconf), RatioCI: iv(hconf), Test: "wilcoxon-mpirun-medians",
			Result: analysis.TestResult{P: 0.31}, NA: 5, NB: 5}
	}
	rows := []analysis.Comparison{row("MPI_Bcast", 0.9375, 0.959), row("MPI_Allreduce", 0.9375, 0.952), row("MPI_Reduce", 0.484, 0.905)}
	var b bytes.Buffer
	if err := WriteComparisonText(&b, rows, nil, analysis.Options{Level: 0.95, Alpha: 0.05}); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{"median B/A [93.8% CI]", "HL B/A [95% CI]", "intervals of another confidence than their column's: ",
		"MPI_Reduce/msize=32768", "median B/A 48.4%", "HL B/A 90.5%"} {
		if !strings.Contains(out, want) {
			t.Errorf("no %q in\n%s", want, out)
		}
	}
	for _, l := range strings.Split(out, "\n") {
		if strings.Contains(l, "%)") {
			t.Errorf("a confidence in a row of the table: %q", l)
		}
		if n := utf8.RuneCountInString(l); n > 120 {
			t.Errorf("a line of %d characters: %q", n, l)
		}
	}
}
