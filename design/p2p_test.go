package design

import (
	"bytes"
	"strings"
	"testing"

	"github.com/reprobench/reprobench/factor"
)

// TestP2PFactors: bw_window and rma_sync are factors like any other: they
// multiply the combinations, survive Write and Read, and are refused when
// out of the vocabulary; a design without them keeps its old columns.
func TestP2PFactors(t *testing.T) {
	p := Plan{Mpiruns: 1, Seed: 3, Factors: Factors{Calls: []string{"bw", "MPI_Put"}}}
	p.Factors.Levels[factor.BWWindow] = []string{"16", "64"}
	p.Factors.Levels[factor.RMASync] = []string{"fence", "lock"}
	d, err := Generate(p)
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Experiments) != 8 {
		t.Fatalf("%d experiments, want 2 calls × 2 windows × 2 syncs", len(d.Experiments))
	}
	var b bytes.Buffer
	if err := Write(&b, d); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), ",bw_window,rma_sync\n") {
		t.Fatalf("header lacks the p2p columns:\n%s", b.String())
	}
	voc := Vocabulary{}
	back, err := Read(strings.NewReader(b.String()), "p2p.csv", voc)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for i, e := range back.Experiments {
		if e.Factors != d.Experiments[i].Factors {
			t.Errorf("row %d: read %v, wrote %v", i, e.Factors, d.Experiments[i].Factors)
		}
		seen[e.Factors.Cell(factor.RMASync)] = true
	}
	if !seen["fence"] || !seen["lock"] {
		t.Errorf("levels read: %v", seen)
	}
	bad := strings.Replace(b.String(), ",fence\n", ",sometimes\n", 1)
	if _, err := Read(strings.NewReader(bad), "bad.csv", voc); err == nil || !strings.Contains(err.Error(), "rma_sync") {
		t.Errorf("an unknown rma_sync was accepted: %v", err)
	}
	bad = strings.Replace(b.String(), ",16,", ",0,", 1)
	if _, err := Read(strings.NewReader(bad), "bad.csv", voc); err == nil {
		t.Errorf("bw_window 0 was accepted")
	}
	b.Reset()
	plain, _ := Generate(Plan{Mpiruns: 1, Factors: Factors{Calls: []string{"MPI_Bcast"}}})
	if err := Write(&b, plain); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(b.String(), "bw_window") {
		t.Errorf("a design without p2p factors got their columns:\n%s", b.String())
	}
}
