package main

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/reprobench/reprobench/analysis"
)

func TestCompareGolden(t *testing.T) {
	// b.csv: libA is 20% slower than in a.csv, libB the same (other seed).
	text := anGolden(t, "compare.txt", "compare", anA, "--", anB)
	lines := strings.Split(text, "\n")
	var sawSig, sawNS bool
	for _, l := range lines {
		if strings.Contains(l, "mpi_lib=libA") && strings.Contains(l, "**") && regexp.MustCompile(`\s1\.[12]\d* \[`).MatchString(l) {
			sawSig = true
		}
		if strings.Contains(l, "mpi_lib=libB") && strings.HasSuffix(strings.TrimSpace(l), " ~") {
			sawNS = true
		}
	}
	if !sawSig || !sawNS {
		t.Errorf("expected libA rows significant (**, the smallest p for 6+6 mpiruns is 0.002) with ratios 1.1-1.3, and libB rows ~:\n%s", text)
	}
	anGolden(t, "compare.csv", "compare", "--format", "csv", anA, "--", anB)
	anGolden(t, "compare_by.txt", "compare", "--by", "mpi_lib", "--alternative", "less", anA)
	anGolden(t, "compare_by.json", "compare", "--by", "mpi_lib", "--format", "json", anA)
}

func TestComparePaired(t *testing.T) {
	// a.csv ran libA and libB in the same 6 mpiruns.
	text := anGolden(t, "compare_by_paired.txt", "compare", "--by", "mpi_lib", "--paired", anA)
	if !strings.Contains(text, "test paired: Wilcoxon signed-rank") || strings.Contains(text, "not paired") {
		t.Errorf("--paired did not pair:\n%s", text)
	}
}

// TestComparePairedCannotPair: libA from campaign a and libB from campaign
// b ran in different mpiruns. --paired says so and fails; --paired=auto
// compares them unpaired and says that in the text and the JSON.
func TestComparePairedCannotPair(t *testing.T) {
	dir := t.TempDir()
	fa := anSplitByLabel(t, anA, filepath.Join(dir), "libA")
	sub := filepath.Join(dir, "b")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	fb := anSplitByLabel(t, anB, sub, "libB")
	var out, errb bytes.Buffer
	err := run(&out, &errb, []string{"compare", "--by", "mpi_lib", "--paired", fa, fb})
	if err == nil || errors.Is(err, errUsage) || !strings.Contains(err.Error(), "cannot be paired") || !strings.Contains(err.Error(), "--paired=auto") {
		t.Fatalf("--paired on unpairable data: err %v (want a non-usage error naming the problem), out:\n%s", err, out.String())
	}
	out.Reset()
	if err := run(&out, &errb, []string{"compare", "--by", "mpi_lib", "--paired=auto", fa, fb}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "not paired") || strings.Contains(out.String(), "test paired") {
		t.Errorf("--paired=auto output does not say the rows are not paired:\n%s", out.String())
	}
	out.Reset()
	if err := run(&out, &errb, []string{"compare", "--by", "mpi_lib", "--paired=auto", "--format", "json", fa, fb}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), analysis.NotPairedWarning) {
		t.Errorf("JSON warnings do not say the rows are not paired:\n%s", out.String())
	}
}

// TestCompareSideLabel: two campaigns that differ only in the label that
// names them (mpi_lib=libA in one, libB in the other) match group by
// group; the header says the label was left out; --ignore none restores
// matching on every label (and then nothing matches).
func TestCompareSideLabel(t *testing.T) {
	dir := t.TempDir()
	fa := anSplitByLabel(t, anA, dir, "libA")
	fb := anSplitByLabel(t, anB, dir, "libB")
	var out, errb bytes.Buffer
	if err := run(&out, &errb, []string{"compare", fa, "--", fb}); err != nil {
		t.Fatalf("%v\n%s", err, errb.String())
	}
	text := out.String()
	if !strings.Contains(text, "label mpi_lib names the sides") || !strings.Contains(text, "A: mpi_lib=libA   B: mpi_lib=libB") {
		t.Errorf("header does not name the side label:\n%s", text)
	}
	rows := 0
	for _, l := range strings.Split(text, "\n") {
		if strings.HasPrefix(l, "MPI_") {
			rows++
			if !regexp.MustCompile(`\d \[[0-9.]+, [0-9.]+\]`).MatchString(l) {
				t.Errorf("row without a ratio interval: %q", l)
			}
		}
	}
	// stderr says only what was left out, nothing unmatched.
	for _, l := range strings.Split(strings.TrimSpace(errb.String()), "\n") {
		if l != "" && !strings.HasPrefix(l, "compare: A: left out ") && !strings.HasPrefix(l, "compare: B: left out ") {
			t.Errorf("unexpected stderr line %q", l)
		}
	}
	if rows != 4 {
		t.Errorf("%d rows, want 4; stderr %q\n%s", rows, errb.String(), text)
	}
	out.Reset()
	errb.Reset()
	err := run(&out, &errb, []string{"compare", "--ignore", "none", fa, "--", fb})
	if err == nil || !strings.Contains(errb.String(), "only in A") {
		t.Errorf("--ignore none: err %v, stderr %q", err, errb.String())
	}
	// plot --kind compare matches the same way.
	png := filepath.Join(dir, "c.png")
	if err := run(&out, &errb, []string{"plot", "--kind", "compare", "-o", png, fa, "--", fb}); err != nil {
		t.Errorf("plot --kind compare: %v", err)
	}
}
