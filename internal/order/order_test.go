package order

import (
	"math"
	"slices"
	"testing"
)

func TestQuantile7AgainstR(t *testing.T) {
	// R 4.2.2: quantile(c(1, 2, 3, 4, 10), c(0, .25, .5, .9, 1)) (type 7)
	// gives 1, 2, 3, 7.6, 10; quantile(5, .3) gives 5.
	s := []float64{1, 2, 3, 4, 10}
	for _, c := range []struct{ p, want float64 }{{0, 1}, {0.25, 2}, {0.5, 3}, {0.9, 7.6}, {1, 10}} {
		if got := Quantile(c.p, s); math.Abs(got-c.want) > 1e-12 {
			t.Errorf("Quantile(%v, %v) = %v, want %v", c.p, s, got, c.want)
		}
	}
	if got := Quantile(0.3, []float64{5}); got != 5 {
		t.Errorf("one value: %v, want 5", got)
	}
}

func TestMedianAgainstR(t *testing.T) {
	// R 4.2.2: median(c(3, 1, 2)) = 2, median(c(4, 1, 3, 2)) = 2.5,
	// median(5) = 5, median(numeric(0)) = NA.
	for _, c := range []struct {
		x    []float64
		want float64
	}{{[]float64{3, 1, 2}, 2}, {[]float64{4, 1, 3, 2}, 2.5}, {[]float64{5}, 5}} {
		in := slices.Clone(c.x)
		if got := Median(c.x); got != c.want {
			t.Errorf("Median(%v) = %v, want %v", c.x, got, c.want)
		}
		if !slices.Equal(in, c.x) {
			t.Errorf("Median modified its input: %v, was %v", c.x, in)
		}
	}
	if !math.IsNaN(Median(nil)) {
		t.Error("Median(nil): want NaN")
	}
}

func TestLowerMedianIndex(t *testing.T) {
	var scratch []int
	for _, c := range []struct {
		x    []float64
		want int
	}{
		{[]float64{3, 1, 2}, 2},    // the value 2
		{[]float64{4, 1, 3, 2}, 3}, // the lower of 2 and 3: 2, at index 3
		{[]float64{7, 7, 7, 7}, 1}, // ties: by index
		{[]float64{9}, 0},
	} {
		if got := LowerMedianIndex(c.x, &scratch); got != c.want {
			t.Errorf("LowerMedianIndex(%v) = %d, want %d", c.x, got, c.want)
		}
	}
}
