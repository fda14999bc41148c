package analysis

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// stopDist is a distribution of observations with a known quantile.
type stopDist struct {
	name string
	draw func(r *rand.Rand) float64
	cdf  func(x float64) float64 // nil: the quantile is given
	q50  float64                 // the true median when cdf is nil
}

// quantileOf returns the p-quantile of d by bisection on its CDF (or
// q50 for the median of a distribution without one).
func (d stopDist) quantileOf(p float64) float64 {
	if d.cdf == nil {
		if p != 0.5 {
			panic("no CDF for " + d.name)
		}
		return d.q50
	}
	lo, hi := 0.0, 100.0
	for range 200 {
		mid := (lo + hi) / 2
		if d.cdf(mid) < p {
			lo = mid
		} else {
			hi = mid
		}
	}
	return (lo + hi) / 2
}

// stopDists are the simulated runtimes, scaled near 1 (seconds are
// irrelevant: the rule is relative): normal, a shifted lognormal
// (skewed), a shifted Pareto with α = 1.5 (heavy tail, infinite
// variance), and a bimodal mixture whose median lies in the lower mode's
// upper flank, where the density changes fastest, and a trimodal one
// whose median lies in the trough between two modes (as the fake
// communicator's runtimes with frequent latency spikes do), where an
// interval is narrow only when it happens to sit on a mode.
var stopDists = []stopDist{
	{name: "normal", draw: func(r *rand.Rand) float64 { return 1 + 0.05*r.NormFloat64() },
		cdf: func(x float64) float64 { return normCDF((x - 1) / 0.05) }},
	{name: "lognormal", draw: func(r *rand.Rand) float64 { return 1 + 0.1*math.Exp(r.NormFloat64()) },
		cdf: func(x float64) float64 {
			if x <= 1 {
				return 0
			}
			return normCDF(math.Log((x - 1) / 0.1))
		}},
	{name: "pareto1.5", draw: func(r *rand.Rand) float64 { return 1 + 0.02*math.Pow(1-r.Float64(), -1/1.5) },
		cdf: func(x float64) float64 {
			if x <= 1.02 {
				return 0
			}
			return 1 - math.Pow((x-1)/0.02, -1.5)
		}},
	{name: "bimodal", draw: func(r *rand.Rand) float64 {
		if r.Float64() < 0.6 {
			return 1 + 0.02*r.NormFloat64()
		}
		return 1.15 + 0.02*r.NormFloat64()
	},
		cdf: func(x float64) float64 { return 0.6*normCDF((x-1)/0.02) + 0.4*normCDF((x-1.15)/0.02) }},
	{name: "trough", draw: func(r *rand.Rand) float64 {
		switch u := r.Float64(); {
		case u < 0.5:
			return 1 + 0.06*r.NormFloat64()
		case u < 0.9:
			return 1.3 + 0.06*r.NormFloat64()
		}
		return 1.6 + 0.06*r.NormFloat64()
	},
		cdf: func(x float64) float64 {
			return 0.5*normCDF((x-1)/0.06) + 0.4*normCDF((x-1.3)/0.06) + 0.1*normCDF((x-1.6)/0.06)
		}},
}

// stopCoverage runs reps seeded replications of rule on d and returns
// the fraction of final intervals that cover the true quantile, the mean
// number of observations and the fraction stopped by the cap.
func stopCoverage(d stopDist, rule StopRule, reps int, seed uint64) (cov, meanN, capped float64) {
	rule = rule.WithDefaults()
	truth := d.quantileOf(rule.Quantile)
	rng := rand.New(rand.NewPCG(seed, 0x5eed))
	hits, sumN, caps := 0, 0, 0
	buf, tmp := make([]float64, 0, rule.Max), make([]float64, 0, rule.Max)
	for range reps {
		buf = buf[:0]
		c, met := runStop(rule, func(k int) []float64 {
			n0 := len(buf)
			for range k {
				buf = append(buf, d.draw(rng))
			}
			tmp = mergeSortedInto(tmp[:0], buf[:n0], buf[n0:])
			buf, tmp = tmp, buf
			return buf
		})
		if c.Lo <= truth && truth <= c.Hi {
			hits++
		}
		sumN += c.N
		if !met {
			caps++
		}
	}
	return float64(hits) / float64(reps), float64(sumN) / float64(reps), float64(caps) / float64(reps)
}

