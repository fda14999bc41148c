package analysis

import (
	"math"
	"slices"

	"gonum.org/v1/gonum/mathext"
	"gonum.org/v1/gonum/stat/distuv"
)

// OneWayANOVA performs the one-way analysis of variance of H0: all group
// means are equal, assuming normal data with equal variances (Hoefler & Belli 2015
// §3.2.2), as R's oneway.test(y ~ g, var.equal = TRUE): F = MSB/MSW with
// (k−1, N−k) degrees of freedom. Empty groups are ignored.
func OneWayANOVA(groups [][]float64) TestResult {
	res := TestResult{Method: "one-way ANOVA"}
	var all []float64
	k := 0
	for _, g := range groups {
		if len(g) > 0 {
			k++
			all = append(all, g...)
		}
	}
	N := len(all)
	if k < 2 || N <= k {
		res.Statistic, res.DF, res.DF2, res.P = math.NaN(), math.NaN(), math.NaN(), math.NaN()
		res.Warning = "need at least 2 non-empty groups and more observations than groups"
		return res
	}
	gm := Mean(all)
	var ssb, ssw float64
	for _, g := range groups {
		if len(g) == 0 {
			continue
		}
		m := Mean(g)
		ssb += float64(len(g)) * (m - gm) * (m - gm)
		for _, v := range g {
			ssw += (v - m) * (v - m)
		}
	}
	df1, df2 := float64(k-1), float64(N-k)
	f := (ssb / df1) / (ssw / df2)
	res.Statistic, res.DF, res.DF2 = f, df1, df2
	res.P = fSurvival(f, df1, df2)
	if ssw == 0 {
		res.P = math.NaN()
		res.Warning = "no variation within groups"
	}
	return res
}

// KruskalWallis performs the Kruskal-Wallis rank-sum test of H0: all groups
// come from the same distribution (Hoefler & Belli 2015, §3.2.2), as R's kruskal.test:
// H = (12/(N(N+1)) Σ R²ᵢ/nᵢ − 3(N+1)) / (1 − Σ(t³−t)/(N³−N)), compared with
// χ²(k−1). Empty groups are ignored.
func KruskalWallis(groups [][]float64) TestResult {
	res := TestResult{Method: "Kruskal-Wallis rank-sum test", DF2: math.NaN()}
	var all []float64
	var sizes []int
	for _, g := range groups {
		if len(g) > 0 {
			all = append(all, g...)
			sizes = append(sizes, len(g))
		}
	}
	k := len(sizes)
	if k < 2 {
		res.Statistic, res.DF, res.P = math.NaN(), math.NaN(), math.NaN()
		res.Warning = "need at least 2 non-empty groups"
		return res
	}
	r, tieSum := midRanks(all)
	N := float64(len(all))
	var s float64
	off := 0
	for _, sz := range sizes {
		var ri float64
		for _, v := range r[off : off+sz] {
			ri += v
		}
		s += ri * ri / float64(sz)
		off += sz
	}
	h := (12/(N*(N+1))*s - 3*(N+1)) / (1 - tieSum/(N*N*N-N))
	res.Statistic, res.DF = h, float64(k-1)
	res.P = distuv.ChiSquared{K: float64(k - 1)}.Survival(h)
	if math.IsNaN(h) {
		res.Warning = "all values are tied"
	}
	return res
}

// effectSize holds standardized effect sizes of x relative to y.
type effectSize struct {
	// CohenD is (x̄ − ȳ)/s_pooled with the pooled standard deviation.
	CohenD float64
	// A12 is the Vargha-Delaney probability of superiority
	// P(X > Y) + ½P(X = Y) = W/(mn), from the rank-sum statistic.
	A12 float64
	// RankBiserial is 2·A12 − 1 ∈ [−1, 1].
	RankBiserial float64
}

// effect returns the effect sizes of x relative to y (Hoefler & Belli 2015, §3.2:
// report the size of a difference, not only its significance).
func effect(x, y []float64) effectSize {
	m, n := float64(len(x)), float64(len(y))
	sp := math.Sqrt(((m-1)*variance(x) + (n-1)*variance(y)) / (m + n - 2))
	d := (Mean(x) - Mean(y)) / sp
	w := WilcoxonRankSum(x, y, TwoSided).Statistic
	a := w / (m * n)
	return effectSize{CohenD: d, A12: a, RankBiserial: 2*a - 1}
}

