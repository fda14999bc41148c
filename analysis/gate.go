package analysis

import (
	"encoding/json"
	"encoding/xml"
	"fmt"
	"io"
	"math"
	"sort"
	"strings"
)

// GateDecision is the outcome of a regression gate, for one group or for a
// whole comparison.
type GateDecision int

const (
	// NoRegression: H0 "B/A ≤ 1 + threshold" was not rejected, and the
	// test could have rejected it with these sample sizes.
	NoRegression GateDecision = iota
	// Regression: H0 was rejected at the family-wise level alpha: B is
	// slower than A by more than the threshold.
	Regression
	// Undecided: too few mpiruns on a side for the test to reject H0 at
	// alpha whatever the data (or no valid values).
	Undecided
)

// String returns "no-regression", "regression" or "undecided".
func (d GateDecision) String() string {
	switch d {
	case Regression:
		return "regression"
	case Undecided:
		return "undecided"
	}
	return "no-regression"
}

// MarshalText encodes the decision as its String, for JSON.
func (d GateDecision) MarshalText() ([]byte, error) { return []byte(d.String()), nil }

// GateOptions configures Gate.
type GateOptions struct {
	// Threshold is the tolerated slowdown as a fraction: 0.05 means B may
	// be up to 5 % slower than A before the gate calls it a regression.
	// It must be ≥ 0.
	Threshold float64
	// Alpha is the family-wise error rate over all groups, in (0, 1).
	Alpha float64
}

// GateRow is the gate's decision for one matched group.
type GateRow struct {
	Key          GroupKey `json:"-"`
	Group        string   `json:"group"` // Key.String()
	NameA, NameB string   `json:"-"`
	// NA, NB are the mpiruns per side (the test's sample sizes).
	NA int `json:"n_a"`
	NB int `json:"n_b"`
	// MedianA, MedianB are the medians of the per-mpirun medians, in
	// seconds.
	MedianA float64 `json:"median_a_s"`
	MedianB float64 `json:"median_b_s"`
	// Ratio is the Hodges-Lehmann ratio (JSON: hl_ratio): exp of the
	// Hodges-Lehmann estimate of log B − log A over the per-mpirun
	// medians, the estimate of the log-scale shift factor the gate tests
	// (NaN when not computable); Comparison.RatioShift of the same rows.
	Ratio float64 `json:"hl_ratio"`
	// P is the one-sided rank-sum p-value of H0 "B/A ≤ 1 + threshold";
	// PHolm is Holm's adjusted p over the gate's family (NaN when the
	// group has no valid test).
	P     float64 `json:"p"`
	PHolm float64 `json:"p_holm"`
	// MinP is the smallest p-value the exact one-sided test can attain
	// with NA and NB values: 1/C(NA+NB, NA).
	MinP     float64      `json:"min_attainable_p"`
	Decision GateDecision `json:"decision"`
	// Reason says in words why the decision was taken.
	Reason string `json:"reason"`
}

// MarshalJSON encodes the row with NaN values as null (JSON has no NaN).
func (g GateRow) MarshalJSON() ([]byte, error) {
	num := func(v float64) any {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil
		}
		return v
	}
	return json.Marshal(struct {
		Group    string       `json:"group"`
		A        string       `json:"a,omitempty"`
		B        string       `json:"b,omitempty"`
		NA       int          `json:"n_a"`
		NB       int          `json:"n_b"`
		MedianA  any          `json:"median_a_s"`
		MedianB  any          `json:"median_b_s"`
		Ratio    any          `json:"hl_ratio"`
		P        any          `json:"p"`
		PHolm    any          `json:"p_holm"`
		MinP     any          `json:"min_attainable_p"`
		Decision GateDecision `json:"decision"`
		Reason   string       `json:"reason"`
	}{g.Group, g.NameA, g.NameB, g.NA, g.NB, num(g.MedianA), num(g.MedianB), num(g.Ratio), num(g.P), num(g.PHolm), num(g.MinP), g.Decision, g.Reason})
}

