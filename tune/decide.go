package tune

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/reprobench/reprobench/analysis"
	"gonum.org/v1/gonum/stat/distuv"
)

// Sample is one mpirun's median run time of one candidate in one cell:
// the unit of every test in this package (Hunold, Carpen-Amarie & Träff
// 2014: the mpirun is the experimental unit; one mpirun is one sample).
type Sample struct {
	Call      string        // MPI call, e.g. "MPI_Allreduce"
	Bytes     int64         // message size per process, bytes (count × type size)
	Np        int           // processes
	Candidate string        // algorithm name, e.g. "default", "ring", "ring+segsize=1024"
	Mpirun    int           // mpirun index within the campaign (distinct per mpirun)
	Median    time.Duration // the mpirun's median run time (> 0)
}

// Cell is what a decision is made for: one collective, message size and
// process count.
type Cell struct {
	Call  string
	Bytes int64
	Np    int
}

// String renders the cell as "MPI_Allreduce/msize=1024/np=2".
func (c Cell) String() string { return fmt.Sprintf("%s/msize=%d/np=%d", c.Call, c.Bytes, c.Np) }

func (c Cell) compare(o Cell) int {
	return cmp.Or(strings.Compare(c.Call, o.Call), cmp.Compare(c.Np, o.Np), cmp.Compare(c.Bytes, o.Bytes))
}

// Family names the set of tests that Holm's correction is applied over:
// the decisions whose family-wise error rate Options.Alpha bounds.
type Family int

const (
	// FamilyCampaign: every (cell, non-default candidate) test of the
	// campaign is one family. A decision file is used as a whole, and one
	// wrong entry makes it wrong, so the probability that any cell of the
	// file replaces the default by a candidate that is not faster by the
	// threshold is at most Alpha. The default.
	FamilyCampaign Family = iota
	// FamilyCell: each cell's candidates are a family of their own; Alpha
	// bounds the false replacements per cell, and a file of many cells
	// may hold several.
	FamilyCell
)

// String returns "campaign" or "cell".
func (f Family) String() string {
	if f == FamilyCell {
		return "cell"
	}
	return "campaign"
}

// Defaults of Options.
const (
	DefaultThreshold = 0.05
	DefaultAlpha     = 0.05
	defaultLevel     = 0.95
)

// Options configures Decide and Plan. Zero fields take the Default
// constants.
type Options struct {
	// Default is the name of the library's own choice among the
	// candidates ("default").
	Default string
	// Threshold is how much faster a candidate must be, as a fraction of
	// the default's time: 0.05 replaces the default only when the
	// default is slower than the candidate by a factor above 1.05.
	Threshold float64
	// Alpha is the family-wise error rate of the replacements, in (0, 1).
	Alpha float64
	// Level is the confidence level of the ratio intervals, in (0, 1).
	Level float64
	// Family is what Holm's correction runs over.
	Family Family
}

func (o Options) withDefaults() Options {
	if o.Default == "" {
		o.Default = DefaultCandidate
	}
	if o.Threshold == 0 {
		o.Threshold = DefaultThreshold
	}
	if o.Alpha == 0 {
		o.Alpha = DefaultAlpha
	}
	if o.Level == 0 {
		o.Level = defaultLevel
	}
	return o
}

func (o Options) check() error {
	switch {
	case !(o.Threshold >= 0) || math.IsInf(o.Threshold, 1):
		return fmt.Errorf("tune: threshold %g not ≥ 0", o.Threshold)
	case !(o.Alpha > 0 && o.Alpha < 1):
		return fmt.Errorf("tune: alpha %g not in (0, 1)", o.Alpha)
	case !(o.Level > 0 && o.Level < 1):
		return fmt.Errorf("tune: level %g not in (0, 1)", o.Level)
	}
	return nil
}

// Verdict is the outcome of one cell.
type Verdict int

const (
	// Kept: the default stays; every candidate could have been shown
	// faster with these mpiruns, and none was.
	Kept Verdict = iota
	// Replaced: a candidate is faster than the default by more than the
	// threshold at the Holm-corrected level; it is Decision.Chosen.
	Replaced
	// TooFew: the default stays because no data could have shown a
	// candidate faster: the smallest attainable p-value with these
	// mpiruns does not pass the corrected level (Decision.NeedMpiruns).
	TooFew
)

// String returns "kept", "replaced" or "too-few-mpiruns".
func (v Verdict) String() string {
	switch v {
	case Replaced:
		return "replaced"
	case TooFew:
		return "too-few-mpiruns"
	}
	return "kept"
}

