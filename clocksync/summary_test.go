package clocksync_test

import (
	"encoding/json"
	"testing"

	"github.com/reprobench/reprobench/clocksync"
)

// records returns n per-rank records whose bound at sync is (r+1) ns for
// rank r, rank 3's unknown.
func records(n int) []clocksync.RankRecord {
	recs := make([]clocksync.RankRecord, n)
	for r := range recs {
		recs[r] = clocksync.RankRecord{Rank: r, Model: clocksync.Model{Slope: 1 + float64(r)*1e-6},
			FitStats: clocksync.FitStats{Points: 100 + r}, Bound: clocksync.Bound{AtSync: float64(r+1) * 1e-9, Slope: 1e-8},
			MessagesSent: int64(2 * r)}
	}
	recs[3].Bound = clocksync.Bound{Unknown: true, Why: "too few (undisturbed) fit points for an error estimate"}
	return recs
}

func TestSummarize(t *testing.T) {
	s := clocksync.Summarize(records(100))
	if s.Ranks != 100 || s.UnknownBounds != 1 || s.BudgetExceeded != 0 {
		t.Fatalf("counts %+v", s)
	}
	// Known bounds: 1..100 ns without 4 ns, 99 values; nearest rank:
	// p50 the 50th smallest (51 ns), p90 the 90th (91 ns), p99 the 99th
	// (100 ns).
	want := clocksync.RankQuantiles{Min: 1e-9, P50: 51e-9, P90: 91e-9, P99: 100e-9, Max: 100e-9}
	const eps = 1e-18
	got := s.BoundAtSync
	for _, d := range [][2]float64{{got.Min, want.Min}, {got.P50, want.P50}, {got.P90, want.P90}, {got.P99, want.P99}, {got.Max, want.Max}} {
		if d[0] < d[1]-eps || d[0] > d[1]+eps {
			t.Errorf("bound at sync quantiles %+v, want %+v", got, want)
			break
		}
	}
	// Points 100..199: p50 the 50th smallest, 149.
	if s.Points.Min != 100 || s.Points.P50 != 149 || s.Points.Max != 199 {
		t.Errorf("points %+v", s.Points)
	}
	if d := s.DriftPPM.Max; d < 98.999 || d > 99.001 {
		t.Errorf("drift max %v ppm, want 99", d)
	}
	// Worst: the unknown rank first, then the largest bounds.
	if len(s.Worst) != clocksync.WorstRanks || s.Worst[0].Rank != 3 || s.Worst[1].Rank != 99 || s.Worst[2].Rank != 98 {
		ranks := []int{}
		for _, w := range s.Worst {
			ranks = append(ranks, w.Rank)
		}
		t.Errorf("worst ranks %v", ranks)
	}
}

func TestCompactSizeIndependentOfRanks(t *testing.T) {
	small := &clocksync.Result{Ranks: 64, PerRank: records(64)}
	if small.Compact(64) != small {
		t.Error("64 records compacted at a limit of 64")
	}
	size := func(n int) int {
		r := &clocksync.Result{Ranks: n, PerRank: records(n)}
		c := r.Compact(64)
		if c.PerRank != nil || c.RankSummary == nil || len(r.PerRank) != n {
			t.Fatalf("%d ranks: compacted %v, summary %v, original %d records", n, c.PerRank != nil, c.RankSummary != nil, len(r.PerRank))
		}
		b, err := json.Marshal(c)
		if err != nil {
			t.Fatal(err)
		}
		return len(b)
	}
	a, b := size(100), size(16384)
	// The same fields at both sizes; only the digits of the numbers differ.
	if b > a+a/4 {
		t.Errorf("compacted record %d bytes at 16384 ranks, %d at 100", b, a)
	}
}
