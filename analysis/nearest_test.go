package analysis

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestQuantileNearestRank checks OSU's rule on samples whose answer is
// known by hand: the element of 1-based rank round(n·p) for
// osu_allreduce's default 1000 iterations and for small n, where rounding
// half away from zero and the clamp at rank 1 decide.
func TestQuantileNearestRank(t *testing.T) {
	seq := func(n int) []float64 {
		x := make([]float64, n)
		for i := range x {
			x[i] = float64(i + 1) // x[rank-1] = rank
		}
		return x
	}
	for _, c := range []struct {
		n    int
		p    float64
		rank float64
	}{
		{1000, 0.50, 500}, {1000, 0.90, 900}, {1000, 0.99, 990}, // osu_allreduce -z, 1000 iterations
		{10000, 0.99, 9900},
		{10, 0.50, 5}, {10, 0.90, 9}, {10, 0.99, 10}, // round(9.9) = 10
		{3, 0.50, 2},                  // round(1.5) = 2: half away from zero
		{5, 0.50, 3},                  // round(2.5) = 3, not banker's 2
		{1, 0.01, 1}, {100, 0.001, 1}, // round(0.1) = 0: clamped to rank 1
		{7, 1, 7}, {7, 0, 1},
	} {
		if got := QuantileNearestRank(c.p, seq(c.n)); got != c.rank {
			t.Errorf("n=%d p=%v: rank %v, want %v", c.n, c.p, got, c.rank)
		}
	}
	if !math.IsNaN(QuantileNearestRank(0.5, nil)) {
		t.Error("empty sample: want NaN")
	}
}

// TestQuantileNearestRankVsType7: on random samples the nearest-rank value
// is an order statistic, and type 7 lies within the two order statistics
// around the same rank, so they differ by at most that gap; a rule that
// picked the wrong rank (off by one) would fail the first check on almost
// every draw.
func TestQuantileNearestRankVsType7(t *testing.T) {
	r := rand.New(rand.NewPCG(30, 1))
	for trial := range 200 {
		n := 1 + r.IntN(2000)
		x := make([]float64, n)
		for i := range x {
			x[i] = r.ExpFloat64()
		}
		slices.Sort(x)
		for _, p := range []float64{0.5, 0.9, 0.99} {
			got := QuantileNearestRank(p, x)
			k := min(max(int(math.Floor(float64(n)*p+0.5)), 1), n)
			if got != x[k-1] {
				t.Fatalf("trial %d n=%d p=%v: %v is not x[%d] = %v", trial, n, p, got, k-1, x[k-1])
			}
			q7 := Quantile(p, x)
			lo, hi := x[max(k-2, 0)], x[min(k, n-1)]
			if q7 < lo || q7 > hi {
				t.Fatalf("trial %d n=%d p=%v: type 7 %v outside [%v, %v] around rank %d", trial, n, p, q7, lo, hi, k)
			}
		}
	}
}

// ExampleQuantileNearestRank computes OSU's P50/P90/P99 (osu_allreduce -z)
// from per-iteration times averaged over ranks, next to R's type 7.
func ExampleQuantileNearestRank() {
	us := []float64{0.52, 0.50, 0.55, 0.61, 0.49, 0.53, 2.67, 0.51, 0.58, 0.54} // 10 iterations
	slices.Sort(us)
	for _, p := range []float64{0.50, 0.90, 0.99} {
		fmt.Printf("P%.0f: OSU %.2f µs, type 7 %.3f µs\n", p*100, QuantileNearestRank(p, us), Quantile(p, us))
	}
	// Output:
	// P50: OSU 0.53 µs, type 7 0.535 µs
	// P90: OSU 0.61 µs, type 7 0.816 µs
	// P99: OSU 2.67 µs, type 7 2.485 µs
}
