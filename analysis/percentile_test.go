package analysis

import (
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

func TestMpirunPercentiles(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	var runs [][]float64
	for m := range 8 {
		r := make([]float64, 500)
		for i := range r {
			r[i] = 1e-6 * (1 + 0.01*float64(m)) * (1 + rng.ExpFloat64()*0.1)
		}
		slices.Sort(r)
		runs = append(runs, r)
	}
	ps := MpirunPercentiles(runs, []float64{50, 99}, 0.95, false)
	for _, s := range ps {
		if s.Of != percentileOfMpiruns || s.NMpiruns != 8 || len(s.MpirunValues) != 8 {
			t.Fatalf("P%g: of %q, %d mpiruns, want mpirun-percentiles over 8", s.Percent, s.Of, s.NMpiruns)
		}
		for i, v := range s.MpirunValues {
			if w := Quantile(s.Percent/100, runs[i]); v != w {
				t.Errorf("P%g mpirun %d: %g, want %g", s.Percent, i, v, w)
			}
		}
		sorted := slices.Sorted(slices.Values(s.MpirunValues))
		if s.Value != Median(sorted) {
			t.Errorf("P%g: value %g, want the median of the per-mpirun values %g", s.Percent, s.Value, Median(sorted))
		}
		// 8 values at 95 %: ranks 1 and 8 (binomial: 1 − 2·0.5^8 = 0.992).
		if s.CI.Lo != sorted[0] || s.CI.Hi != sorted[7] || math.Abs(s.CI.Confidence-(1-2*math.Pow(0.5, 8))) > 1e-12 {
			t.Errorf("P%g: interval %+v, want [min, max] of 8 at 0.992", s.Percent, s.CI)
		}
	}
	// Three mpiruns: pooled, marked, and warned.
	pct := 99.9 // a variable: pct/100 rounds as at run time, not as a constant expression
	ps = MpirunPercentiles(runs[:3], []float64{pct}, 0.95, false)
	s := ps[0]
	if s.Of != PercentileOfPooled || s.Value != Quantile(pct/100, mergeSorted(runs[:3])) {
		t.Errorf("3 mpiruns: of %q value %g, want pooled", s.Of, s.Value)
	}
	if w := strings.Join(s.Warnings, "; "); !strings.Contains(w, "pooled") || !strings.Contains(w, "near its maximum") {
		t.Errorf("3 mpiruns, 500 observations each, P99.9: warnings %q", w)
	}
	// OSU's rule: the element of rank round(n·p) of each mpirun.
	for _, s := range MpirunPercentiles(runs, []float64{99}, 0.95, true) {
		for i, v := range s.MpirunValues {
			if w := runs[i][495-1]; v != w || s.Rule != "nearest-rank" {
				t.Errorf("nearest rank P99 of 500, mpirun %d: %g (%s), want rank 495, %g", i, v, s.Rule, w)
			}
		}
	}
	if _, err := ParsePercentiles("50,90,99,99.9"); err != nil {
		t.Error(err)
	}
	for _, bad := range []string{"", "100", "0", "x", "50,,-1"} {
		if _, err := ParsePercentiles(bad); err == nil {
			t.Errorf("ParsePercentiles(%q) accepted", bad)
		}
	}
}
