package main

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/reprobench/reprobench/analysis"
	"github.com/reprobench/reprobench/analysis/synth"
)

var rowRE = regexp.MustCompile(`(?m)^\s*(MPI_\S+)\s+([\d.]+)\s+([\d.]+)\s+(\S+)\s+([\d.]+)\s+(\**)\s*(\d+)\+(\d+)$`)

// TestSynthetic: with B 5% slower everywhere, 10 mpiruns per side find it in
// every group; with no difference, none is significant (seeds fixed, so the
// outcome is too).
func TestSynthetic(t *testing.T) {
	for _, tc := range []struct {
		effect      string
		significant int
	}{{"1.05", 6}, {"1", 0}} {
		var out bytes.Buffer
		if err := run(&out, []string{"-synthetic", "-seed", "1", "-effect", tc.effect}); err != nil {
			t.Fatal(err)
		}
		t.Logf("\n%s", out.String())
		rows := rowRE.FindAllStringSubmatch(out.String(), -1)
		if len(rows) != 6 {
			t.Fatalf("effect %s: %d table rows, want 6 (2 calls × 3 sizes)", tc.effect, len(rows))
		}
		sig := 0
		for _, r := range rows {
			if r[7] != "10" || r[8] != "10" {
				t.Errorf("%s: mpiruns %s+%s, want 10+10", r[1], r[7], r[8])
			}
			if (r[4] == "~") != (r[6] == "") {
				t.Errorf("%s: difference %q but stars %q", r[1], r[4], r[6])
			}
			if r[6] != "" {
				sig++
			}
		}
		if sig != tc.significant {
			t.Errorf("effect %s: %d significant rows, want %d", tc.effect, sig, tc.significant)
		}
	}
}

// TestMatchesCompareSummaries: the step-by-step comparison gives the same
// p-values and medians as the library's one-call comparison.
func TestMatchesCompareSummaries(t *testing.T) {
	a, b := analysis.NewDataset(), analysis.NewDataset()
	if err := generate(a, "libA", 1, 7); err != nil {
		t.Fatal(err)
	}
	if err := generate(b, "libB", 1.02, 8); err != nil {
		t.Fatal(err)
	}
	opt := analysis.DefaultOptions
	rows := CompareCampaigns(a, b, "mpi_lib", opt)
	if len(rows) != 6 {
		t.Fatalf("%d rows, want 6", len(rows))
	}
	for _, r := range rows {
		want := analysis.CompareSummaries(r.A, r.B, nil, nil, opt)
		if want.Test != "wilcoxon-mpirun-medians" || want.Result.P != r.Test.P ||
			want.MedianA != r.MedianA || want.MedianB != r.MedianB {
			t.Errorf("%s: p=%g medians %g %g; CompareSummaries (%s): p=%g medians %g %g",
				r.Key, r.Test.P, r.MedianA, r.MedianB, want.Test, want.Result.P, want.MedianA, want.MedianB)
		}
	}
}

// TestFiles runs the command on raw CSV files, several per campaign, as
// reprobench launch writes them, and names the columns after the label.
func TestFiles(t *testing.T) {
	dir := t.TempDir()
	var as, bs []string
	for i, lib := range []string{"openmpi", "mpich"} {
		for m := range 3 { // one file per mpirun
			name := filepath.Join(dir, lib+"-mpirun"+string(rune('0'+m))+".csv")
			var buf bytes.Buffer
			err := synth.Write(&buf, synth.Config{RunID: lib, Mpiruns: 1, Reps: 50, Calls: []string{"MPI_Bcast"},
				Msizes: []int{8}, Np: 2, Label: "mpi_lib", LabelValues: []string{lib},
				Factors: []float64{1 + float64(i)}, NoiseSD: 0.05, Seed: uint64(10*i + m)})
			if err != nil {
				t.Fatal(err)
			}
			// synth numbers every campaign's mpirun 0; make them distinct.
			text := strings.ReplaceAll(buf.String(), lib+",0,", lib+","+string(rune('0'+m))+",")
			if err := os.WriteFile(name, []byte(text), 0o644); err != nil {
				t.Fatal(err)
			}
			if i == 0 {
				as = append(as, name)
			} else {
				bs = append(bs, name)
			}
		}
	}
	var out bytes.Buffer
	if err := run(&out, append(append(as, "--"), bs...)); err != nil {
		t.Fatal(err)
	}
	t.Logf("\n%s", out.String())
	if !strings.Contains(out.String(), "openmpi µs") || !strings.Contains(out.String(), "mpich µs") {
		t.Errorf("columns not named after mpi_lib:\n%s", out.String())
	}
	rows := rowRE.FindAllStringSubmatch(out.String(), -1)
	// B is twice as slow; 3 mpiruns per side is the fewest for which the
	// exact Wilcoxon test can reach p ≤ 0.1 (p = 0.1 exactly): not below 0.05.
	if len(rows) != 1 || rows[0][5] != "0.1000" || rows[0][7] != "3" {
		t.Errorf("want one row with p = 0.1000 and 3+3 mpiruns:\n%s", out.String())
	}
	if err := run(&out, as); err == nil {
		t.Error("no -- accepted")
	}
}