// GateReport is the gate's verdict over all groups of a comparison.
type GateReport struct {
	Method    string  `json:"method"`
	Threshold float64 `json:"threshold"` // fraction (0.05 = 5 %)
	Alpha     float64 `json:"alpha"`
	// Family is the number of groups with a valid test: the size of
	// Holm's family.
	Family int `json:"family"`
	// Verdict is Regression if any group regressed, else Undecided if any
	// group is undecided (or there is no group), else NoRegression.
	Verdict     GateDecision `json:"verdict"`
	Regressions int          `json:"regressions"`
	Undecided   int          `json:"undecided"`
	// NeedMpiruns is the number of mpiruns per side (equal sides) for
	// which the smallest attainable p passes Holm's first step,
	// alpha/Family; with fewer, no group can be declared a regression.
	NeedMpiruns int       `json:"need_mpiruns_per_side"`
	Rows        []GateRow `json:"groups"`
	// Differences are what the sides' provenance records say differed
	// between them and across one side's mpiruns
	// (provenance.Differences), listed beside the verdict.
	Differences []string `json:"provenance_differences,omitempty"`
}

// gateMethod names the gate's test in reports.
const gateMethod = "one-sided Wilcoxon rank-sum on per-mpirun medians of H0: B/A <= 1+threshold (log B - log(1+threshold) vs log A), Holm across groups"

// SlowdownTest is the one-sided Wilcoxon rank-sum test of H0 "B/A ≤ 1 +
// threshold" against "B is slower than A by more than the threshold", on
// positive values a (baseline) and b (candidate), usually per-mpirun
// medians (Hunold, Carpen-Amarie & Träff 2014: the mpirun is the unit).
// The ratio is a location shift on the log scale, so the test is
// WilcoxonRankSum(log b − log(1+threshold), log a, Greater); at a true
// slowdown of exactly the threshold its size is at most alpha. A value
// ≤ 0, NaN or Inf gives p = NaN and a warning.
func SlowdownTest(a, b []float64, threshold float64) TestResult {
	bad := func(x []float64) bool {
		for _, v := range x {
			if !(v > 0) || math.IsInf(v, 1) {
				return true
			}
		}
		return false
	}
	if bad(a) || bad(b) {
		return TestResult{Method: "Wilcoxon rank-sum", Statistic: math.NaN(), DF: math.NaN(), DF2: math.NaN(), P: math.NaN(),
			Warning: "a value ≤ 0, NaN or infinite: no ratio test"}
	}
	la := make([]float64, len(a))
	for i, v := range a {
		la[i] = math.Log(v)
	}
	shift := math.Log1p(threshold)
	lb := make([]float64, len(b))
	for i, v := range b {
		lb[i] = math.Log(v) - shift
	}
	return WilcoxonRankSum(lb, la, Greater)
}

// minRankSumP returns the smallest p-value of the exact one-sided
// rank-sum test with m and n values: 1/C(m+n, m). It is 1 when a side is
// empty.
func minRankSumP(m, n int) float64 {
	if m <= 0 || n <= 0 {
		return 1
	}
	// log C(m+n, m) by lgamma, exact enough for a threshold comparison.
	lg := func(x int) float64 { v, _ := math.Lgamma(float64(x) + 1); return v }
	return math.Exp(-(lg(m+n) - lg(m) - lg(n)))
}

// mpirunsForP returns the smallest k such that k values per side let the
// exact one-sided rank-sum test reach p ≤ p0 (1/C(2k, k) ≤ p0); 0 when
// p0 ≥ 1 and -1 when p0 ≤ 0.
func mpirunsForP(p0 float64) int {
	if p0 >= 1 {
		return 0
	}
	if !(p0 > 0) {
		return -1
	}
	for k := 1; ; k++ {
		if minRankSumP(k, k) <= p0 {
			return k
		}
	}
}

// Holm returns Holm's step-down adjusted p-values of p, in the same order
// (Holm 1979): with the m non-NaN values sorted ascending, the j-th (from
// 0) is adjusted to max over i ≤ j of min(1, (m−i)·p_(i)). Rejecting where
// the adjusted value is ≤ alpha controls the family-wise error rate at
// alpha under any dependence. NaN entries stay NaN and are not counted.
func Holm(p []float64) []float64 {
	idx := make([]int, 0, len(p))
	for i, v := range p {
		if !math.IsNaN(v) {
			idx = append(idx, i)
		}
	}
	sort.SliceStable(idx, func(a, b int) bool { return p[idx[a]] < p[idx[b]] })
	out := make([]float64, len(p))
	for i := range out {
		out[i] = math.NaN()
	}
	m := len(idx)
	run := 0.0
	for j, i := range idx {
		run = math.Max(run, math.Min(1, float64(m-j)*p[i]))
		out[i] = run
	}
	return out
}

