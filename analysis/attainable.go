package analysis

// MinRankSumP returns the smallest p-value the exact one-sided Wilcoxon
// rank-sum test can attain with m and n values, 1/C(m+n, m): the p of
// complete separation. It is 1 when a side is empty. Gate uses it to
// call a group undecided; campaign planning uses it to size a campaign.
func MinRankSumP(m, n int) float64 { return minRankSumP(m, n) }

// MpirunsForP returns the smallest k such that k values per side let the
// exact one-sided rank-sum test reach p ≤ p0 (1/C(2k, k) ≤ p0): the
// mpiruns per side below which no data can pass a test at level p0. It
// returns 0 when p0 ≥ 1 and -1 when p0 ≤ 0 or NaN.
func MpirunsForP(p0 float64) int { return mpirunsForP(p0) }
