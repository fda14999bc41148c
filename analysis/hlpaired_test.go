package analysis

import (
	"encoding/csv"
	"math"
	"os"
	"strconv"
	"testing"
)

// TestHodgesLehmannPairedAgainstR pins the paired Hodges-Lehmann shift and
// the signed-rank p-value to R 4.2: testdata/hlpaired.R wrote
// testdata/hlpaired.csv. Case b has tied differences, where R finds its
// interval by root finding and this package uses order statistics: only its
// p-value is compared.
func TestHodgesLehmannPairedAgainstR(t *testing.T) {
	data := map[string][2][]float64{
		"a": {{1.83, 0.50, 1.62, 2.48, 1.68, 1.88, 1.55, 3.06, 1.30}, {0.878, 0.647, 0.598, 2.05, 1.06, 1.29, 1.06, 3.14, 1.29}},
		"b": {{10.2, 9.8, 11.5, 10.9, 9.1, 12.3, 10.05, 11.1, 9.55, 10.7, 12.9, 9.95}, {9.7, 10.1, 10.2, 10.0, 9.4, 11.0, 9.9, 10.3, 9.8, 10.35, 11.4, 10.15}},
		"c": {{3.1, 2.2, 4.7, 1.9, 3.3, 2.8}, {2.0, 2.5, 3.1, 2.6, 2.35, 2.45}},
	}
	f, err := os.Open("testdata/hlpaired.csv")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	close := func(got, want float64) bool {
		if math.IsInf(want, 0) {
			return got == want
		}
		return math.Abs(got-want) <= 1e-9*math.Max(1, math.Abs(want))
	}
	for _, r := range recs[1:] {
		d := data[r[0]]
		alt, err := ParseAlternative(r[1])
		if err != nil {
			t.Fatal(err)
		}
		var v [4]float64
		for i := range v {
			if v[i], err = strconv.ParseFloat(r[3+i], 64); err != nil {
				t.Fatal(err)
			}
		}
		level, _ := strconv.ParseFloat(r[2], 64)
		p := WilcoxonSignedRank(d[0], d[1], alt).P
		if !close(p, v[3]) && math.Abs(p-v[3]) > 1e-12 {
			t.Errorf("%v: p = %v, R %v", r, p, v[3])
		}
		if r[0] == "b" {
			continue
		}
		sh := HodgesLehmannPaired(d[0], d[1], alt, level)
		if !close(sh.Estimate, v[0]) || !close(sh.Lo, v[1]) || !close(sh.Hi, v[2]) {
			t.Errorf("%v: HL = %v [%v, %v], R %v [%v, %v]", r, sh.Estimate, sh.Lo, sh.Hi, v[0], v[1], v[2])
		}
		if !(sh.Confidence >= level) || sh.Method != "Hodges-Lehmann paired (exact)" {
			t.Errorf("%v: confidence %v, method %q", r, sh.Confidence, sh.Method)
		}
	}
}

func TestHodgesLehmannPairedDegenerate(t *testing.T) {
	if s := HodgesLehmannPaired([]float64{1, 2}, []float64{1, 2}, TwoSided, 0.95); !math.IsNaN(s.Estimate) || s.Warning == "" {
		t.Errorf("all-zero differences: %+v", s)
	}
	if s := HodgesLehmannPaired([]float64{1}, []float64{1, 2}, TwoSided, 0.95); !math.IsNaN(s.Estimate) || s.Warning == "" {
		t.Errorf("unequal lengths: %+v", s)
	}
	// 60 pairs: the normal approximation; the interval contains the estimate.
	x, y := make([]float64, 60), make([]float64, 60)
	for i := range x {
		x[i], y[i] = float64(i)+0.5+0.01*float64(i%7), float64(i)
	}
	s := HodgesLehmannPaired(x, y, TwoSided, 0.95)
	if !(s.Lo <= s.Estimate && s.Estimate <= s.Hi) || s.Method == "Hodges-Lehmann paired (exact)" {
		t.Errorf("n = 60: %+v", s)
	}
}
