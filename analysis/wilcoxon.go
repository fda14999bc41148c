package analysis

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"sync"

	"gonum.org/v1/gonum/stat/distuv"
)

// Alternative is the alternative hypothesis of a two-sample test, stated for
// the first sample relative to the second ("less": x tends to be smaller).
type Alternative int

const (
	TwoSided Alternative = iota // x and y differ in location
	Less                        // x is shifted below y
	Greater                     // x is shifted above y
)

// String returns "two-sided", "less" or "greater".
func (a Alternative) String() string {
	switch a {
	case Less:
		return "less"
	case Greater:
		return "greater"
	}
	return "two-sided"
}

// ParseAlternative parses "two-sided" (or "two.sided"), "less" or "greater".
func ParseAlternative(s string) (Alternative, error) {
	switch s {
	case "two-sided", "two.sided", "two_sided":
		return TwoSided, nil
	case "less":
		return Less, nil
	case "greater":
		return Greater, nil
	}
	return TwoSided, fmt.Errorf("analysis: unknown alternative %q (want two-sided, less or greater)", s)
}

// TestResult is the outcome of a hypothesis test.
type TestResult struct {
	Method    string  // e.g. "Wilcoxon rank-sum (exact)"
	Statistic float64 // W, t, F, H, D, …
	DF        float64 // degrees of freedom where meaningful (NaN otherwise)
	DF2       float64 // second degrees of freedom (F tests), NaN otherwise
	P         float64 // p-value
	Warning   string
}

// Stars returns the significance marks of Hunold & Carpen-Amarie 2016, §6.2: "***" for
// p ≤ 0.001, "**" for p ≤ 0.01, "*" for p ≤ 0.05 and "" otherwise.
func Stars(p float64) string {
	switch {
	case p <= 0.001:
		return "***"
	case p <= 0.01:
		return "**"
	case p <= 0.05:
		return "*"
	}
	return ""
}

// midRanks returns the ranks (1-based, ties get the average rank) of x and the
// tie correction term Σ(t³ − t) over groups of t tied values.
func midRanks(x []float64) (ranks []float64, tieSum float64) {
	n := len(x)
	idx := make([]int, n)
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return x[idx[a]] < x[idx[b]] })
	ranks = make([]float64, n)
	for i := 0; i < n; {
		j := i + 1
		for j < n && x[idx[j]] == x[idx[i]] {
			j++
		}
		r := float64(i+j+1) / 2 // average of ranks i+1..j
		for k := i; k < j; k++ {
			ranks[idx[k]] = r
		}
		t := float64(j - i)
		tieSum += t*t*t - t
		i = j
	}
	return ranks, tieSum
}

// wilcoxDist holds the exact null distribution of the Mann-Whitney U
// statistic for sample sizes m and n: cdf[u] = P(U ≤ u).
type wilcoxDist struct {
	m, n int
	cdf  []float64
}

var wilcoxCache sync.Map // [2]int{m, n} → *wilcoxDist

// getWilcoxDist returns the (cached) exact distribution for sizes m, n.
func getWilcoxDist(m, n int) *wilcoxDist {
	k := [2]int{m, n}
	if d, ok := wilcoxCache.Load(k); ok {
		return d.(*wilcoxDist)
	}
	d := newWilcoxDist(m, n)
	wilcoxCache.Store(k, d)
	return d
}

// newWilcoxDist counts, by dynamic programming over the pooled ranks, the
// m-subsets of {1..m+n} with each rank sum; U = W − m(m+1)/2.
func newWilcoxDist(m, n int) *wilcoxDist {
	N := m + n
	maxU := m * n
	// c[k][u]: number of k-subsets of the ranks seen so far with U-like sum u,
	// where a subset's value is Σ(rank) − k(k+1)/2 … computed via the classic
	// recurrence on the number of larger "y" items each x beats.
	// f[k][u] over items processed: choosing item j (1-based) as the k-th
	// x contributes j − k to U (the number of y items before it).
	c := make([][]float64, m+1)
	for k := range c {
		c[k] = make([]float64, maxU+1)
	}
	c[0][0] = 1
	for j := 1; j <= N; j++ {
		hiK := min(j, m)
		for k := hiK; k >= 1; k-- {
			add := j - k // y items before the k-th x
			if add < 0 || add > n {
				continue
			}
			prev, cur := c[k-1], c[k]
			for u := maxU; u >= add; u-- {
				if prev[u-add] != 0 {
					cur[u] += prev[u-add]
				}
			}
		}
	}
	counts := c[m]
	var total float64
	for _, v := range counts {
		total += v
	}
	cdf := make([]float64, maxU+1)
	var s float64
	for u, v := range counts {
		s += v
		cdf[u] = s / total
	}
	return &wilcoxDist{m: m, n: n, cdf: cdf}
}

