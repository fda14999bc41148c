package analysis

import (
	"math"
	"testing"
)

// TestNilArguments: an exported function given a nil data set, group or
// reader returns an error where it can, and an empty result otherwise; it
// never panics.
func TestNilArguments(t *testing.T) {
	if _, err := CompareBy(nil, "lib", Options{}); err == nil {
		t.Error("CompareBy(nil) returned no error")
	}
	if _, err := ReadRaw(nil, "x.csv"); err == nil {
		t.Error("ReadRaw(nil) returned no error")
	}
	if got := Analyze(nil, Options{}); got != nil {
		t.Errorf("Analyze(nil) = %v", got)
	}
	if s := AnalyzeGroup(nil, Options{}); s.N != 0 {
		t.Errorf("AnalyzeGroup(nil) = %+v", s)
	}
	if rows, a, b := Compare(nil, nil, Options{}); rows != nil || a != nil || b != nil {
		t.Errorf("Compare(nil, nil) = %v %v %v", rows, a, b)
	}
	if got := SideLabels(nil, NewDataset()); got != nil {
		t.Errorf("SideLabels(nil) = %v", got)
	}
	if got := Filtered(nil, 1.5); got != nil {
		t.Errorf("Filtered(nil) = %v", got)
	}
	if got := PerMpirun(nil, 1.5); len(got) != 0 {
		t.Errorf("PerMpirun(nil) = %v", got)
	}
	if got := PoolRanks(nil, 0.05); got != nil {
		t.Errorf("PoolRanks(nil) = %v", got)
	}
	if ci := MedianCI(nil, 0.95); !math.IsNaN(ci.Lo) {
		t.Errorf("MedianCI(nil) = %+v", ci)
	}
}

// TestHodgesLehmannInfinite: an infinite value gives no shift and a
// warning, and returns (the interval's search once never ended on it).
func TestHodgesLehmannInfinite(t *testing.T) {
	x, y := []float64{1, 2, 3, math.Inf(1)}, []float64{0, 1, 2, 3}
	for name, sh := range map[string]Shift{
		"unpaired": HodgesLehmann(x, y, TwoSided, 0.95),
		"paired":   HodgesLehmannPaired(x, y, TwoSided, 0.95),
		"log 0":    HodgesLehmann([]float64{math.Log(0), 1, 2}, y, TwoSided, 0.95),
	} {
		if !math.IsNaN(sh.Estimate) || sh.Warning == "" {
			t.Errorf("%s: %+v, want no estimate and a warning", name, sh)
		}
	}
}
