package analysis

import (
	"math"
	"testing"
)

func TestTimeUnitScaling(t *testing.T) {
	for _, c := range []struct {
		v    float64
		want string
	}{
		{5.5e-10, "0.550ns"}, {1.234e-8, "12.3ns"}, {9.994e-7, "999ns"}, {1.5e-6, "1.50µs"},
		{2.5e-4, "250µs"}, {0.0123, "12.3ms"}, {3.21, "3.21s"},
	} {
		if got := FormatTime(c.v); got != c.want {
			t.Errorf("FormatTime(%g) = %q, want %q", c.v, got, c.want)
		}
	}
	if got := FormatTimeScaledPair(1.0001e-6, 1.0002e-6, 1e6, "µs"); got != "1.0001µs, 1.0002µs" {
		t.Errorf("narrow interval printed as %q", got)
	}
}

// TestKernelDensityMatchesExact compares the binned density with the
// exact Gaussian kernel sum (bandwidth bw.nrd0) on a skewed sample.
func TestKernelDensityMatchesExact(t *testing.T) {
	rng := newRNG(t, 11)
	x := lognormalSample(rng, 3000)
	d := KernelDensity(x, 50)
	s := sorted(x)
	h := 0.9 * math.Min(StdDev(s), (Quantile(0.75, s)-Quantile(0.25, s))/1.34) * math.Pow(3000, -0.2)
	if math.Abs(d.Bandwidth-h) > 1e-12*h {
		t.Fatalf("bandwidth %g, want %g", d.Bandwidth, h)
	}
	var area float64
	for i, xi := range d.X {
		var sum float64
		for _, v := range x {
			z := (xi - v) / h
			sum += math.Exp(-0.5 * z * z)
		}
		exact := sum / (3000 * h * math.Sqrt(2*math.Pi))
		if math.Abs(d.Y[i]-exact) > 0.01*exact+1e-3 {
			t.Errorf("density at %g: %g, exact %g", xi, d.Y[i], exact)
		}
		if i > 0 {
			area += (d.X[i] - d.X[i-1]) * (d.Y[i] + d.Y[i-1]) / 2
		}
	}
	if area < 0.95 || area > 1.01 {
		t.Errorf("density integrates to %g over the sample's range", area)
	}
}

func TestFormatTimeSigned(t *testing.T) {
	for _, c := range []struct {
		v    float64
		want string
	}{{1.2e-6, "+1.20µs"}, {-3e-7, "-0.300µs"}, {0, "0µs"}, {math.NaN(), "-"}} {
		if got := FormatTimeSigned(c.v, 1e6, "µs"); got != c.want {
			t.Errorf("FormatTimeSigned(%g) = %q, want %q", c.v, got, c.want)
		}
	}
}
