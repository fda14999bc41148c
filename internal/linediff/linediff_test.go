package linediff_test

import (
	"fmt"
	"testing"

	"github.com/reprobench/reprobench/internal/linediff"
)

// A golden file and an output that differ in two lines: the first is
// shown, the rest is elided.
func ExampleLines() {
	fmt.Print(linediff.Lines("a\nb\nc\n", "a\nB\nC\n", 1))
	// Output:
	// line 2:
	// - b
	// + B
	// …
}

// TestLines: equal texts give "", a missing line reads as empty, and max
// bounds the lines shown.
func TestLines(t *testing.T) {
	for _, c := range []struct {
		want, have string
		max        int
		out        string
	}{
		{"a\nb", "a\nb", 3, ""},
		{"a\nb", "a", 3, "line 2:\n- b\n+ \n"},
		{"a", "x\ny", 3, "line 1:\n- a\n+ x\nline 2:\n- \n+ y\n"},
		{"a\nb\nc", "x\ny\nz", 2, "line 1:\n- a\n+ x\nline 2:\n- b\n+ y\n…\n"},
		{"a\nb", "x\ny", 0, "line 1:\n- a\n+ x\n…\n"},
	} {
		if got := linediff.Lines(c.want, c.have, c.max); got != c.out {
			t.Errorf("Lines(%q, %q, %d) = %q, want %q", c.want, c.have, c.max, got, c.out)
		}
	}
}
