package main

import (
	"strings"
	"testing"
)

func TestCompareGolden(t *testing.T) {
	// b.csv: libA is 20% slower than in a.csv, libB the same (other seed).
	text := anGolden(t, "compare.txt", "compare", anA, "--", anB)
	lines := strings.Split(text, "\n")
	var sawSig, sawNS bool
	for _, l := range lines {
		if strings.Contains(l, "mpi_lib=libA") && strings.Contains(l, "**") && strings.Contains(l, "+") {
			sawSig = true
		}
		if strings.Contains(l, "mpi_lib=libB") && strings.Contains(l, " ~ ") {
			sawNS = true
		}
	}
	if !sawSig || !sawNS {
		t.Errorf("expected libA rows significant (**, the smallest p for 6+6 mpiruns is 0.002) and libB rows ~:\n%s", text)
	}
	anGolden(t, "compare.csv", "compare", "--format", "csv", anA, "--", anB)
	anGolden(t, "compare_by.txt", "compare", "--by", "mpi_lib", "--alternative", "less", anA)
	anGolden(t, "compare_by.json", "compare", "--by", "mpi_lib", "--format", "json", anA)
}

func TestComparePaired(t *testing.T) {
	// a.csv ran libA and libB in the same 6 mpiruns.
	text := anGolden(t, "compare_by_paired.txt", "compare", "--by", "mpi_lib", "--paired", anA)
	if !strings.Contains(text, "wilcoxon-signed-rank-paired-mpirun-medians") {
		t.Errorf("--paired did not pair:\n%s", text)
	}
}
