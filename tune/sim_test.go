package tune_test

import (
	"math"
	"testing"

	"github.com/reprobench/reprobench/tune"
	"gonum.org/v1/gonum/stat/distuv"
)

// vmModes is this VM's mode flip between mpirun: in about half the
// mpiruns every cell is 3.5–4.7 times slower (1 MiB allreduce: 270 µs
// against 950–1260 µs), with 3 % spread within a mode.
func vmModes(seed uint64, campaigns, candidates int, factor float64) tune.SimConfig {
	return tune.SimConfig{Seed: seed, Campaigns: campaigns, Cells: 18, Candidates: candidates,
		PHigh: 0.5, HighLo: 3.5, HighHi: 4.7, Spread: 0.03, DefaultFactor: factor}
}

// TestFalseDecisions: 400 seeded campaigns of 18 cells whose three
// candidates are one algorithm under three names, with this VM's mode
// flips, decided with the defaults (5 % threshold, Holm over the
// campaign at alpha 0.05, Plan's 6 mpiruns per candidate). The 95 %
// Clopper-Pearson upper bound of the rate of campaigns that replace any
// default must be at most 5 %.
//
// False-failure rate: the reference run of the same model over 10 000
// campaigns, tune.SimulateFalseDecisions(vmModes(7, 10000, 3, 1)) (6 s),
// replaced a default in 19 (rate 0.0019, upper bound 0.0030). The test
// fails when 400 campaigns give x or more, with x the
// smallest count whose upper bound exceeds 0.05; at a true rate of
// 0.0030 that has probability P(Binomial(400, 0.0030) ≥ x), computed
// below and required to be under 1e-6.
func TestFalseDecisions(t *testing.T) {
	const seed, n = 20261129, 400
	r, err := tune.SimulateFalseDecisions(vmModes(seed, n, 3, 1))
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("seed %d: %v", seed, r)
	if r.Upper > 0.05 {
		t.Errorf("identical candidates: %v; the upper bound must be ≤ 0.05", r)
	}
	x := 0
	for tune.ClopperPearsonUpper(x, n, 0.95) <= 0.05 {
		x++
	}
	ff := distuv.Binomial{N: n, P: 0.0030}.Survival(float64(x) - 0.5)
	t.Logf("the test fails at %d or more of %d campaigns: false-failure rate %.2g at a true rate of 0.0030", x, n, ff)
	if ff > 1e-6 {
		t.Errorf("false-failure rate %.2g > 1e-6", ff)
	}
}

// TestPositiveControl: the default is truly 1.3 times slower than the
// other candidates. Without modes, Plan's mpiruns replace it in every
// cell of 200 campaigns; with this VM's modes, 20 mpiruns per candidate
// replace it in most campaigns (reference: seed 1, 1000 campaigns, 0.3
// slow mpiruns: 68 %; at 0.5: 46 %).
func TestPositiveControl(t *testing.T) {
	cfg := vmModes(11, 200, 2, 1.3)
	cfg.PHigh = 0
	r, err := tune.SimulateFalseDecisions(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("no modes: %v", r)
	// At 3 % spread a 1.3× slower default against a 1.05× threshold is
	// separated in every mpirun pair unless a draw is 3.5 σ out (ratio of
	// 1.238 = 7.1 log-σ of the difference): per cell under 1e-3 of pairs
	// touch it, so missing more than 1 % of 3600 cells has probability
	// far below 1e-9.
	if float64(r.ReplacedCells) < 0.99*float64(r.Cells) {
		t.Errorf("slower default, no modes: %v; want ≥ 99 %% of cells replaced", r)
	}
	cfg = vmModes(12, 200, 2, 1.3)
	cfg.PHigh, cfg.Mpiruns = 0.3, 20
	r, err = tune.SimulateFalseDecisions(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("modes (0.3 slow mpiruns), 20 mpiruns per candidate: %v", r)
	// Reference rate 0.68 per campaign; 200 campaigns fall below 0.5 with
	// probability under 1e-7 (z = −5.6).
	if r.Rate < 0.5 {
		t.Errorf("slower default with modes: %v; want ≥ 50 %% of campaigns", r)
	}
}

// ClopperPearsonUpper against the definition: the p at which
// P(Binomial(n, p) ≤ x) = 0.025, by bisection on the exact binomial sum
// (Python 3, math.comb; for x = 0 also the closed form 1 − 0.025^(1/n)).
func TestClopperPearsonUpper(t *testing.T) {
	for _, c := range []struct {
		x, n int
		want float64
	}{
		{0, 200, 0.0182753},
		{4, 200, 0.0504136},
		{20, 10000, 0.00308716},
	} {
		got := tune.ClopperPearsonUpper(c.x, c.n, 0.95)
		if math.Abs(got-c.want) > 1e-5*c.want {
			t.Errorf("ClopperPearsonUpper(%d, %d) = %.6g, want %.6g", c.x, c.n, got, c.want)
		}
	}
}
