package main

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"
)

// TestAnalyzePercentiles: a.csv has 6 mpiruns per group, enough for a 95%
// interval over mpiruns; one mpirun is pooled and marked.
func TestAnalyzePercentiles(t *testing.T) {
	var out, errb bytes.Buffer
	if err := run(&out, &errb, []string{"analyze", "--percentiles", "50,99.9", anA}); err != nil {
		t.Fatal(err)
	}
	text := out.String()
	if !strings.Contains(text, "P50") || !strings.Contains(text, "P99.9") || strings.Contains(text, "(pooled)") {
		t.Errorf("text: want P50 and P99.9 over mpiruns, nothing pooled:\n%s", text)
	}
	out.Reset()
	if err := run(&out, &errb, []string{"analyze", "--percentiles", "50,99.9", "--format", "csv", anA}); err != nil {
		t.Fatal(err)
	}
	recs, err := csv.NewReader(&out).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []string{"pctl50_s", "pctl99.9_ci_hi_s", "pctl99.9_of"} {
		if !slices.Contains(recs[0], c) {
			t.Errorf("CSV header lacks %s: %v", c, recs[0])
		}
	}
	of := slices.Index(recs[0], "pctl50_of")
	if recs[1][of] != "mpirun-percentiles" {
		t.Errorf("pctl50_of = %q, want mpirun-percentiles", recs[1][of])
	}
	out.Reset()
	if err := run(&out, &errb, []string{"analyze", "--percentiles", "99", "--format", "json", anA}); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Groups []struct {
			Percentiles []struct {
				Percent float64   `json:"percent"`
				Of      string    `json:"of"`
				CI      []float64 `json:"ci_s"`
			} `json:"percentiles"`
		} `json:"groups"`
	}
	if err := json.Unmarshal(out.Bytes(), &doc); err != nil || len(doc.Groups) == 0 || len(doc.Groups[0].Percentiles) != 1 ||
		doc.Groups[0].Percentiles[0].Percent != 99 || len(doc.Groups[0].Percentiles[0].CI) != 2 {
		t.Errorf("JSON percentiles: %v %+v", err, doc)
	}
	if err := run(&out, &errb, []string{"analyze", "--percentiles", "100", anA}); !errors.Is(err, errUsage) {
		t.Errorf("--percentiles 100: %v, want a usage error", err)
	}
}