// mergeSortedInto appends to dst the sorted a (sorted already) merged with b
// (sorted here, in place).
func mergeSortedInto(dst, a, b []float64) []float64 {
	slices.Sort(b)
	i, j := 0, 0
	for i < len(a) && j < len(b) {
		if a[i] <= b[j] {
			dst = append(dst, a[i])
			i++
		} else {
			dst = append(dst, b[j])
			j++
		}
	}
	return append(append(dst, a[i:]...), b[j:]...)
}

// stopScenario is one row of the coverage table.
type stopScenario struct {
	dist     int // index into stopDists
	quantile float64
	width    float64
}

// stopScenarios pick, per distribution, widths at which the rule stops
// early (near the minimum), in the middle, and late, between the default
// minimum of 100 and the cap of 10000.
var stopScenarios = []stopScenario{
	{0, 0.5, 0.01}, {0, 0.5, 0.005}, {0, 0.5, 0.002},
	{1, 0.5, 0.01}, {1, 0.5, 0.005}, {1, 0.5, 0.003},
	{2, 0.5, 0.005}, {2, 0.5, 0.002}, {2, 0.5, 0.001},
	{3, 0.5, 0.02}, {3, 0.5, 0.01}, {3, 0.5, 0.005},
	{4, 0.5, 0.08}, {4, 0.5, 0.05}, {4, 0.5, 0.03},
	{1, 0.9, 0.02}, {1, 0.9, 0.01}, {2, 0.9, 0.02}, {2, 0.9, 0.01},
}

// TestStopCoverage measures the actual coverage of the nominal 95 %
// interval that StopRule stops with, by simulation (2000 seeded
// replications per scenario), and asserts it is at least 93 % for the
// default rule, except where the median lies in a deep trough between
// modes (see the floor below). False-failure rate: where the true coverage is 95 %, the
// estimate over n = 2000 has a standard error of √(0.95·0.05/2000) =
// 0.0049, so 0.93 is 4.1 standard errors below it (one-sided binomial
// tail ≈ 2·10⁻⁵ per scenario, < 5·10⁻⁴ over the 19 scenarios); a true
// coverage of 0.94 fails with probability 2 %. The seeds are fixed, so the
// outcome is deterministic; the rate says how lucky a fixed seed would
// have to be to hide a rule whose coverage is below 93 %. With -v it logs
// the table of docs/adaptive.md, including the plain rule (the nominal
// level without the correction: Level 0.9 makes IntervalLevel 0.95).
func TestStopCoverage(t *testing.T) {
	if testing.Short() {
		t.Skip("simulation")
	}
	const reps = 2000
	var tab strings.Builder
	fmt.Fprintf(&tab, "| distribution | quantile | width | coverage | mean n | capped | plain rule: coverage | mean n |\n|---|---|---|---|---|---|---|---|\n")
	for i, sc := range stopScenarios {
		d := stopDists[sc.dist]
		rule := StopRule{Width: sc.width, Quantile: sc.quantile}
		seed := uint64(1000 + i)
		cov, n, capped := stopCoverage(d, rule, reps, seed)
		cov1, n1 := math.NaN(), math.NaN()
		if testing.Verbose() { // the plain rule (95 % interval judged and reported), for the table only
			rule.Level = 0.9
			cov1, n1, _ = stopCoverage(d, rule, reps, seed)
		}
		fmt.Fprintf(&tab, "| %s | %g | ±%g %% | %.3f | %.0f | %.2f | %.3f | %.0f |\n", d.name, sc.quantile, 100*sc.width, cov, n, capped, cov1, n1)
		// The median in a deep trough between modes is the rule's known
		// weak spot (docs/adaptive.md): there it is held to a floor of
		// 0.88 (4.6 standard errors below 0.93), elsewhere to 0.93.
		floor := 0.93
		if d.name == "trough" {
			floor = 0.88
		}
		if cov < floor {
			t.Errorf("%s, quantile %g, width %g: coverage %.3f < %g (seed %d)", d.name, sc.quantile, sc.width, cov, floor, seed)
		}
	}
	t.Logf("coverage of the nominal 95 %% interval, %d replications each, minimum %d, cap %d:\n%s", reps, DefaultStopMin, DefaultStopMax, tab.String())
}

