package analysis

import (
	"math"
	"slices"
)

// Density is a kernel density estimate evaluated on a grid.
type Density struct {
	X, Y      []float64 // grid points (ascending) and density at each
	Bandwidth float64   // the Gaussian kernel's standard deviation
}

// KernelDensity returns the Gaussian kernel density estimate of x on points
// (≥ 2) evenly spaced grid points from min(x) to max(x), with Silverman's
// rule-of-thumb bandwidth 0.9·min(sd, IQR/1.34)·n^(−1/5) (R's bw.nrd0). For
// speed the observations are first counted in 512 bins over the range, so
// the cost is O(points·512) whatever len(x); that moves each observation by
// at most half a bin, far below the bandwidth for any sample worth a
// density. x need not be sorted and is not modified; NaNs are not allowed.
// Densities integrate to about 1. An empty x gives an empty Density; a
// sample without spread gets a bandwidth of 1e-3 of its magnitude.
//
// The violins of "reprobench plot --kind violin" are this density; for a
// log axis pass log10 of the values.
func KernelDensity(x []float64, points int) Density {
	if len(x) == 0 {
		return Density{}
	}
	points = max(points, 2)
	s := slices.Clone(x)
	slices.Sort(s)
	n := float64(len(s))
	iqr := Quantile(0.75, s) - Quantile(0.25, s)
	sd := StdDev(s)
	spread := sd
	if iqr > 0 && (math.IsNaN(sd) || iqr/1.34 < sd) {
		spread = iqr / 1.34
	}
	h := 0.9 * spread * math.Pow(n, -0.2)
	if !(h > 0) {
		h = math.Max(math.Abs(s[0])*1e-3, 1e-12)
	}
	const bins = 512
	lo, hi := s[0], s[len(s)-1]
	counts := make([]float64, bins)
	bw := (hi - lo) / bins
	for _, v := range s {
		b := 0
		if bw > 0 {
			b = min(bins-1, int((v-lo)/bw))
		}
		counts[b]++
	}
	d := Density{X: make([]float64, points), Y: make([]float64, points), Bandwidth: h}
	norm := 1 / (n * h * math.Sqrt(2*math.Pi))
	for i := range d.X {
		xi := lo + (hi-lo)*float64(i)/float64(points-1)
		var sum float64
		for b, c := range counts {
			if c == 0 {
				continue
			}
			z := (xi - (lo + (float64(b)+0.5)*bw)) / h
			sum += c * math.Exp(-0.5*z*z)
		}
		d.X[i], d.Y[i] = xi, sum*norm
	}
	return d
}

// Filtered returns the observations of g that AnalyzeGroup keeps: each
// mpirun's runtimes with Tukey's fences of constant k applied to that
// mpirun alone (Hunold & Carpen-Amarie 2016, Alg. 6, remove_outliers; k = 0 keeps all),
// pooled in mpirun order, each mpirun's values sorted. The box, violin and
// quantile-regression plots show these.
func Filtered(g *Group, k float64) []float64 {
	order, byMp := byMpirun(g)
	var out []float64
	for _, m := range order {
		x := byMp[m]
		slices.Sort(x)
		kept, _ := tukeySorted(x, k)
		out = append(out, kept...)
	}
	return out
}
