package guidelines

import (
	"fmt"
	"math"
	"slices"

	"github.com/reprobench/reprobench/analysis"
)

// Series is the per-mpirun medians of one point (seconds), with the index
// of the mpirun each comes from (ascending), as analysis.GroupSummary's
// MpirunMedians and MpirunIndex.
type Series struct {
	Mpiruns []int32
	Medians []float64
}

// Data is the measurements of one context: a series per point.
type Data map[Point]Series

// Context is what must be equal for two points to be compared: the number
// of ranks, the datatype and every label (e.g. the MPI library).
type Context struct {
	Np       int
	Datatype string
	Labels   string
}

// String renders the context as "np=2/float64/mpi_lib=openmpi".
func (c Context) String() string {
	s := fmt.Sprintf("np=%d", c.Np)
	if c.Datatype != "" {
		s += "/" + c.Datatype
	}
	if c.Labels != "" {
		s += "/" + c.Labels
	}
	return s
}

// FromSummaries splits analyzed groups (analysis.Analyze, Hunold & Carpen-Amarie 2016, Alg. 6:
// per mpirun, Tukey-filtered medians) into contexts.
func FromSummaries(sums []analysis.GroupSummary) map[Context]Data {
	out := map[Context]Data{}
	for _, s := range sums {
		c := Context{Np: s.Key.Np, Datatype: s.Key.Datatype, Labels: s.Key.Labels}
		if out[c] == nil {
			out[c] = Data{}
		}
		out[c][Point{s.Key.Call, int(s.Key.MsizeBytes)}] = Series{Mpiruns: s.MpirunIndex, Medians: s.MpirunMedians}
	}
	return out
}

// Options of Decide.
type Options struct {
	// Alpha is the family-wise error rate: the Holm-corrected p-value of
	// a violation is at most Alpha (default 0.05).
	Alpha float64
	// Level of the Hodges-Lehmann intervals (default 0.95).
	Level float64
	// ElemBytes is the size of one element of a datatype (for the sizes
	// "elem"); nil means 8 bytes.
	ElemBytes func(datatype string) int
	// Sizes, when not empty, are the guideline sizes n to decide;
	// otherwise every n for which the data has both sides.
	Sizes []int
}

func (o Options) withDefaults() Options {
	if o.Alpha == 0 {
		o.Alpha = 0.05
	}
	if o.Level == 0 {
		o.Level = 0.95
	}
	return o
}

// Test names the statistics of a Report.
const (
	testName       = "one-sided Wilcoxon signed-rank test of H0: lhs <= rhs against H1: lhs > rhs, on per-mpirun medians paired by mpirun"
	correctionName = "Holm (step-down Bonferroni) over every (guideline, size) of a context: family-wise error rate <= alpha under any dependence"
	shiftName      = "Hodges-Lehmann estimate of lhs - rhs (pseudo-median of the paired differences) with its signed-rank confidence interval"
)

// Decision is the verdict on one guideline at one size.
type Decision struct {
	Guideline string `json:"guideline"` // name
	Text      string `json:"text"`      // e.g. "MPI_Allreduce(n) <= Reduce+Bcast(n)"
	// SizeBytes is n; -1 when neither side depends on it (the barrier).
	SizeBytes int   `json:"size_bytes"`
	Lhs       Point `json:"lhs"`
	Rhs       Point `json:"rhs"`
	// Mpiruns is the number of mpiruns with both sides (the pairs).
	Mpiruns int `json:"mpiruns"`
	// LhsMedianS and RhsMedianS are the medians of the per-mpirun medians.
	LhsMedianS float64 `json:"lhs_median_s"`
	RhsMedianS float64 `json:"rhs_median_s"`
	// Ratio is LhsMedianS / RhsMedianS: above 1 the left-hand side is slower.
	Ratio float64 `json:"ratio"`
	// P is the one-sided signed-rank p-value, PHolm the Holm-adjusted one.
	P     float64 `json:"p"`
	PHolm float64 `json:"p_holm"`
	// Stars mark PHolm as Hunold & Carpen-Amarie 2016, §6.2 does (*** ≤ 0.001, ** ≤ 0.01, * ≤ 0.05).
	Stars string `json:"stars"`
	// Violated: PHolm ≤ Alpha, the left-hand side is significantly slower.
	Violated bool `json:"violated"`
	// ShiftS is the size of the violation: Hodges-Lehmann lhs − rhs in
	// seconds, with its two-sided interval at Level.
	ShiftS     float64  `json:"shift_s"`
	ShiftLoS   float64  `json:"shift_lo_s"`
	ShiftHiS   float64  `json:"shift_hi_s"`
	ShiftLevel float64  `json:"shift_confidence"`
	Method     string   `json:"method"`
	Warnings   []string `json:"warnings,omitempty"`
}