func TestStopRule(t *testing.T) {
	r := StopRule{}.WithDefaults()
	if r.Width != 0.01 || r.Quantile != 0.5 || r.Level != 0.95 || r.Min != 100 || r.Max != 10000 || r.Confirm != 1 || r.IntervalLevel() != 0.975 {
		t.Fatalf("defaults %+v", r)
	}
	// Looks at 100, 125, 157, …, never past the cap.
	if r.NextLook(0) != 100 || r.NextLook(100) != 125 || r.NextLook(125) != 157 || r.NextLook(9999) != 10000 || r.NextLook(10000) != 10000 {
		t.Errorf("NextLook: %d %d %d %d", r.NextLook(0), r.NextLook(100), r.NextLook(125), r.NextLook(9999))
	}
	for _, bad := range []StopRule{{Width: 1}, {Width: -0.1}, {Quantile: 1}, {Level: 1.5}, {Min: 10, Max: 5}, {Min: -1}, {Confirm: -1}} {
		if bad.Check() == nil {
			t.Errorf("Check(%+v) = nil", bad)
		}
	}
	// A constant-ish sample is within any width; too few observations
	// have no interval.
	x := make([]float64, 200)
	for i := range x {
		x[i] = 100 + float64(i%20)/10
	}
	if c := r.Judge(x); !c.Within || !(c.Lo <= c.Estimate && c.Estimate <= c.Hi) || c.Reached > 0.01 {
		t.Errorf("Judge = %+v", c)
	}
	if c := r.Judge(x[:5]); c.Within || !math.IsInf(c.Reached, 1) || !math.IsNaN(c.Lo) {
		t.Errorf("Judge(5 obs) = %+v", c)
	}
	// Judge agrees with medianCIStop, the one-look rule, at the
	// corrected level.
	if r.Judge(x).Within != medianCIStop(x, 0.01, 0.975) {
		t.Error("Judge and MedianCIStop disagree")
	}
	s := NewStopper(StopRule{Confirm: 2})
	if s.Look(x) || !s.Look(x) || !s.Met() || s.Looks() != 2 {
		t.Error("Stopper needs two consecutive looks within the width")
	}
	// The cap stops a sample that never narrows.
	rng := rand.New(rand.NewPCG(1, 2))
	c, met := runStop(StopRule{Width: 1e-6, Max: 300}, func(k int) []float64 {
		for range k {
			x = append(x, rng.ExpFloat64())
		}
		return x
	})
	if met || c.N != len(x) {
		t.Errorf("RunStop with an unreachable width: met %v at %d observations", met, c.N)
	}
}

// runStop runs the rule r on a sequential source: draw(k) appends k new
// valid-or-not observations and returns the valid ones so far (a growing
// slice). It takes observations to NextLook until the rule is met or Max
// are taken, and returns the last look and whether the rule was met (false:
// the cap stopped it). It is the loop the engine runs, for the simulations of the tests.
func runStop(r StopRule, draw func(k int) []float64) (StopCheck, bool) {
	s := NewStopper(r)
	r = s.rule
	n := 0
	var valid []float64
	for {
		next := r.NextLook(n)
		valid = draw(next - n)
		n = next
		if s.Look(valid) {
			return s.last, true
		}
		if n >= r.Max {
			return s.last, false
		}
	}
}
