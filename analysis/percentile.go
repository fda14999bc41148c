package analysis

import (
	"fmt"
	"math"
	"slices"
)

// Values of PercentileSummary.Of.
const (
	// percentileOfMpiruns: the median over mpiruns of each mpirun's
	// percentile, with the order-statistic interval over mpiruns.
	percentileOfMpiruns = "mpirun-percentiles"
	// PercentileOfPooled: the percentile of all observations pooled, with
	// its order-statistic interval, which treats observations of one
	// mpirun as independent (too narrow when mpiruns differ).
	PercentileOfPooled = "pooled"
)

// PercentileSummary is one tail percentile of a group. Times in seconds.
type PercentileSummary struct {
	Percent float64 // e.g. 99.9
	Value   float64
	// CI is the interval of Value at Options.Level: quantileCI(0.5) over
	// the per-mpirun percentiles, or quantileCI(Percent/100) over the
	// pooled observations (Of says which); NaN bounds with a Warning when
	// there are too few values for the level.
	CI       Interval
	Of       string // percentileOfMpiruns or PercentileOfPooled
	NMpiruns int
	// Rule is "type7" (Quantile) or "nearest-rank" (QuantileNearestRank,
	// OSU 7's -z), the definition of each percentile.
	Rule string
	// MpirunValues are the per-mpirun percentiles (ordered by mpirun).
	MpirunValues []float64
	Warnings     []string
}

// ParsePercentiles parses a comma-separated list of percents ("50,90,99,
// 99.9"), each in (0, 100).
func ParsePercentiles(s string) ([]float64, error) {
	var out []float64
	for _, f := range splitComma(s) {
		var v float64
		if _, err := fmt.Sscan(f, &v); err != nil || !(v > 0 && v < 100) {
			return nil, fmt.Errorf("analysis: percentile %q: want a number in (0, 100), e.g. 99.9", f)
		}
		out = append(out, v)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("analysis: no percentile in %q", s)
	}
	return out, nil
}

func splitComma(s string) []string {
	var out []string
	start := 0
	for i := 0; i <= len(s); i++ {
		if i == len(s) || s[i] == ',' {
			if f := s[start:i]; f != "" {
				out = append(out, f)
			}
			start = i + 1
		}
	}
	return out
}

// MpirunPercentiles returns, for each percent in pcts, the percentile of
// a group whose valid observations per mpirun are runs (each sorted
// ascending, not Tukey-filtered: removing outliers would remove the tail
// a percentile measures). With at least as many mpiruns as an
// order-statistic interval of the median needs at level (6 at 95 %), the
// value is the median over mpiruns of each mpirun's percentile (type 7,
// Quantile) with quantileCI(0.5) over those (Hunold, Carpen-Amarie &
// Träff 2014: the mpirun is the unit); otherwise it is the pooled
// observations' percentile with quantileCI, marked PercentileOfPooled.
// A warning says when a mpirun has fewer than 1/(1 − p) observations, so
// that its percentile is close to its maximum. With nearestRank each
// percentile (per mpirun and pooled) is QuantileNearestRank, the rule of
// OSU 7's -z on per-iteration times averaged over ranks (the runtime_s of
// rows written with --runtime osu); otherwise Quantile (type 7).
func MpirunPercentiles(runs [][]float64, pcts []float64, level float64, nearestRank bool) []PercentileSummary {
	checkLevel(level)
	q, rule := Quantile, "type7"
	if nearestRank {
		q, rule = QuantileNearestRank, "nearest-rank"
	}
	var nonEmpty [][]float64
	for _, r := range runs {
		if len(r) > 0 {
			nonEmpty = append(nonEmpty, r)
		}
	}
	pooled := mergeSorted(nonEmpty)
	need := minNForQuantileCI(0.5, level)
	out := make([]PercentileSummary, 0, len(pcts))
	for _, pct := range pcts {
		p := pct / 100
		s := PercentileSummary{Percent: pct, NMpiruns: len(nonEmpty), Rule: rule}
		minObs := len(pooled)
		for _, r := range nonEmpty {
			s.MpirunValues = append(s.MpirunValues, q(p, r))
			minObs = min(minObs, len(r))
		}
		switch {
		case len(pooled) == 0:
			s.Value, s.Of = math.NaN(), PercentileOfPooled
			s.CI = Interval{Lo: math.NaN(), Hi: math.NaN(), Level: level, Confidence: math.NaN(), Warning: "no observations"}
		case len(nonEmpty) >= need:
			s.Value, s.Of = Median(s.MpirunValues), percentileOfMpiruns
			s.CI = quantileCI(0.5, slices.Sorted(slices.Values(s.MpirunValues)), level)
		default:
			s.Value, s.Of = q(p, pooled), PercentileOfPooled
			s.CI = quantileCI(p, pooled, level)
			s.Warnings = append(s.Warnings, fmt.Sprintf("%d mpiruns < %d: pooled observations (interval treats them as independent)", len(nonEmpty), need))
		}
		if s.CI.Warning != "" {
			s.Warnings = append(s.Warnings, s.CI.Warning)
		}
		if tail := math.Ceil(1/(1-p) - 1e-9); p > 0.5 && float64(minObs) < tail && len(pooled) > 0 {
			s.Warnings = append(s.Warnings, fmt.Sprintf("a mpirun has fewer than %.0f observations: its P%g is near its maximum", tail, pct))
		}
		out = append(out, s)
	}
	return out
}