// ContextReport is the decisions of one context: one family of tests.
type ContextReport struct {
	Context    Context `json:"-"`
	Name       string  `json:"context"`
	Np         int     `json:"np"`
	Datatype   string  `json:"datatype"`
	Labels     string  `json:"labels"`
	Tests      int     `json:"tests"`      // decisions with a p-value: the Holm family
	Violations int     `json:"violations"` // decisions violated
	// MinMpiruns is how many paired mpiruns the smallest possible exact
	// p-value (2^-m) needs to pass Holm's first step (alpha/Tests).
	MinMpiruns int        `json:"min_mpiruns"`
	Decisions  []Decision `json:"decisions"`
	Warnings   []string   `json:"warnings,omitempty"`
}

// MinMpiruns returns the smallest number m of paired mpiruns for which the
// exact one-sided signed-rank test can reject at alpha/tests (Holm's
// strictest step): 2^-m ≤ alpha/tests.
func MinMpiruns(tests int, alpha float64) int {
	if tests < 1 || !(alpha > 0) {
		return 0
	}
	return int(math.Ceil(math.Log2(float64(tests) / alpha)))
}

// Decide decides every guideline of gs at every size in one context: the
// one-sided Wilcoxon signed-rank test on the per-mpirun medians of the two
// sides paired by mpirun (Hunold et al. 2014: the mpirun is a factor, so the mpirun,
// not the observation, is the unit), Holm's correction over all (guideline,
// size) pairs, and the Hodges-Lehmann shift as the size of a violation.
// Pairs that share no two mpiruns get p = NaN and a warning, and do not
// count in the family.
func Decide(gs []Guideline, ctx Context, data Data, opt Options) ContextReport {
	opt = opt.withDefaults()
	elem := 8
	if opt.ElemBytes != nil {
		elem = opt.ElemBytes(ctx.Datatype)
	}
	rep := ContextReport{Context: ctx, Name: ctx.String(), Np: ctx.Np, Datatype: ctx.Datatype, Labels: ctx.Labels}
	for _, g := range gs {
		seen := map[[2]Point]bool{}
		for _, n := range sizesFor(g, data, ctx.Np, elem, opt.Sizes) {
			l, r := g.At(n, ctx.Np, elem)
			if seen[[2]Point{l, r}] {
				continue
			}
			seen[[2]Point{l, r}] = true
			d := decideOne(g, n, l, r, data, opt)
			if g.Lhs.Size != SizeN && g.Lhs.Size != SizePN && g.Rhs.Size != SizeN && g.Rhs.Size != SizePN {
				d.SizeBytes = -1
			}
			rep.Decisions = append(rep.Decisions, d)
		}
	}
	ps := make([]float64, len(rep.Decisions))
	for i, d := range rep.Decisions {
		ps[i] = d.P
	}
	adj := analysis.Holm(ps)
	for i := range rep.Decisions {
		d := &rep.Decisions[i]
		d.PHolm = adj[i]
		if !math.IsNaN(d.PHolm) {
			rep.Tests++
			d.Stars = analysis.Stars(d.PHolm)
			d.Violated = d.PHolm <= opt.Alpha
		}
		if d.Violated {
			rep.Violations++
		}
	}
	rep.MinMpiruns = MinMpiruns(rep.Tests, opt.Alpha)
	minPairs := math.MaxInt
	for _, d := range rep.Decisions {
		if !math.IsNaN(d.P) {
			minPairs = min(minPairs, d.Mpiruns)
		}
	}
	if rep.Tests > 0 && minPairs < rep.MinMpiruns {
		rep.Warnings = append(rep.Warnings, fmt.Sprintf(
			"only %d paired mpiruns for some tests: with %d tests at alpha %g, no violation can be found with fewer than %d (the smallest exact p-value is 2^-mpiruns)",
			minPairs, rep.Tests, opt.Alpha, rep.MinMpiruns))
	}
	return rep
}