// p returns P(U ≤ q).
func (d *wilcoxDist) p(q float64) float64 {
	q = math.Floor(q + 1e-7)
	if q < 0 {
		return 0
	}
	if int(q) >= len(d.cdf) {
		return 1
	}
	return d.cdf[int(q)]
}

// q returns the smallest u with P(U ≤ u) ≥ prob (R's qwilcox).
func (d *wilcoxDist) q(prob float64) int {
	prob *= 1 - 64*epsilon
	i := sort.SearchFloat64s(d.cdf, prob)
	return min(i, len(d.cdf)-1)
}

// wilcoxonExactLimit: samples smaller than this on both sides and without
// ties get the exact test (R's wilcox.test uses 50).
const wilcoxonExactLimit = 50

// WilcoxonRankSum performs the Wilcoxon rank-sum (Mann-Whitney U) test of
// H0: x and y come from the same distribution against a location shift
// (Hunold & Carpen-Amarie 2016, §6.2, Hoefler & Belli 2015, §3.2.2). The statistic is
// W = Σ rank(x) − m(m+1)/2 over the pooled average ranks.
//
// With both samples smaller than wilcoxonExactLimit and no ties the p-value
// comes from the exact null distribution; otherwise from the normal
// approximation z = (W − mn/2 − c)/σ with the tie-corrected
// σ² = mn/12·((N+1) − Σ(t³−t)/(N(N−1))) and continuity correction c = ±0.5,
// exactly as R's wilcox.test(x, y, alternative, correct = TRUE).
// An empty sample or a NaN gives p = NaN and a warning.
func WilcoxonRankSum(x, y []float64, alt Alternative) TestResult {
	m, n := len(x), len(y)
	res := TestResult{DF: math.NaN(), DF2: math.NaN()}
	if m == 0 || n == 0 {
		res.Method, res.Statistic, res.P = "Wilcoxon rank-sum", math.NaN(), math.NaN()
		res.Warning = "empty sample: no comparison"
		return res
	}
	if hasNaN(x) || hasNaN(y) {
		res.Method, res.Statistic, res.P = "Wilcoxon rank-sum", math.NaN(), math.NaN()
		res.Warning = "NaN in a sample: no comparison"
		return res
	}
	pooled := make([]float64, 0, m+n)
	pooled = append(pooled, x...)
	pooled = append(pooled, y...)
	r, tieSum := midRanks(pooled)
	var rx float64
	for _, v := range r[:m] {
		rx += v
	}
	fm, fn := float64(m), float64(n)
	w := rx - fm*(fm+1)/2
	res.Statistic = w
	if m < wilcoxonExactLimit && n < wilcoxonExactLimit && tieSum == 0 {
		res.Method = "Wilcoxon rank-sum (exact)"
		d := getWilcoxDist(m, n)
		switch alt {
		case TwoSided:
			var p float64
			if w > fm*fn/2 {
				p = 1 - d.p(w-1)
			} else {
				p = d.p(w)
			}
			res.P = math.Min(2*p, 1)
		case Greater:
			res.P = 1 - d.p(w-1)
		case Less:
			res.P = d.p(w)
		}
		return res
	}
	res.Method = "Wilcoxon rank-sum (normal approx., tie and continuity corrected)"
	N := fm + fn
	sigma := math.Sqrt(fm * fn / 12 * ((N + 1) - tieSum/(N*(N-1))))
	if sigma == 0 {
		res.Warning = "all values are tied"
	}
	res.P = continuityNormalP(w-fm*fn/2, sigma, alt)
	return res
}

// continuityNormalP is the p-value of a rank statistic that deviates by dev
// from its null mean with null standard deviation sigma, by the normal
// approximation with R's continuity correction (dev moved 0.5 towards 0
// for two-sided, −0.5 for greater, +0.5 for less); 1 when sigma is 0.
func continuityNormalP(dev, sigma float64, alt Alternative) float64 {
	if sigma == 0 {
		return 1
	}
	var corr float64
	switch alt {
	case TwoSided:
		corr = 0.5 * sign(dev)
	case Greater:
		corr = 0.5
	case Less:
		corr = -0.5
	}
	return normalP((dev-corr)/sigma, alt)
}

