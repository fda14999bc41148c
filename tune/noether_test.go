package tune

import "testing"

// noetherMpiruns against the formula by hand: candidate {1, 2}, default
// {1.5, 3}, threshold 0: 3 of 4 pairs have the default slower, p′ = 0.75;
// (z_0.95 + z_0.8)² = (1.644854 + 0.841621)² = 6.182557, over
// 6·0.25² = 0.375: 16.49, so 17 per side.
func TestNoetherMpiruns(t *testing.T) {
	if got := noetherMpiruns([]float64{1, 2}, []float64{1.5, 3}, 0, 0.05, 0.8); got != 17 {
		t.Errorf("noetherMpiruns = %d, want 17", got)
	}
	// The threshold removes the speed-up: 1.5 < 1·1.6, 3 < 2·1.6 is
	// false (3 > 3.2 is false), so 1 of 4 pairs: p′ = 0.25, none.
	if got := noetherMpiruns([]float64{1, 2}, []float64{1.5, 3}, 0.6, 0.05, 0.8); got != -1 {
		t.Errorf("with a 60%% threshold: %d, want -1", got)
	}
	// A large effect is floored at the attainable-p minimum: p′ = 1 at
	// power 0.5 gives 1.644854²/1.5 = 1.8 → 2, but level 0.05 needs 3
	// per side (1/C(6,3) = 0.05).
	if got := noetherMpiruns([]float64{1, 1.1}, []float64{5, 6}, 0, 0.05, 0.5); got != 3 {
		t.Errorf("floored: %d, want 3", got)
	}
}