// Gate decides, for every compared group, whether B regressed against A
// by more than opt.Threshold: SlowdownTest on the per-mpirun medians
// (Comparison.MpirunMediansA, MpirunMediansB) of each row, Holm's
// correction over the groups with a valid test, and a group is a
// regression when its Holm-adjusted p is ≤ opt.Alpha. It never tests
// single observations: a side with one mpirun gives one value, and such
// a group is undecided. A group is undecided when Family·MinP > Alpha,
// i.e. no data could make it pass Holm's first step. It panics when
// opt.Alpha is not in (0, 1) or opt.Threshold is negative or NaN.
func Gate(rows []Comparison, opt GateOptions) GateReport {
	if !(opt.Alpha > 0 && opt.Alpha < 1) {
		panic(fmt.Sprintf("analysis: Gate: alpha %g not in (0, 1)", opt.Alpha))
	}
	if !(opt.Threshold >= 0) {
		panic(fmt.Sprintf("analysis: Gate: threshold %g < 0 or NaN", opt.Threshold))
	}
	r := GateReport{Method: gateMethod, Threshold: opt.Threshold, Alpha: opt.Alpha}
	ps := make([]float64, len(rows))
	for i, c := range rows {
		g := GateRow{Key: c.Key, Group: c.Key.String(), NameA: c.NameA, NameB: c.NameB,
			NA: len(c.MpirunMediansA), NB: len(c.MpirunMediansB)}
		g.MedianA, g.MedianB = Median(c.MpirunMediansA), Median(c.MpirunMediansB)
		g.Ratio, _ = ratioShift(c.MpirunMediansA, c.MpirunMediansB, 0.95)
		g.MinP = minRankSumP(g.NA, g.NB)
		res := SlowdownTest(c.MpirunMediansA, c.MpirunMediansB, opt.Threshold)
		g.P = res.P
		if g.NA == 0 || g.NB == 0 {
			g.P = math.NaN()
			g.Reason = "no per-mpirun medians on a side"
		} else if res.Warning != "" {
			g.Reason = res.Warning
		}
		ps[i] = g.P
		r.Rows = append(r.Rows, g)
	}
	adj := Holm(ps)
	for _, p := range ps {
		if !math.IsNaN(p) {
			r.Family++
		}
	}
	fam := max(r.Family, 1)
	r.NeedMpiruns = mpirunsForP(opt.Alpha / float64(fam))
	pct := 100 * opt.Threshold
	for i := range r.Rows {
		g := &r.Rows[i]
		g.PHolm = adj[i]
		switch {
		case math.IsNaN(g.P):
			g.Decision = Undecided
			if g.Reason == "" {
				g.Reason = "no valid test"
			}
		case g.PHolm <= opt.Alpha:
			g.Decision = Regression
			g.Reason = fmt.Sprintf("B slower than A by more than %g%%: Holm p %.3g <= alpha %g", pct, g.PHolm, opt.Alpha)
		case float64(fam)*g.MinP > opt.Alpha:
			g.Decision = Undecided
			g.Reason = fmt.Sprintf("%d+%d mpiruns: smallest attainable p %.3g > alpha/%d = %.3g; need %d mpiruns per side",
				g.NA, g.NB, g.MinP, fam, opt.Alpha/float64(fam), r.NeedMpiruns)
		default:
			g.Decision = NoRegression
			g.Reason = fmt.Sprintf("no slowdown beyond %g%% shown: Holm p %.3g > alpha %g", pct, g.PHolm, opt.Alpha)
		}
		switch g.Decision {
		case Regression:
			r.Regressions++
		case Undecided:
			r.Undecided++
		}
	}
	switch {
	case r.Regressions > 0:
		r.Verdict = Regression
	case r.Undecided > 0 || len(r.Rows) == 0:
		r.Verdict = Undecided
	default:
		r.Verdict = NoRegression
	}
	return r
}

