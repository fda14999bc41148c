package order

import (
	"math"
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
