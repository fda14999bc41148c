package clocksync

import (
	"cmp"
	"math"
	"slices"
)

// RankQuantiles are quantiles over the ranks of one quantity: the order
// statistics at probabilities 0, 0.5, 0.9, 0.99 and 1, by the nearest-rank
// rule (the ⌈p·n⌉-th smallest of n values, the smallest for p = 0). NaN
// values are left out; with none left every field is 0.
type RankQuantiles struct {
	Min float64 `json:"min"`
	P50 float64 `json:"p50"`
	P90 float64 `json:"p90"`
	P99 float64 `json:"p99"`
	Max float64 `json:"max"`
}

// rankQuantiles returns the RankQuantiles of v; v is sorted in place. An
// empty v (after leaving out NaNs) gives zeros.
func rankQuantiles(v []float64) RankQuantiles {
	v = slices.DeleteFunc(v, math.IsNaN)
	if len(v) == 0 {
		return RankQuantiles{}
	}
	slices.Sort(v)
	at := func(p float64) float64 {
		k := int(math.Ceil(p*float64(len(v)))) - 1
		return v[min(max(k, 0), len(v)-1)]
	}
	return RankQuantiles{Min: v[0], P50: at(0.5), P90: at(0.9), P99: at(0.99), Max: v[len(v)-1]}
}

// WorstRanks is the number of full per-rank records a RankSummary keeps.
const WorstRanks = 8

// RankSummary summarizes the per-rank records of one synchronization
// (Result.PerRank) in a size independent of the rank count: counts,
// quantiles over the ranks of what the analysis and the report read, and
// the full records of the WorstRanks ranks with the largest stated error
// (unknown bounds first, then the largest bound at the sync, then the
// largest bound slope; ties by rank).
type RankSummary struct {
	Ranks          int `json:"ranks"`
	UnknownBounds  int `json:"bound_unknown_ranks"`
	BudgetExceeded int `json:"budget_exceeded_ranks"`
	// Quantiles over the ranks with a known bound.
	BoundAtSync RankQuantiles `json:"bound_at_sync_s"`
	BoundSlope  RankQuantiles `json:"bound_slope"`
	// Quantiles over every rank. DriftPPM is (model slope − 1)·10⁶: the
	// rank's clock rate against the global clock's, as learned.
	DriftPPM     RankQuantiles `json:"drift_ppm"`
	ResidualRMS  RankQuantiles `json:"fit_residual_rms_s"`
	SlopeSE      RankQuantiles `json:"slope_se"`
	Points       RankQuantiles `json:"fit_points"`
	Rejected     RankQuantiles `json:"fit_points_rejected"`
	Span         RankQuantiles `json:"fit_span_s"`
	MinRTT       RankQuantiles `json:"min_rtt_s"`
	Duration     RankQuantiles `json:"sync_duration_s"`
	MessagesSent RankQuantiles `json:"messages_sent"`
	// Worst holds the full records of the ranks with the largest stated
	// error, worst first.
	Worst []RankRecord `json:"worst_ranks"`
}

// Summarize returns the RankSummary of recs.
func Summarize(recs []RankRecord) *RankSummary {
	s := &RankSummary{Ranks: len(recs)}
	col := func(f func(r *RankRecord) float64) []float64 {
		v := make([]float64, len(recs))
		for i := range recs {
			v[i] = f(&recs[i])
		}
		return v
	}
	known := func(f func(r *RankRecord) float64) func(r *RankRecord) float64 {
		return func(r *RankRecord) float64 {
			if r.Bound.Unknown {
				return math.NaN()
			}
			return f(r)
		}
	}
	for i := range recs {
		if recs[i].Bound.Unknown {
			s.UnknownBounds++
		}
		if recs[i].BudgetExceeded {
			s.BudgetExceeded++
		}
	}
	s.BoundAtSync = rankQuantiles(col(known(func(r *RankRecord) float64 { return r.Bound.AtSync })))
	s.BoundSlope = rankQuantiles(col(known(func(r *RankRecord) float64 { return r.Bound.Slope })))
	s.DriftPPM = rankQuantiles(col(func(r *RankRecord) float64 { return (r.Slope - 1) * 1e6 }))
	s.ResidualRMS = rankQuantiles(col(func(r *RankRecord) float64 { return r.ResidualRMS }))
	s.SlopeSE = rankQuantiles(col(func(r *RankRecord) float64 { return r.SlopeSE }))
	s.Points = rankQuantiles(col(func(r *RankRecord) float64 { return float64(r.Points) }))
	s.Rejected = rankQuantiles(col(func(r *RankRecord) float64 { return float64(r.Rejected) }))
	s.Span = rankQuantiles(col(func(r *RankRecord) float64 { return r.Span }))
	s.MinRTT = rankQuantiles(col(func(r *RankRecord) float64 { return r.MinRTT }))
	s.Duration = rankQuantiles(col(func(r *RankRecord) float64 { return r.Duration }))
	s.MessagesSent = rankQuantiles(col(func(r *RankRecord) float64 { return float64(r.MessagesSent) }))

	order := make([]int, len(recs))
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(a, b int) int {
		ra, rb := &recs[a], &recs[b]
		switch {
		case ra.Bound.Unknown != rb.Bound.Unknown:
			if ra.Bound.Unknown {
				return -1
			}
			return 1
		case ra.Bound.AtSync != rb.Bound.AtSync:
			return -cmp.Compare(ra.Bound.AtSync, rb.Bound.AtSync)
		case ra.Bound.Slope != rb.Bound.Slope:
			return -cmp.Compare(ra.Bound.Slope, rb.Bound.Slope)
		}
		return a - b
	})
	for _, i := range order[:min(WorstRanks, len(order))] {
		s.Worst = append(s.Worst, recs[i])
	}
	return s
}

// Compact returns r itself when it holds at most maxRanks per-rank
// records, and otherwise a copy of r whose PerRank is replaced by
// Summarize(r.PerRank) in RankSummary: a record whose size does not grow
// with the rank count, for a run's metadata. Models needs the full
// records, so compact only what is written.
func (r *Result) Compact(maxRanks int) *Result {
	if len(r.PerRank) <= maxRanks {
		return r
	}
	c := *r
	c.RankSummary = Summarize(r.PerRank)
	c.PerRank = nil
	return &c
}