// MarshalText encodes the verdict as its String, for JSON.
func (v Verdict) MarshalText() ([]byte, error) { return []byte(v.String()), nil }

// CandidateResult is one non-default candidate of a cell against the
// default.
type CandidateResult struct {
	Name string
	// N is the number of mpiruns (per-mpirun medians) of the candidate.
	N int
	// Median is the median of its per-mpirun medians.
	Median time.Duration
	// Ratio is the Hodges-Lehmann estimate of candidate/default time: exp
	// of the Hodges-Lehmann shift of log candidate − log default over the
	// per-mpirun medians (below 1: the candidate is faster).
	Ratio float64
	// RatioCI is the interval of Ratio at Options.Level, by inverting the
	// rank-sum test (exact without ties and below 50 per side).
	RatioCI analysis.Interval
	// P is the one-sided rank-sum p-value of H0 "default/candidate ≤ 1 +
	// threshold" (analysis.SlowdownTest with the candidate as baseline);
	// PHolm is Holm's adjusted p over the family. NaN without a test.
	P, PHolm float64
	// MinP is the smallest p the test can attain with these mpiruns.
	MinP float64
	// Faster is true when PHolm ≤ Alpha: the candidate is faster than
	// the default by more than the threshold.
	Faster bool
	// Reason says why, in words (the regression gate's sentence, with
	// the default as the side that may be slower).
	Reason string
	// NeedMpiruns estimates, for a candidate not shown faster, the
	// mpiruns per candidate that would show it with 80 % power if its
	// observed effect were the true one (Noether 1987, see
	// noetherMpiruns); -1 when the data show no speed-up beyond the
	// threshold (no number of mpiruns is expected to), 0 when Faster.
	NeedMpiruns int
}

// Decision is the outcome of one cell.
type Decision struct {
	Cell
	// Default and Chosen name the library default and the candidate the
	// decision selects (Default unless Verdict is Replaced).
	Default, Chosen string
	Verdict         Verdict
	// DefaultN and DefaultMedian are the default's mpiruns and median of
	// per-mpirun medians.
	DefaultN      int
	DefaultMedian time.Duration
	// Candidates are the other candidates, sorted by name.
	Candidates []CandidateResult
	// Family and FamilySize are the Holm family this cell was decided in
	// and its number of valid tests; Threshold and Alpha as in Options.
	Family     Family
	FamilySize int
	Threshold  float64
	Alpha      float64
	// NeedMpiruns is the number of mpiruns per candidate at which the
	// smallest attainable p passes Holm's first step, Alpha/FamilySize.
	NeedMpiruns int
	// Reason is one sentence that says what was decided and why.
	Reason string
}

// Result returns the result of the named candidate and true, or false
// when the cell has no such candidate.
func (d Decision) Result(name string) (CandidateResult, bool) {
	for _, c := range d.Candidates {
		if c.Name == name {
			return c, true
		}
	}
	return CandidateResult{}, false
}

