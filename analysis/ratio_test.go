package analysis

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

// TestMedianRatioCIConfidence pins the confidence MedianRatioCI states for
// the sample sizes a comparison meets, computed by hand from the binomial
// distribution: [x(k), x(n+1−k)] covers the median with 1 − 2·P(B ≤ k−1),
// B ~ Binomial(n, 1/2); the sides combine as a product (independent) or
// by Bonferroni (paired).
func TestMedianRatioCIConfidence(t *testing.T) {
	widest := func(n int) float64 { return 1 - 2*math.Pow(0.5, float64(n)) }
	seq := func(n int, f float64) []float64 {
		x := make([]float64, n)
		for i := range x {
			x[i] = f * float64(i+1)
		}
		return x
	}
	for _, tc := range []struct {
		name     string
		na, nb   int
		paired   bool
		conf     float64
		warn     bool
		loA, hiA int // 1-based ranks of A's interval
		loB, hiB int
	}{
		// 6 per side: [min, max] is 96.875 % each, 93.85 % together.
		{"6+6", 6, 6, false, widest(6) * widest(6), true, 1, 6, 1, 6},
		// 7 per side: √0.95 = 0.9747 ≤ 1 − 2/128 = 0.984375 at [min, max].
		{"7+7", 7, 7, false, widest(7) * widest(7), false, 1, 7, 1, 7},
		// 10 per side: [x(2), x(9)] has 1 − 2·11/1024 = 0.978516 ≥ 0.9747.
		{"10+10", 10, 10, false, math.Pow(1-2*11.0/1024, 2), false, 2, 9, 2, 9},
		// 6+9: A's [min, max] (0.96875) leaves 0.95/0.96875 = 0.98065 to B,
		// which only [min, max] of 9 reaches (0.99609; [x(2), x(8)] is 0.9609).
		{"6+9", 6, 9, false, widest(6) * widest(9), false, 1, 6, 1, 9},
		// Paired: (1+0.95)/2 = 0.975 per side.
		{"paired 7", 7, 7, true, 2*widest(7) - 1, false, 1, 7, 1, 7},
		{"paired 6", 6, 6, true, 2*widest(6) - 1, true, 1, 6, 1, 6},
	} {
		a, b := seq(tc.na, 1), seq(tc.nb, 3)
		iv := MedianRatioCI(a, b, tc.paired, 0.95)
		if math.Abs(iv.Confidence-tc.conf) > 1e-12 {
			t.Errorf("%s: confidence %.6f, want %.6f", tc.name, iv.Confidence, tc.conf)
		}
		if (iv.Warning != "") != tc.warn {
			t.Errorf("%s: warning %q, want one: %v", tc.name, iv.Warning, tc.warn)
		}
		wantLo, wantHi := b[tc.loB-1]/a[tc.hiA-1], b[tc.hiB-1]/a[tc.loA-1]
		if iv.Lo != wantLo || iv.Hi != wantHi {
			t.Errorf("%s: [%g, %g], want [%g, %g]", tc.name, iv.Lo, iv.Hi, wantLo, wantHi)
		}
		if r := Median(b) / Median(a); r < iv.Lo || r > iv.Hi {
			t.Errorf("%s: median ratio %g outside [%g, %g]", tc.name, r, iv.Lo, iv.Hi)
		}
	}
	if iv := MedianRatioCI([]float64{1, 2}, []float64{1, 0}, false, 0.95); iv.Valid() || !strings.Contains(iv.Warning, "≤ 0") {
		t.Errorf("a zero value: %+v, want no interval and a warning", iv)
	}
	if iv := MedianRatioCI([]float64{1}, []float64{1, 2}, false, 0.95); iv.Valid() {
		t.Errorf("one value on a side: %+v, want no interval", iv)
	}
}

// TestMedianRatioCICoverage draws independent samples from the skewed
// and the bimodal distributions of the stopping rule's tests (their
// medians known from their CDFs) and checks that the interval covers the
// true ratio of medians at least as often as its stated Confidence, less
// 4 binomial standard errors at R replications: a correct interval fails
// with probability below 1e-4 per case (normal approximation). It also
// checks that the median ratio lies inside every interval.
func TestMedianRatioCICoverage(t *testing.T) {
	const R = 2000
	for _, tc := range []struct {
		da, db int // indices into stopDists
		na, nb int
		scale  float64 // B = scale · draw of db
	}{
		{1, 1, 8, 8, 1.2},   // lognormal, B 20 % slower
		{3, 3, 10, 10, 1.0}, // bimodal, no difference
		{3, 1, 7, 12, 0.9},  // bimodal A against lognormal B
		{4, 3, 6, 6, 1.0},   // trough against bimodal: the short-of-level case
	} {
		A, B := stopDists[tc.da], stopDists[tc.db]
		truth := tc.scale * B.quantileOf(0.5) / A.quantileOf(0.5)
		seed := uint64(1000*tc.da + 100*tc.db + tc.na)
		rng := rand.New(rand.NewPCG(seed, 0x7a71))
		hits := 0
		var conf float64
		a, b := make([]float64, tc.na), make([]float64, tc.nb)
		for range R {
			for i := range a {
				a[i] = A.draw(rng)
			}
			for i := range b {
				b[i] = tc.scale * B.draw(rng)
			}
			iv := MedianRatioCI(a, b, false, 0.95)
			conf = iv.Confidence
			if iv.Lo <= truth && truth <= iv.Hi {
				hits++
			}
			if r := Median(b) / Median(a); r < iv.Lo || r > iv.Hi {
				t.Fatalf("%s/%s: median ratio %g outside [%g, %g]", A.name, B.name, r, iv.Lo, iv.Hi)
			}
		}
		cov := float64(hits) / R
		floor := conf - 4*math.Sqrt(conf*(1-conf)/R)
		t.Logf("%s %d vs %s %d (seed %d): coverage %.4f, stated confidence %.4f", A.name, tc.na, B.name, tc.nb, seed, cov, conf)
		if cov < floor {
			t.Errorf("%s vs %s: coverage %.4f below %.4f (stated confidence %.4f − 4 SE)", A.name, B.name, cov, floor, conf)
		}
	}
}
