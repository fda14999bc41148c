package analysis

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"strings"
	"testing"
)

// modeSim draws per-mpirun medians of one group: n mpiruns, lognormal
// spread sd about 1 µs; outlier puts one mpirun 1.2-2× slower (uniform);
// slowShare > 0 makes each mpirun slow (ratio× the fast state) with that
// probability.
func modeSim(r *rand.Rand, n int, sd float64, outlier bool, slowShare, ratio float64) []float64 {
	m := make([]float64, n)
	for i := range m {
		v := 1e-6 * math.Exp(sd*r.NormFloat64())
		if slowShare > 0 && r.Float64() < slowShare {
			v *= ratio
		}
		m[i] = v
	}
	if outlier {
		m[r.IntN(n)] *= 1.2 + 0.8*r.Float64()
	}
	return m
}

// modeRate returns the share of reps simulated groups that FindModes
// splits.
func modeRate(seed uint64, reps, n int, sd float64, outlier bool, slowShare, ratio float64) float64 {
	r := rand.New(rand.NewPCG(seed, uint64(n)))
	hits := 0
	for range reps {
		if FindModes(modeSim(r, n, sd, outlier, slowShare, ratio)).Split() {
			hits++
		}
	}
	return float64(hits) / float64(reps)
}

// TestModesSimulation measures the rule's false alarms under the null
// models and its power against a two-state mixture (docs/modes.md). The
// simulation is seeded, so the rates are fixed numbers: the assertions
// are the documented claims (false alarms ≤ 1 % at 10 and 20 mpiruns for
// 2-4 % spread, with and without an outlier mpirun; power for a 1.3×,
// 30 %-slow mixture ≥ 0.80 at 10 mpiruns and ≥ 0.90 at 20; a spread of
// 6 % is outside the null model and shown, not asserted), and with 5000
// groups per cell the simulation's own standard error is below 0.15
// points at a 1 % rate and 0.6 points at 80 %. RB_MODES_TABLE=1
// prints the table in docs/modes.md.
func TestModesSimulation(t *testing.T) {
	const reps = 5000
	var tab strings.Builder
	fmt.Fprintln(&tab, "| mpiruns | spread | null | null + outlier | 1.2×, 30 % slow | 1.3×, 30 % slow | 1.5×, 30 % slow | 1.3×, 10 % slow | 1.3×, 50 % slow |")
	fmt.Fprintln(&tab, "|---|---|---|---|---|---|---|---|---|")
	for _, n := range []int{6, 10, 20, 40} {
		for _, sd := range []float64{0.02, 0.03, 0.04, 0.06} {
			null := modeRate(1, reps, n, sd, false, 0, 1)
			out := modeRate(2, reps, n, sd, true, 0, 1)
			p12 := modeRate(3, reps, n, sd, false, 0.3, 1.2)
			p13 := modeRate(4, reps, n, sd, false, 0.3, 1.3)
			p15 := modeRate(5, reps, n, sd, false, 0.3, 1.5)
			p13a := modeRate(6, reps, n, sd, false, 0.1, 1.3)
			p13b := modeRate(7, reps, n, sd, false, 0.5, 1.3)
			fmt.Fprintf(&tab, "| %d | %.0f %% | %.2f %% | %.2f %% | %.1f %% | %.1f %% | %.1f %% | %.1f %% | %.1f %% |\n",
				n, 100*sd, 100*null, 100*out, 100*p12, 100*p13, 100*p15, 100*p13a, 100*p13b)
			if (n == 10 || n == 20) && sd <= 0.04 && (null > 0.01 || out > 0.01) {
				t.Errorf("%d mpiruns, %.0f %% spread: false alarms %.2f %% (null), %.2f %% (one outlier mpirun); want ≤ 1 %%", n, 100*sd, 100*null, 100*out)
			}
			if sd <= 0.04 && (n == 10 && p13 < 0.80 || n == 20 && p13 < 0.90) {
				t.Errorf("%d mpiruns, %.0f %% spread: power %.1f %% against 1.3×, 30 %% slow", n, 100*sd, 100*p13)
			}
		}
	}
	if os.Getenv("RB_MODES_TABLE") != "" {
		fmt.Print(tab.String())
	}
}

// TestExplainModes checks that a covariate that decides the state is
// named, and that one unrelated to it, or different in every mpirun, is
// not.
func TestExplainModes(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 9))
	med := make([]float64, 20)
	decides, unrelated, distinct := make([]string, 20), make([]string, 20), make([]string, 20)
	for i := range med {
		c := i % 4
		med[i] = 1e-6 * math.Exp(0.03*r.NormFloat64())
		if c%2 == 1 { // odd counts: the slow state
			med[i] *= 1.4
		}
		decides[i] = fmt.Sprint(c)
		unrelated[i] = fmt.Sprint(i / 5)
		distinct[i] = fmt.Sprint(i)
	}
	m := FindModes(med)
	if len(m.Modes) != 2 || m.Modes[1].Share != 0.5 {
		t.Fatalf("modes %+v, want 2 of 10 mpiruns each", m)
	}
	if !explainModes(m, decides) {
		t.Error("the deciding covariate was not named")
	}
	if explainModes(m, unrelated) || explainModes(m, distinct) {
		t.Error("an unrelated covariate, or one different in every mpirun, was named")
	}
	one := FindModes([]float64{1, 1.01, 0.99, 1.02, 1.0, 1.8})
	if one.Split() || len(one.Modes) != 1 {
		t.Errorf("a lone outlier mpirun made modes: %+v", one)
	}
}