// Decide returns one Decision per cell of samples, sorted by call,
// process count and message size. Each non-default candidate is tested
// against the default with analysis.SlowdownTest on the per-mpirun
// medians (one-sided Wilcoxon rank-sum of H0 "the default is at most
// 1 + Threshold times slower than the candidate"), through the
// regression gate (analysis.Gate) with the candidate as baseline A and
// the default as B, so that Holm's correction over opt.Family and the
// attainable-p rule are the gate's. A cell replaces its default only by
// a candidate whose Holm-adjusted p is ≤ Alpha; among several such, the
// one with the smallest Ratio. A cell without the default, or with
// a sample whose Median is not positive, is an error;
// so is a (cell, candidate, mpirun) given twice.
func Decide(samples []Sample, opt Options) ([]Decision, error) {
	opt = opt.withDefaults()
	if err := opt.check(); err != nil {
		return nil, err
	}
	cells, err := collect(samples)
	if err != nil {
		return nil, err
	}
	keys := make([]Cell, 0, len(cells))
	for c := range cells {
		keys = append(keys, c)
	}
	slices.SortFunc(keys, Cell.compare)
	out := make([]Decision, len(keys))
	// rows[i] are the gate rows of keys[i]'s candidates, in name order.
	type ref struct{ cell, cand int }
	var fam [][]ref
	var all []ref
	for i, c := range keys {
		byName := cells[c]
		def, ok := byName[opt.Default]
		if !ok {
			return nil, fmt.Errorf("tune: %s has no %q candidate (the library default every candidate is tested against)", c, opt.Default)
		}
		d := Decision{Cell: c, Default: opt.Default, Chosen: opt.Default, DefaultN: len(def), DefaultMedian: duration(analysis.Median(def)),
			Family: opt.Family, Threshold: opt.Threshold, Alpha: opt.Alpha}
		var mine []ref
		for _, name := range sortedNames(byName) {
			if name == opt.Default {
				continue
			}
			x := byName[name]
			cd := CandidateResult{Name: name, N: len(x), Median: duration(analysis.Median(x))}
			cd.Ratio, cd.RatioCI = logShift(x, def, opt.Level)
			d.Candidates = append(d.Candidates, cd)
			r := ref{i, len(d.Candidates) - 1}
			mine = append(mine, r)
			all = append(all, r)
		}
		out[i] = d
		if opt.Family == FamilyCell {
			fam = append(fam, mine)
		}
	}
	if opt.Family == FamilyCampaign {
		fam = [][]ref{all}
	}
	for _, f := range fam {
		rows := make([]analysis.Comparison, len(f))
		for j, r := range f {
			d := &out[r.cell]
			name := d.Candidates[r.cand].Name
			rows[j] = analysis.Comparison{
				Key:   analysis.GroupKey{Call: d.Call, MsizeBytes: int(d.Bytes), Np: d.Np, Labels: "candidate=" + name},
				NameA: name, NameB: d.Default,
				MpirunMediansA: cells[d.Cell][name], MpirunMediansB: cells[d.Cell][d.Default],
			}
		}
		g := analysis.Gate(rows, analysis.GateOptions{Threshold: opt.Threshold, Alpha: opt.Alpha})
		for j, r := range f {
			d := &out[r.cell]
			cd := &d.Candidates[r.cand]
			gr := g.Rows[j]
			cd.P, cd.PHolm, cd.MinP = gr.P, gr.PHolm, gr.MinP
			cd.Faster = gr.Decision == analysis.Regression
			cd.Reason = candidateReason(gr, opt)
			if !cd.Faster {
				cd.NeedMpiruns = noetherMpiruns(cells[d.Cell][cd.Name], cells[d.Cell][d.Default], opt.Threshold, opt.Alpha/float64(max(g.Family, 1)), 0.8)
			}
			d.FamilySize = g.Family
			d.NeedMpiruns = g.NeedMpiruns
		}
	}
	for i := range out {
		conclude(&out[i])
	}
	return out, nil
}

// candidateReason restates the gate's row with the candidate as the
// faster side.
func candidateReason(g analysis.GateRow, opt Options) string {
	pct := 100 * opt.Threshold
	switch g.Decision {
	case analysis.Regression:
		return fmt.Sprintf("default slower by more than %g%%: Holm p %.3g <= alpha %g", pct, g.PHolm, opt.Alpha)
	case analysis.NoRegression:
		return fmt.Sprintf("not shown faster by more than %g%%: Holm p %.3g > alpha %g", pct, g.PHolm, opt.Alpha)
	}
	return g.Reason
}

// conclude sets Chosen, Verdict and Reason of d from its candidates.
func conclude(d *Decision) {
	best := -1
	tooFew := 0
	for i, c := range d.Candidates {
		if c.Faster && (best < 0 || c.Ratio < d.Candidates[best].Ratio) {
			best = i
		}
		if !c.Faster && (math.IsNaN(c.P) || float64(max(d.FamilySize, 1))*c.MinP > d.Alpha) {
			tooFew++
		}
	}
	pct := 100 * d.Threshold
	switch {
	case best >= 0:
		c := d.Candidates[best]
		d.Verdict, d.Chosen = Replaced, c.Name
		d.Reason = fmt.Sprintf("%s replaces %s: time ratio %s [%s, %s], faster by more than %g%% (Holm p %.3g <= %g over a %s family of %d tests)",
			c.Name, d.Default, analysis.FormatRatio(c.Ratio), analysis.FormatRatio(c.RatioCI.Lo), analysis.FormatRatio(c.RatioCI.Hi),
			pct, c.PHolm, d.Alpha, d.Family, d.FamilySize)
	case len(d.Candidates) == 0:
		d.Verdict = Kept
		d.Reason = "only the default was measured"
	case tooFew > 0:
		d.Verdict = TooFew
		d.Reason = fmt.Sprintf("nothing separates the candidates: with %d mpiruns of the default the smallest attainable p cannot pass alpha/%d = %.3g for %d of %d candidates; %d mpiruns per candidate are needed",
			d.DefaultN, max(d.FamilySize, 1), d.Alpha/float64(max(d.FamilySize, 1)), tooFew, len(d.Candidates), d.NeedMpiruns)
	default:
		d.Verdict = Kept
		d.Reason = fmt.Sprintf("default kept: no candidate is faster by more than %g%% at Holm alpha %g (%s family of %d tests)",
			pct, d.Alpha, d.Family, d.FamilySize)
		near := -1
		for i, c := range d.Candidates {
			if c.NeedMpiruns > 0 && (near < 0 || c.NeedMpiruns < d.Candidates[near].NeedMpiruns) {
				near = i
			}
		}
		if near < 0 {
			d.Reason += fmt.Sprintf("; in these data no candidate is faster than the default by %g%%, so more mpiruns are not expected to separate them", pct)
		} else {
			c := d.Candidates[near]
			d.Reason += fmt.Sprintf("; nothing separates them yet: %s (ratio %s) would need about %d mpiruns per candidate for 80%% power if its observed effect were true",
				c.Name, analysis.FormatRatio(c.Ratio), c.NeedMpiruns)
		}
	}
}