// sizesFor returns the sizes n at which to decide g: opt's, or those the
// data has both sides for.
func sizesFor(g Guideline, data Data, p, elem int, want []int) []int {
	if len(want) > 0 {
		return want
	}
	seen := map[int]bool{}
	var ns []int
	add := func(s Side, msize int) {
		n := -1
		switch s.Size {
		case SizeN:
			n = msize
		case SizePN:
			if p > 0 && msize%p == 0 {
				n = msize / p
			}
		}
		if n > 0 && !seen[n] {
			seen[n] = true
			ns = append(ns, n)
		}
	}
	for pt := range data {
		if pt.Call == g.Lhs.Call {
			add(g.Lhs, pt.MsizeBytes)
		}
		if pt.Call == g.Rhs.Call {
			add(g.Rhs, pt.MsizeBytes)
		}
	}
	if len(ns) == 0 {
		ns = []int{elem} // neither side depends on n: one decision
	}
	slices.Sort(ns)
	// Keep the sizes with both sides measured (MPI_Bcast at 2 KiB is
	// bcast-scatter-allgather's n = 2 KiB and scatter-bcast's n = 1 KiB on
	// 2 ranks: only one of them was designed); if none has both, keep all,
	// so that the report says what is missing.
	var both []int
	for _, n := range ns {
		l, r := g.At(n, p, elem)
		if _, ok := data[l]; ok {
			if _, ok := data[r]; ok {
				both = append(both, n)
			}
		}
	}
	if len(both) > 0 {
		return both
	}
	return ns
}

func decideOne(g Guideline, n int, l, r Point, data Data, opt Options) Decision {
	nan := math.NaN()
	d := Decision{Guideline: g.Name, Text: g.String(), SizeBytes: n, Lhs: l, Rhs: r,
		LhsMedianS: nan, RhsMedianS: nan, Ratio: nan, P: nan, PHolm: nan,
		ShiftS: nan, ShiftLoS: nan, ShiftHiS: nan, ShiftLevel: nan}
	sl, okl := data[l]
	sr, okr := data[r]
	if !okl || !okr {
		var miss []string
		if !okl {
			miss = append(miss, fmt.Sprintf("%s at %d bytes", l.Call, l.MsizeBytes))
		}
		if !okr {
			miss = append(miss, fmt.Sprintf("%s at %d bytes", r.Call, r.MsizeBytes))
		}
		d.Warnings = append(d.Warnings, fmt.Sprintf("no data for %v: not decided", miss))
		return d
	}
	x, y := pair(sl, sr)
	d.Mpiruns = len(x)
	if len(x) < 2 {
		d.Warnings = append(d.Warnings, fmt.Sprintf("%d mpiruns with both sides: not decided (need at least 2, and MinMpiruns to find a violation)", len(x)))
		return d
	}
	d.LhsMedianS, d.RhsMedianS = analysis.Median(x), analysis.Median(y)
	d.Ratio = d.LhsMedianS / d.RhsMedianS
	res := analysis.WilcoxonSignedRank(x, y, analysis.Greater)
	d.P, d.Method = res.P, res.Method
	if res.Warning != "" {
		d.Warnings = append(d.Warnings, res.Warning)
	}
	sh := analysis.HodgesLehmannPaired(x, y, analysis.TwoSided, opt.Level)
	d.ShiftS, d.ShiftLoS, d.ShiftHiS, d.ShiftLevel = sh.Estimate, sh.Lo, sh.Hi, sh.Confidence
	if sh.Warning != "" && sh.Warning != res.Warning {
		d.Warnings = append(d.Warnings, sh.Warning)
	}
	return d
}

// pair returns the medians of the mpiruns both series have, in mpirun order.
func pair(a, b Series) (x, y []float64) {
	j := 0
	for i, m := range a.Mpiruns {
		for j < len(b.Mpiruns) && b.Mpiruns[j] < m {
			j++
		}
		if j < len(b.Mpiruns) && b.Mpiruns[j] == m && i < len(a.Medians) && j < len(b.Medians) {
			x = append(x, a.Medians[i])
			y = append(y, b.Medians[j])
		}
	}
	return x, y
}