func sign(x float64) float64 {
	switch {
	case x > 0:
		return 1
	case x < 0:
		return -1
	}
	return 0
}

// normalP returns the p-value of a standard normal statistic z.
func normalP(z float64, alt Alternative) float64 {
	switch alt {
	case Less:
		return normCDF(z)
	case Greater:
		return normCDF(-z)
	}
	return math.Min(1, 2*normCDF(-math.Abs(z)))
}

// normCDF is Φ(z): gonum's standard normal CDF, accurate in both tails
// through Erfc (callers take upper tails as Φ(−z), not Normal.Survival,
// which is 1 − Erf and loses them).
func normCDF(z float64) float64 { return distuv.UnitNormal.CDF(z) }

// Shift is a location-shift estimate with its confidence interval.
type Shift struct {
	Estimate float64
	Interval
	Method string
	// estLo, estHi bound the set of equally valid estimates in the normal
	// approximation (the zero set of the statistic).
	estLo, estHi float64
}

// HodgesLehmann returns the Hodges-Lehmann estimate of the shift x − y and
// its confidence interval by inverting the Wilcoxon rank-sum test, as R's
// wilcox.test(x, y, conf.int = TRUE, conf.level = level) does (Hoefler & Belli 2015
// §3.2.2, effect size of a nonparametric comparison).
//
// Exact case (both samples < wilcoxonExactLimit, no ties): the estimate is
// the median of the mn differences x_i − y_j and the bounds are the
// differences at ranks qwilcox(α/2) and mn − qwilcox(α/2) + 1 (one-sided
// alternatives give an infinite bound). Otherwise the bounds are the shifts
// d at which the tie- and continuity-corrected normal statistic of x − d
// against y crosses ±z(1−α/2), and the estimate is where it crosses 0; they
// are found by bisection to machine precision (R uses uniroot with
// tol = 1e-4 in the data's units, which is coarser).
func HodgesLehmann(x, y []float64, alt Alternative, level float64) Shift {
	checkLevel(level)
	m, n := len(x), len(y)
	nan := math.NaN()
	sh := Shift{Estimate: nan, Interval: Interval{Lo: nan, Hi: nan, Level: level, Confidence: nan}}
	if m == 0 || n == 0 || hasNaN(x) || hasNaN(y) {
		sh.Warning = "empty sample or NaN in a sample"
		return sh
	}
	if hasInf(x) || hasInf(y) {
		// A shift by an infinite value has no estimate, and the interval's
		// search over differences would not end.
		sh.Warning = "infinite value in a sample"
		return sh
	}
	pooled := append(slices.Clone(x), y...)
	_, tieSum := midRanks(pooled)
	alpha := 1 - level
	if m < wilcoxonExactLimit && n < wilcoxonExactLimit && tieSum == 0 {
		sh.Method = "Hodges-Lehmann (exact)"
		diffs := make([]float64, 0, m*n)
		for _, a := range x {
			for _, b := range y {
				diffs = append(diffs, a-b)
			}
		}
		slices.Sort(diffs)
		d := getWilcoxDist(m, n)
		sh.Estimate = Quantile(0.5, diffs)
		mn := m * n
		switch alt {
		case TwoSided:
			qu := d.q(alpha / 2)
			if qu == 0 {
				qu = 1
			}
			ql := mn - qu
			sh.Lo, sh.Hi = diffs[qu-1], diffs[ql]
			sh.Confidence = 1 - 2*d.p(float64(qu-1))
		case Greater:
			qu := d.q(alpha)
			if qu == 0 {
				qu = 1
			}
			sh.Lo, sh.Hi = diffs[qu-1], math.Inf(1)
			sh.Confidence = 1 - d.p(float64(qu-1))
		case Less:
			qu := d.q(alpha)
			if qu == 0 {
				qu = 1
			}
			ql := mn - qu
			sh.Lo, sh.Hi = math.Inf(-1), diffs[ql]
			sh.Confidence = 1 - d.p(float64(qu-1))
		}
		return sh
	}
	sh.Method = "Hodges-Lehmann (normal approx.)"
	// wdiff(d, zq): corrected z of (x − d) vs y minus zq, as in R's
	// wilcox.test; decreasing in d.
	xs := make([]float64, m)
	fm, fn := float64(m), float64(n)
	N := fm + fn
	correct := true
	xsorted, ysorted := slices.Clone(x), slices.Clone(y)
	slices.Sort(xsorted)
	slices.Sort(ysorted)
	wdiff := func(d, zq float64) float64 {
		for i, v := range xsorted {
			xs[i] = v - d // stays sorted
		}
		rx, ts := mergeRankStats(xs, ysorted)
		dz := rx - fm*(fm+1)/2 - fm*fn/2
		var corr float64
		switch {
		case !correct:
		case alt == TwoSided:
			corr = 0.5 * sign(dz)
		case alt == Greater:
			corr = 0.5
		case alt == Less:
			corr = -0.5
		}
		sigma := math.Sqrt(fm * fn / 12 * ((N + 1) - ts/(N*(N-1))))
		return (dz-corr)/sigma - zq
	}
	lo := slices.Min(x) - slices.Max(y)
	hi := slices.Max(x) - slices.Min(y)
	// bisect returns the boundary between {d: wdiff(d) > zq} (strict=true)
	// or {d: wdiff(d) ≥ zq} (strict=false) and the rest; wdiff is
	// non-increasing in d.
	bisect := func(zq float64, strict bool) float64 {
		above := func(d float64) bool {
			v := wdiff(d, zq)
			if strict {
				return v > 0
			}
			return v >= 0
		}
		a, b := lo, hi
		if !above(a) {
			return a
		}
		if above(b) {
			return b
		}
		for i := 0; i < 200; i++ {
			mid := a + (b-a)/2
			if mid == a || mid == b {
				break
			}
			if above(mid) {
				a = mid
			} else {
				b = mid
			}
		}
		return a + (b-a)/2
	}
	root := func(zq float64) float64 {
		a, b := lo, hi
		fa, fb := wdiff(a, zq), wdiff(b, zq)
		if fa <= 0 {
			return a
		}
		if fb >= 0 {
			return b
		}
		for i := 0; i < 200 && b-a > 0; i++ {
			mid := a + (b-a)/2
			if mid == a || mid == b {
				break
			}
			if wdiff(mid, zq) > 0 {
				a = mid
			} else {
				b = mid
			}
		}
		return a + (b-a)/2
	}
	switch alt {
	case TwoSided:
		z := distuv.UnitNormal.Quantile(1 - alpha/2)
		sh.Lo, sh.Hi = root(z), root(-z)
	case Greater:
		sh.Lo, sh.Hi = root(distuv.UnitNormal.Quantile(1-alpha)), math.Inf(1)
	case Less:
		sh.Lo, sh.Hi = math.Inf(-1), root(-distuv.UnitNormal.Quantile(1-alpha))
	}
	sh.Confidence = level
	// The estimate (R: uniroot of the uncorrected statistic) is any point
	// of the set where the statistic is 0; we take the midpoint of that set.
	correct = false
	a, b := hlZeroSet(bisect)
	sh.Estimate = a + (b-a)/2
	sh.estLo, sh.estHi = a, b
	return sh
}

