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

// TestComparisonObsRowsWithinWidth: when a side had one mpirun in some
// groups (an mpirun lost to load), those rows test observations and their
// sig reads "(obs)"; the table adds no test column for them, and the note
// explaining "(obs)" wraps, so that every line stays within 120 columns
// with the tutorial's longest group name and widest intervals. A second
// test besides the observations' one still gets its column.
func TestComparisonObsRowsWithinWidth(t *testing.T) {
	row := func(size int, test string) analysis.Comparison {
		return analysis.Comparison{Key: analysis.GroupKey{Call: "MPI_Allreduce", MsizeBytes: size, Np: 2, Datatype: "float64", Labels: "lib=x"},
			MedianA: 1.09e-6, MedianB: 1.12e-6, Ratio: 1.03, RatioShift: 1.08,
			MedianRatioCI: analysis.Interval{Lo: 0.709, Hi: 7.96, Level: 0.95, Confidence: 0.95},
			RatioCI:       analysis.Interval{Lo: 0.748, Hi: 4.06, Level: 0.95, Confidence: 0.95},
			Test:          test, Result: analysis.TestResult{P: 0.776}, NA: 5, NB: 5}
	}
	for _, c := range []struct {
		tests  []string
		column bool
	}{
		{[]string{"wilcoxon-mpirun-medians", testObservations}, false},
		{[]string{"wilcoxon-mpirun-medians", analysis.TestPairedMpirunMedians}, true},
	} {
		rows := []analysis.Comparison{row(8, c.tests[0]), row(32768, c.tests[1])}
		var b bytes.Buffer
		if err := WriteComparisonText(&b, rows, nil, analysis.Options{Level: 0.95, Alpha: 0.05}); err != nil {
			t.Fatal(err)
		}
		out := b.String()
		header := strings.Split(out, "\n")[1]
		if got := strings.HasSuffix(strings.TrimSpace(header), "test"); got != c.column {
			t.Errorf("tests %v: a test column %v, want %v:\n%s", c.tests, got, c.column, out)
		}
		for _, l := range strings.Split(out, "\n") {
			if n := utf8.RuneCountInString(l); n > 120 {
				t.Errorf("tests %v: a line of %d characters: %q", c.tests, n, l)
			}
		}
	}
}