// ShapiroWilk tests H0: x is a sample from a normal distribution, with
// Royston's algorithm AS R94 (1995) for 3 ≤ n ≤ 5000, as R's shapiro.test
// (Hunold & Carpen-Amarie 2016, §6.2, Hoefler & Belli 2015, §3.1.2). The statistic W is the squared
// correlation between the ordered sample and approximate normal scores.
func ShapiroWilk(x []float64) TestResult {
	res := TestResult{Method: "Shapiro-Wilk normality test", DF: math.NaN(), DF2: math.NaN()}
	n := len(x)
	if n < 3 || n > 5000 {
		res.Statistic, res.P = math.NaN(), math.NaN()
		res.Warning = "Shapiro-Wilk needs 3 ≤ n ≤ 5000"
		return res
	}
	s := slices.Clone(x)
	slices.Sort(s)
	rng := s[n-1] - s[0]
	if !(rng >= 1e-10*math.Max(math.Abs(s[0]), math.Abs(s[n-1]))) || rng == 0 {
		res.Statistic, res.P = math.NaN(), math.NaN()
		res.Warning = "all values are identical"
		return res
	}
	w, p := swilk(s)
	res.Statistic, res.P = w, p
	return res
}

// poly evaluates c[0] + c[1]x + c[2]x² + … .
func poly(c []float64, x float64) float64 {
	r := 0.0
	for i := len(c) - 1; i >= 0; i-- {
		r = r*x + c[i]
	}
	return r
}

// swilk implements Royston (1995), Algorithm AS R94, for a sorted sample.
func swilk(x []float64) (w, pw float64) {
	n := len(x)
	an := float64(n)
	nn2 := n / 2
	a := make([]float64, nn2) // coefficients for the upper half, a[0] largest
	if n == 3 {
		a[0] = math.Sqrt(0.5)
	} else {
		c1 := []float64{0, 0.221157, -0.147981, -2.07119, 4.434685, -2.706056}
		c2 := []float64{0, 0.042981, -0.293762, -1.752461, 5.682633, -3.582633}
		m := make([]float64, nn2)
		an25 := an + 0.25
		var summ2 float64
		for i := range m {
			m[i] = distuv.UnitNormal.Quantile((float64(i+1) - 0.375) / an25)
			summ2 += m[i] * m[i]
		}
		summ2 *= 2
		ssumm2 := math.Sqrt(summ2)
		rsn := 1 / math.Sqrt(an)
		a1 := poly(c1, rsn) - m[0]/ssumm2
		var i1 int
		var fac float64
		if n > 5 {
			i1 = 2
			a2 := -m[1]/ssumm2 + poly(c2, rsn)
			fac = math.Sqrt((summ2 - 2*m[0]*m[0] - 2*m[1]*m[1]) / (1 - 2*a1*a1 - 2*a2*a2))
			a[1] = a2
		} else {
			i1 = 1
			fac = math.Sqrt((summ2 - 2*m[0]*m[0]) / (1 - 2*a1*a1))
		}
		a[0] = a1
		for i := i1; i < nn2; i++ {
			a[i] = -m[i] / fac
		}
	}
	// W = (Σ a_i (x_(n+1−i) − x_(i)))² / Σ(x − x̄)², with the data scaled by
	// the range for accuracy.
	rng := x[n-1] - x[0]
	mean := 0.0
	for _, v := range x {
		mean += v / rng
	}
	mean /= an
	var num, ss float64
	for i := 0; i < nn2; i++ {
		num += a[i] * (x[n-1-i] - x[i]) / rng
	}
	for _, v := range x {
		d := v/rng - mean
		ss += d * d
	}
	w = num * num / ss
	if w > 1 {
		w = 1
	}
	if n == 3 {
		const pi6, stqr = 6 / math.Pi, math.Pi / 3
		pw = pi6 * (math.Asin(math.Sqrt(w)) - stqr)
		return w, math.Max(pw, 0)
	}
	y := math.Log(1 - w)
	xx := math.Log(an)
	var mu, sigma float64
	if n <= 11 {
		gamma := poly([]float64{-2.273, 0.459}, an)
		if y >= gamma {
			return w, 1e-99
		}
		y = -math.Log(gamma - y)
		mu = poly([]float64{0.544, -0.39978, 0.025054, -6.714e-4}, an)
		sigma = math.Exp(poly([]float64{1.3822, -0.77857, 0.062767, -0.0020322}, an))
	} else {
		mu = poly([]float64{-1.5861, -0.31082, -0.083751, 0.0038915}, xx)
		sigma = math.Exp(poly([]float64{-0.4803, -0.082676, 0.0030302}, xx))
	}
	return w, normCDF(-(y - mu) / sigma)
}

// fSurvival returns P(F > f) for F(d1, d2), accurate in the upper tail:
// I_{d2/(d2+d1·f)}(d2/2, d1/2).
func fSurvival(f, d1, d2 float64) float64 {
	if !(f > 0) {
		return 1
	}
	return mathext.RegIncBeta(d2/2, d1/2, d2/(d2+d1*f))
}