// Summary returns one line that states the verdict, e.g. "regression: 2
// of 9 groups slower by more than 5% (Holm, alpha 0.05)".
func (r GateReport) Summary() string {
	pct := 100 * r.Threshold
	switch r.Verdict {
	case Regression:
		return fmt.Sprintf("regression: %d of %d groups slower by more than %g%% (Holm, alpha %g)", r.Regressions, len(r.Rows), pct, r.Alpha)
	case Undecided:
		if len(r.Rows) == 0 {
			return "undecided: no group to test"
		}
		return fmt.Sprintf("undecided: %d of %d groups cannot be decided at alpha %g (need %d mpiruns per side for %d groups)",
			r.Undecided, len(r.Rows), r.Alpha, r.NeedMpiruns, max(r.Family, 1))
	}
	return fmt.Sprintf("no regression: no group slower by more than %g%% (Holm, alpha %g, %d groups)", pct, r.Alpha, len(r.Rows))
}

// junit types follow the common JUnit XML schema that CI systems read
// (testsuites/testsuite/testcase with failure and error children).
type junitSuites struct {
	XMLName xml.Name     `xml:"testsuites"`
	Suites  []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name     string          `xml:"name,attr"`
	Tests    int             `xml:"tests,attr"`
	Failures int             `xml:"failures,attr"`
	Errors   int             `xml:"errors,attr"`
	Props    []junitProperty `xml:"properties>property"`
	Cases    []junitCase     `xml:"testcase"`
}

type junitProperty struct {
	Name  string `xml:"name,attr"`
	Value string `xml:"value,attr"`
}

type junitCase struct {
	Name      string        `xml:"name,attr"`
	Classname string        `xml:"classname,attr"`
	Failure   *junitMessage `xml:"failure,omitempty"`
	Error     *junitMessage `xml:"error,omitempty"`
	SystemOut string        `xml:"system-out,omitempty"`
}

type junitMessage struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr"`
	Text    string `xml:",chardata"`
}

// WriteJUnit writes the report as JUnit XML: one testsuite
// "reprobench.gate", one testcase per group (named by the group and, when
// set, the sides' names), a failure for a regression and an error for an
// undecided group, and the threshold, alpha and method as properties.
func (r GateReport) WriteJUnit(w io.Writer) error {
	s := junitSuite{Name: "reprobench.gate", Tests: len(r.Rows), Failures: r.Regressions, Errors: r.Undecided,
		Props: []junitProperty{
			{"threshold", fmt.Sprint(r.Threshold)}, {"alpha", fmt.Sprint(r.Alpha)},
			{"method", r.Method}, {"verdict", r.Verdict.String()},
			{"need_mpiruns_per_side", fmt.Sprint(r.NeedMpiruns)},
		}}
	for _, g := range r.Rows {
		name := g.Group
		if n := gateNames(g.NameA, g.NameB); n != "" {
			name += " (" + n + ")"
		}
		c := junitCase{Name: name, Classname: "reprobench.gate." + g.Key.Call,
			SystemOut: fmt.Sprintf("n=%d+%d median_a_s=%g median_b_s=%g hl_ratio=%g p=%g p_holm=%g min_attainable_p=%g",
				g.NA, g.NB, g.MedianA, g.MedianB, g.Ratio, g.P, g.PHolm, g.MinP)}
		switch g.Decision {
		case Regression:
			c.Failure = &junitMessage{Message: g.Reason, Type: "regression", Text: g.Reason}
		case Undecided:
			c.Error = &junitMessage{Message: g.Reason, Type: "undecided", Text: g.Reason}
		}
		s.Cases = append(s.Cases, c)
	}
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return err
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	if err := enc.Encode(junitSuites{Suites: []junitSuite{s}}); err != nil {
		return err
	}
	_, err := io.WriteString(w, "\n")
	return err
}

// gateNames joins side names for messages ("lib=openmpi vs lib=mpich").
func gateNames(a, b string) string {
	if a == "" && b == "" {
		return ""
	}
	return strings.TrimSpace(a + " vs " + b)
}
