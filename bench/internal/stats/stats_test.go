package stats

import (
	"math"
	"slices"
	"testing"
)

// TestNormalize divides by the minimum, and gives NaN when it is not
// positive.
func TestNormalize(t *testing.T) {
	got := Normalize([]float64{2, 4, 3})
	if !slices.Equal(got, []float64{1, 2, 1.5}) {
		t.Errorf("Normalize = %v, want [1 2 1.5]", got)
	}
	if got := Normalize([]float64{0, 1}); !math.IsNaN(got[1]) {
		t.Errorf("minimum 0: %v, want NaN", got)
	}
}