// hlZeroSet returns the interval of shifts at which the uncorrected
// rank-sum statistic changes sign (or is zero).
func hlZeroSet(bisect func(zq float64, strict bool) float64) (a, b float64) {
	return bisect(0, true), bisect(0, false)
}

// mergeRankStats returns the sum of the pooled average ranks of the sorted
// sample x and the tie term Σ(t³−t), merging x with the sorted sample y in
// O(m+n).
func mergeRankStats(x, y []float64) (rx, tieSum float64) {
	i, j, pos := 0, 0, 0
	for i < len(x) || j < len(y) {
		var v float64
		switch {
		case j == len(y) || (i < len(x) && x[i] <= y[j]):
			v = x[i]
		default:
			v = y[j]
		}
		cx, cy := 0, 0
		for i < len(x) && x[i] == v {
			i++
			cx++
		}
		for j < len(y) && y[j] == v {
			j++
			cy++
		}
		t := float64(cx + cy)
		r := float64(pos) + (t+1)/2
		rx += float64(cx) * r
		tieSum += t*t*t - t
		pos += cx + cy
	}
	return rx, tieSum
}

// hasInf reports whether x holds +Inf or -Inf.
func hasInf(x []float64) bool {
	for _, v := range x {
		if math.IsInf(v, 0) {
			return true
		}
	}
	return false
}

func hasNaN(x []float64) bool {
	for _, v := range x {
		if v != v {
			return true
		}
	}
	return false
}
