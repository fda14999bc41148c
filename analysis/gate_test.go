package analysis

import (
	"bytes"
	"encoding/xml"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

func TestHolm(t *testing.T) {
	// By Holm's definition (R: p.adjust(c(0.01, 0.04, 0.03, 0.005, NA), "holm")):
	// sorted 0.005, 0.01, 0.03, 0.04 → 0.02, 0.03, 0.06, max(0.06, 0.04).
	got := Holm([]float64{0.01, 0.04, 0.03, 0.005, math.NaN()})
	want := []float64{0.03, 0.06, 0.06, 0.02, math.NaN()}
	for i := range want {
		if math.IsNaN(want[i]) != math.IsNaN(got[i]) || !math.IsNaN(want[i]) && math.Abs(got[i]-want[i]) > 1e-15 {
			t.Fatalf("Holm = %v, want %v", got, want)
		}
	}
}

func TestMinRankSumP(t *testing.T) {
	for _, c := range []struct {
		m, n int
		want float64
	}{{3, 3, 1.0 / 20}, {5, 5, 1.0 / 252}, {10, 10, 1.0 / 184756}, {1, 1, 0.5}, {0, 4, 1}} {
		if got := minRankSumP(c.m, c.n); math.Abs(got-c.want) > 1e-12*c.want {
			t.Errorf("MinRankSumP(%d, %d) = %g, want %g", c.m, c.n, got, c.want)
		}
	}
	// alpha 0.05 over 9 groups: 1/C(8,4) = 1/70 > 0.0056 ≥ 1/C(10,5) = 1/252.
	if k := mpirunsForP(0.05 / 9); k != 5 {
		t.Errorf("MpirunsForP(0.05/9) = %d, want 5", k)
	}
	if k := mpirunsForP(0.05); k != 3 {
		t.Errorf("MpirunsForP(0.05) = %d, want 3 (1/C(6,3) = 0.05)", k)
	}
}

func TestSlowdownTest(t *testing.T) {
	a := []float64{1, 1.01, 1.02}
	// B 20% slower than each A: above 1.10·A everywhere, so the smallest
	// exact p of 3+3 values, 1/20.
	b := []float64{1.2, 1.212, 1.224}
	if r := SlowdownTest(a, b, 0.10); math.Abs(r.P-0.05) > 1e-12 {
		t.Errorf("20%% slower vs threshold 10%%: p = %g, want 0.05", r.P)
	}
	// B 5% slower: inside the threshold, so the largest p, 1.
	b = []float64{1.05, 1.0605, 1.071}
	if r := SlowdownTest(a, b, 0.10); r.P != 1 {
		t.Errorf("5%% slower vs threshold 10%%: p = %g, want 1", r.P)
	}
	if r := SlowdownTest(a, []float64{0, 1, 2}, 0.1); !math.IsNaN(r.P) || r.Warning == "" {
		t.Errorf("zero value: p = %g warning %q, want NaN and a warning", r.P, r.Warning)
	}
}

func gateRow(call string, a, b []float64) Comparison {
	return Comparison{Key: GroupKey{Call: call, MsizeBytes: 8, Np: 2}, MpirunMediansA: a, MpirunMediansB: b}
}

func TestGateDecisions(t *testing.T) {
	base := []float64{1, 1.01, 1.02, 0.99, 1.005, 1.015}
	slow := make([]float64, len(base))
	same := make([]float64, len(base))
	for i, v := range base {
		slow[i] = v * 1.3
		same[i] = v * 1.001
	}
	r := Gate([]Comparison{gateRow("x", base, slow), gateRow("y", base, same)}, GateOptions{Threshold: 0.05, Alpha: 0.05})
	if r.Verdict != Regression || r.Rows[0].Decision != Regression || r.Rows[1].Decision != NoRegression {
		t.Fatalf("verdict %v, rows %v %v: want regression, regression, no-regression", r.Verdict, r.Rows[0].Decision, r.Rows[1].Decision)
	}
	if r.Family != 2 || r.Regressions != 1 || r.Undecided != 0 {
		t.Errorf("family %d regressions %d undecided %d, want 2 1 0", r.Family, r.Regressions, r.Undecided)
	}
	// One mpirun a side: a single value each, undecided whatever the gap.
	r = Gate([]Comparison{gateRow("x", base[:1], slow[:1])}, GateOptions{Threshold: 0.05, Alpha: 0.05})
	if r.Verdict != Undecided || !strings.Contains(r.Rows[0].Reason, "need 3 mpiruns") {
		t.Errorf("1+1 mpiruns: verdict %v reason %q, want undecided and 'need 3 mpiruns'", r.Verdict, r.Rows[0].Reason)
	}
	// Nine groups of 4+4: 1/70 > 0.05/9, undecided even where B is 30% slower.
	var rows []Comparison
	for i := range 9 {
		rows = append(rows, gateRow(string(rune('a'+i)), base[:4], slow[:4]))
	}
	r = Gate(rows, GateOptions{Threshold: 0.05, Alpha: 0.05})
	if r.Verdict != Undecided || r.NeedMpiruns != 5 || r.Undecided != 9 {
		t.Errorf("9 groups of 4+4: verdict %v need %d undecided %d, want undecided 5 9", r.Verdict, r.NeedMpiruns, r.Undecided)
	}
	if r := Gate(nil, GateOptions{Threshold: 0.05, Alpha: 0.05}); r.Verdict != Undecided {
		t.Errorf("no rows: verdict %v, want undecided", r.Verdict)
	}
}

func TestGateJUnit(t *testing.T) {
	base := []float64{1, 1.01, 1.02, 0.99, 1.005}
	slow := []float64{1.3, 1.31, 1.32, 1.29, 1.305}
	r := Gate([]Comparison{gateRow("x", base, slow), gateRow("y", base, base), gateRow("z", base[:1], base[:1])},
		GateOptions{Threshold: 0.05, Alpha: 0.05})
	var buf bytes.Buffer
	if err := r.WriteJUnit(&buf); err != nil {
		t.Fatal(err)
	}
	var got junitSuites
	if err := xml.Unmarshal(buf.Bytes(), &got); err != nil {
		t.Fatalf("JUnit output does not parse: %v\n%s", err, buf.String())
	}
	s := got.Suites[0]
	if s.Tests != 3 || s.Failures != 1 || s.Errors != 1 || s.Cases[0].Failure == nil || s.Cases[2].Error == nil || s.Cases[1].Failure != nil {
		t.Errorf("JUnit suite %+v: want 3 tests, case 0 failed, case 2 error", s)
	}
}

// simGate simulates pairs campaign pairs of groups groups each, with n
// per-mpirun medians a side whose log has mpirun-to-mpirun noise of
// standard deviation σ drawn uniformly from [2 %, 4 %] per pair (heavy:
// Student t with 3 degrees of freedom scaled by σ instead of a normal),
// B truly slower than A by the factor 1+slow in every group. It returns
// the fraction of pairs the gate calls a regression and the fraction of
// groups it calls one.
func simGate(seed uint64, pairs, groups, n int, slow, threshold float64, heavy bool) (campaign, group float64) {
	rng := rand.New(rand.NewPCG(seed, 0x9a7e))
	t3 := func() float64 {
		// Student t(3) = Z / sqrt(χ²₃/3).
		var c float64
		for range 3 {
			z := rng.NormFloat64()
			c += z * z
		}
		return rng.NormFloat64() / math.Sqrt(c/3)
	}
	noise := func(sd float64) float64 {
		if heavy {
			return math.Exp(sd * t3())
		}
		return math.Exp(sd * rng.NormFloat64())
	}
	var nc, ng int
	for range pairs {
		sd := 0.02 + 0.02*rng.Float64()
		rows := make([]Comparison, groups)
		for g := range rows {
			t0 := 1e-6 * float64(g+1)
			a, b := make([]float64, n), make([]float64, n)
			for i := range n {
				a[i] = t0 * noise(sd)
				b[i] = t0 * (1 + slow) * noise(sd)
			}
			rows[g] = gateRow(string(rune('a'+g)), a, b)
		}
		r := Gate(rows, GateOptions{Threshold: threshold, Alpha: 0.05})
		if r.Verdict == Regression {
			nc++
		}
		ng += r.Regressions
	}
	return float64(nc) / float64(pairs), float64(ng) / float64(pairs*groups)
}

// TestGateSimulation measures the gate's false alarms at a true slowdown
// of exactly the threshold and its power at twice the threshold, over 1000
// simulated campaign pairs (seeded) of 10 mpiruns a side. The exact test
// has size ≤ alpha and Holm keeps the family-wise rate ≤ alpha, so the
// false-alarm bound alpha + 3 standard errors of a binomial proportion at
// alpha over 1000 pairs (0.0707) fails by chance with probability < 0.2 %;
// a gate that tested against B/A ≤ 1 instead would alarm in nearly every
// pair. Power: the normal approximation of the rank-sum test with a 9.1 %
// shift on the log scale, σ ≤ 4 % and 10+10 values gives ≥ 0.97 per group
// at alpha/9, so the 0.90 bound has a false-failure rate far below 0.1 %.
func TestGateSimulation(t *testing.T) {
	if testing.Short() {
		t.Skip("simulation")
	}
	const pairs, n, thr = 1000, 10, 0.10
	for _, c := range []struct {
		name   string
		groups int
		heavy  bool
	}{{"normal/1group", 1, false}, {"normal/9groups", 9, false}, {"t3/1group", 1, true}, {"t3/9groups", 9, true}} {
		fa, fag := simGate(1, pairs, c.groups, n, thr, thr, c.heavy)
		pw, pwg := simGate(2, pairs, c.groups, n, 2*thr, thr, c.heavy)
		t.Logf("%s: threshold %g%%, 10+10 mpiruns, σ∈[2%%,4%%]: false alarms %.3f of pairs (%.4f of groups) at slowdown %g%%; power %.3f of pairs (%.3f of groups) at %g%%",
			c.name, 100*thr, fa, fag, 100*thr, pw, pwg, 200*thr)
		if bound := 0.05 + 3*math.Sqrt(0.05*0.95/pairs); fa > bound {
			t.Errorf("%s: false alarms %.3f > %.4f", c.name, fa, bound)
		}
		if pw < 0.90 {
			t.Errorf("%s: power %.3f < 0.90 at twice the threshold", c.name, pw)
		}
	}
}
