package analysis

import (
	"math"
	"slices"
)

// MpirunSummary describes the observations of one mpirun of a group after
// Tukey's fences (Hunold & Carpen-Amarie 2016, Alg. 6, remove_outliers, per mpirun): how many
// were kept and removed, their median and quartiles, and the Shapiro-Wilk
// test of their normality (NaN p with fewer than 3 or more than 5000).
type MpirunSummary struct {
	Mpirun         int32 // index into Dataset.Mpiruns
	N, Outliers    int
	Q1, Median, Q3 float64 // NaN when nothing was kept
	Normality      TestResult
}

// PerMpirun summarizes each mpirun of g (ascending mpirun index) with
// Tukey's constant k, as AnalyzeGroup filters them: the spread within
// each mpirun that GroupSummary.MpirunMedians does not show.
func PerMpirun(g *Group, k float64) []MpirunSummary {
	order, byMp := byMpirun(g)
	out := make([]MpirunSummary, 0, len(order))
	for _, m := range order {
		x := byMp[m]
		slices.Sort(x)
		kept, rm := tukeySorted(x, k)
		s := MpirunSummary{Mpirun: m, N: len(kept), Outliers: rm, Q1: math.NaN(), Median: math.NaN(), Q3: math.NaN()}
		if len(kept) > 0 {
			s.Q1, s.Median, s.Q3 = Quantile(0.25, kept), Quantile(0.5, kept), Quantile(0.75, kept)
		}
		s.Normality = ShapiroWilk(kept)
		out = append(out, s)
	}
	return out
}
