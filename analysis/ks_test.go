package analysis

import (
	"math"
	"slices"
)

// ksOneSample is the tests' check that simulated p-values are uniform
// (uniformP), itself checked against R (TestAgainstR, rows "ks1").
//
// ksOneSample performs the one-sample Kolmogorov-Smirnov test of H0: x is a
// sample from the continuous distribution with CDF cdf (Hunold & Carpen-Amarie 2016, §6.2 uses
// it to check normality of per-mpirun means), as R's ks.test(x, cdf):
// two-sided D = sup|Fₙ − F|, "greater" D⁺ = sup(Fₙ − F), "less"
// D⁻ = sup(F − Fₙ).
//
// For n < 100 without ties the p-value is exact (Marsaglia, Tsang and Wang
// 2003 for the two-sided case, the Birnbaum-Tingey formula for one-sided);
// otherwise it is asymptotic (Kolmogorov's limit distribution, and
// exp(−2nD²) one-sided). Note that R evaluates the two-sided limit
// distribution with a tolerance of 1e-6 (a single series term for √n·D < 1),
// so asymptotic p-values above ≈ 0.27 can differ from R in the 4th digit;
// ours are accurate to machine precision.
func ksOneSample(x []float64, cdf func(float64) float64, alt Alternative) TestResult {
	res := TestResult{Method: "one-sample Kolmogorov-Smirnov", DF: math.NaN(), DF2: math.NaN()}
	n := len(x)
	if n == 0 {
		res.Statistic, res.P = math.NaN(), math.NaN()
		res.Warning = "empty sample"
		return res
	}
	s := slices.Clone(x)
	slices.Sort(s)
	ties := false
	var dplus, dminus float64
	fn := float64(n)
	for i, v := range s {
		if i > 0 && v == s[i-1] {
			ties = true
		}
		f := cdf(v)
		dplus = math.Max(dplus, float64(i+1)/fn-f)
		dminus = math.Max(dminus, f-float64(i)/fn)
	}
	var d float64
	switch alt {
	case TwoSided:
		d = math.Max(dplus, dminus)
	case Greater:
		d = dplus
	case Less:
		d = dminus
	}
	res.Statistic = d
	exact := n < 100 && !ties
	if ties {
		res.Warning = "ties should not be present for the Kolmogorov-Smirnov test"
	}
	switch {
	case exact && alt == TwoSided:
		res.Method += " (exact)"
		res.P = 1 - kolmogorovExact(d, n)
	case exact:
		res.Method += " (exact)"
		res.P = smirnovOneSidedExact(d, n)
	case alt == TwoSided:
		res.Method += " (asymptotic)"
		res.P = kolmogorovSurvival(math.Sqrt(fn) * d)
	default:
		res.Method += " (asymptotic)"
		res.P = math.Exp(-2 * fn * d * d)
	}
	res.P = math.Min(1, math.Max(0, res.P))
	return res
}

// smirnovOneSidedExact returns P(D⁺ ≥ d) for sample size n (Birnbaum and
// Tingey 1951): d Σ_{j=0}^{⌊n(1−d)⌋} C(n,j)(1−d−j/n)^{n−j}(d+j/n)^{j−1}.
func smirnovOneSidedExact(d float64, n int) float64 {
	if d <= 0 {
		return 1
	}
	if d >= 1 {
		return 0
	}
	fn := float64(n)
	var s float64
	for j := 0; j <= int(math.Floor(fn*(1-d))); j++ {
		fj := float64(j)
		lc := lchoose(n, j)
		s += math.Exp(lc + (fn-fj)*math.Log(1-d-fj/fn) + (fj-1)*math.Log(d+fj/fn))
	}
	return d * s
}

func lchoose(n, k int) float64 {
	a, _ := math.Lgamma(float64(n + 1))
	b, _ := math.Lgamma(float64(k + 1))
	c, _ := math.Lgamma(float64(n - k + 1))
	return a - b - c
}

// kolmogorovExact returns P(Dₙ < d) by Marsaglia, Tsang and Wang (2003):
// with k = ⌊nd⌋+1, h = k − nd, the (2k−1)×(2k−1) matrix H is raised to the
// n-th power and P = n!/nⁿ · (Hⁿ)_{kk}.
func kolmogorovExact(d float64, n int) float64 {
	if d <= 0 {
		return 0
	}
	if d >= 1 {
		return 1
	}
	fn := float64(n)
	k := int(fn*d) + 1
	m := 2*k - 1
	h := float64(k) - fn*d
	H := make([]float64, m*m)
	for i := 0; i < m; i++ {
		for j := 0; j < m; j++ {
			if i-j+1 >= 0 {
				H[i*m+j] = 1
			}
		}
	}
	for i := 0; i < m; i++ {
		H[i*m] -= math.Pow(h, float64(i+1))
		H[(m-1)*m+i] -= math.Pow(h, float64(m-i))
	}
	if 2*h-1 > 0 {
		H[(m-1)*m] += math.Pow(2*h-1, float64(m))
	}
	for i := 0; i < m; i++ {
		for j := 0; j < m; j++ {
			if i-j+1 > 0 {
				for g := 1; g <= i-j+1; g++ {
					H[i*m+j] /= float64(g)
				}
			}
		}
	}
	Q, eQ := matPow(H, m, n)
	s := Q[(k-1)*m+k-1]
	for i := 1; i <= n; i++ {
		s = s * float64(i) / fn
		if s < 1e-140 {
			s *= 1e140
			eQ -= 140
		}
	}
	return s * math.Pow(10, float64(eQ))
}

// matPow returns A^n as (matrix, decimal exponent), rescaling to avoid
// overflow.
func matPow(A []float64, m, n int) ([]float64, int) {
	if n == 1 {
		return slices.Clone(A), 0
	}
	B, eB := matPow(A, m, n/2)
	V := matMul(B, B, m)
	eV := 2 * eB
	if n%2 == 1 {
		V = matMul(A, V, m)
	}
	if V[(m/2)*m+m/2] > 1e140 {
		for i := range V {
			V[i] *= 1e-140
		}
		eV += 140
	}
	return V, eV
}

func matMul(A, B []float64, m int) []float64 {
	C := make([]float64, m*m)
	for i := 0; i < m; i++ {
		for k := 0; k < m; k++ {
			a := A[i*m+k]
			if a == 0 {
				continue
			}
			for j := 0; j < m; j++ {
				C[i*m+j] += a * B[k*m+j]
			}
		}
	}
	return C
}

// kolmogorovSurvival returns 1 − K(x) for Kolmogorov's limit distribution
// K(x) = 1 − 2Σ(−1)^{k−1} e^{−2k²x²}.
func kolmogorovSurvival(x float64) float64 {
	if x <= 0 {
		return 1
	}
	if x < 1 {
		// K(x) = √(2π)/x Σ_{k odd} exp(−k²π²/(8x²)).
		var s float64
		for k := 1; k < 41; k += 2 {
			s += math.Exp(-float64(k*k) * math.Pi * math.Pi / (8 * x * x))
		}
		return 1 - math.Sqrt(2*math.Pi)/x*s
	}
	var s float64
	sg := 1.0
	for k := 1; k <= 100; k++ {
		t := math.Exp(-2 * float64(k*k) * x * x)
		s += sg * t
		sg = -sg
		if t < 1e-300 {
			break
		}
	}
	return 2 * s
}