// noetherMpiruns is Noether's (1987) sample size per side for the
// one-sided rank-sum test at level a with the given power, equal sides:
// n = (z_(1−a) + z_power)² / (6 (p′ − ½)²), where p′ is the probability
// that a default mpirun is slower than a candidate mpirun by more than
// the threshold, estimated from the data as the share of such pairs
// (ties count half). It returns -1 when p′ ≤ ½ (no speed-up beyond the
// threshold in the data), and never less than the mpiruns at which the
// smallest attainable p reaches a.
func noetherMpiruns(cand, def []float64, threshold, a, power float64) int {
	var wins float64
	for _, c := range cand {
		for _, d := range def {
			switch x := c * (1 + threshold); {
			case d > x:
				wins++
			case d == x:
				wins += 0.5
			}
		}
	}
	pp := wins / float64(len(cand)*len(def))
	if !(pp > 0.5) {
		return -1
	}
	z := distuv.UnitNormal.Quantile(1-a) + distuv.UnitNormal.Quantile(power)
	n := int(math.Ceil(z * z / (6 * (pp - 0.5) * (pp - 0.5))))
	return max(n, analysis.MpirunsForP(a))
}

// logShift is the Hodges-Lehmann ratio x/y and its interval: the shift of
// log x against log y by analysis.HodgesLehmann, exponentiated.
func logShift(x, y []float64, level float64) (float64, analysis.Interval) {
	lx, ly := logs(x), logs(y)
	sh := analysis.HodgesLehmann(lx, ly, analysis.TwoSided, level)
	iv := sh.Interval
	iv.Lo, iv.Hi = math.Exp(iv.Lo), math.Exp(iv.Hi)
	return math.Exp(sh.Estimate), iv
}

func logs(x []float64) []float64 {
	out := make([]float64, len(x))
	for i, v := range x {
		out[i] = math.Log(v)
	}
	return out
}

// collect groups samples by cell and candidate, in mpirun order.
func collect(samples []Sample) (map[Cell]map[string][]float64, error) {
	type key struct {
		c      Cell
		name   string
		mpirun int
	}
	seen := make(map[key]bool, len(samples))
	sorted := slices.Clone(samples)
	slices.SortStableFunc(sorted, func(a, b Sample) int { return cmp.Compare(a.Mpirun, b.Mpirun) })
	cells := map[Cell]map[string][]float64{}
	for _, s := range sorted {
		c := Cell{s.Call, s.Bytes, s.Np}
		if s.Median <= 0 {
			return nil, fmt.Errorf("tune: %s candidate %q mpirun %d: median %v is not a positive time", c, s.Candidate, s.Mpirun, s.Median)
		}
		if s.Candidate == "" {
			return nil, fmt.Errorf("tune: %s mpirun %d: empty candidate name", c, s.Mpirun)
		}
		k := key{c, s.Candidate, s.Mpirun}
		if seen[k] {
			return nil, fmt.Errorf("tune: %s candidate %q mpirun %d given twice", c, s.Candidate, s.Mpirun)
		}
		seen[k] = true
		if cells[c] == nil {
			cells[c] = map[string][]float64{}
		}
		cells[c][s.Candidate] = append(cells[c][s.Candidate], s.Median.Seconds())
	}
	return cells, nil
}

// duration converts float seconds, as the statistics compute them, to
// the nearest nanosecond; NaN gives 0.
func duration(s float64) time.Duration {
	if math.IsNaN(s) {
		return 0
	}
	return time.Duration(math.Round(s * 1e9))
}

func sortedNames(m map[string][]float64) []string {
	names := make([]string, 0, len(m))
	for n := range m {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}
