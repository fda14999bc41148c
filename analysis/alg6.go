package analysis

import (
	"fmt"
	"maps"
	"math"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/reprobench/reprobench/factor"
)

// Options configures AnalyzeGroup and Compare.
type Options struct {
	// TukeyK is the constant of Tukey's fences applied per mpirun
	// (Hunold & Carpen-Amarie 2016, Alg. 6, remove_outliers); 0 disables
	// filtering. Every statistic of GroupSummary except Percentiles
	// describes the kept observations (Mean, Min, P99 and Max included);
	// OutliersRemoved counts the rest.
	TukeyK float64
	// RegionTukeyK is TukeyK for groups of application regions
	// (GroupKey.Region): 0, every observation kept, unless asked. The
	// slow iterations of an application are what its developer hunts,
	// not noise to remove (Hoefler & Belli 2015, §3.1.3).
	RegionTukeyK float64
	// Level is the confidence level of the intervals (e.g. 0.95).
	Level float64
	// Alpha is the significance level of comparisons (e.g. 0.05).
	Alpha float64
	// Alternative of comparisons, stated for A relative to B.
	Alternative Alternative
	// Percentiles, when not empty, are the percents (in (0, 100)) of
	// GroupSummary.Percentiles (MpirunPercentiles).
	Percentiles []float64
	// PairByMpirun makes CompareBy pair the per-mpirun medians of two
	// label values that ran in the same mpiruns and test them with the
	// signed-rank test (compareSummariesPaired). That removes the
	// mpirun-to-mpirun variation from the comparison but needs at least 6
	// mpiruns to reach p < 0.05, and with little variation between mpiruns
	// the rank-sum test on the same medians (the default, Hunold & Carpen-Amarie 2016, §6.2)
	// is the more powerful one; both are valid for paired mpiruns.
	PairByMpirun bool
}

// DefaultOptions are Tukey's k = 1.5, 95% intervals and α = 0.05. The
// filter is on by default because the analysis is Hunold &
// Carpen-Amarie 2016's Alg. 6 (§3.5: against OS noise and leftover
// warm-up), although Hoefler & Belli 2015 (§3.1.3) advise keeping
// outliers and using robust measures; the headline median of per-mpirun
// medians is one and barely moves, the mean and max do (docs/outliers.md).
var DefaultOptions = Options{TukeyK: 1.5, Level: 0.95, Alpha: 0.05}

// TukeyFor is the Tukey constant applied to the group of key k:
// RegionTukeyK for a region group, TukeyK otherwise.
func (o Options) TukeyFor(k GroupKey) float64 {
	if k.Region {
		return o.RegionTukeyK
	}
	return o.TukeyK
}

// GroupSummary is one row of the analysis table: Hunold & Carpen-Amarie 2016, Alg. 6 for one
// (call, msize, np, datatype, labels) group. All times are in seconds.
type GroupSummary struct {
	Key             GroupKey
	N               int // observations after outlier removal
	NMpiruns        int
	Invalid         int // errorcode ≠ 0
	WrongResults    int // of Invalid, those the result check found wrong (Group.WrongResults)
	Bad             int // errorcode 0 but runtime NaN, Inf or negative (skipped)
	OutliersRemoved int
	// Median is the headline median. With at least 2 mpiruns it is the
	// median of MpirunMedians and MedianCI is MpirunMedianCI of them, an
	// interval that includes the mpirun-to-mpirun variation; with one
	// mpirun both are those of that mpirun's filtered observations
	// (PooledMedian, PooledMedianCI). MedianOf says which.
	Median   float64
	MedianCI Interval
	MedianOf string // medianOfMpiruns or medianOfObservations
	// PooledMedian is the median of all filtered observations of all
	// mpiruns pooled, and PooledMedianCI its order-statistic interval. The
	// interval treats every observation as independent, which
	// observations of one mpirun are not: it is far too narrow when
	// mpiruns differ (see doc.go, "The headline median").
	PooledMedian   float64
	PooledMedianCI Interval
	Mean           float64
	MeanCI         Interval // Student-t CI of the pooled mean (same caveat)
	Min, P99, Max  float64
	// MpirunMedians and MpirunMeans are the per-mpirun averages of the
	// filtered observations, ordered by mpirun (Alg. 6 line 10).
	MpirunMedians []float64
	MpirunMeans   []float64
	// MpirunIndex is, for each entry of MpirunMedians, the index of its
	// mpirun in Dataset.Mpiruns (ascending).
	MpirunIndex []int32
	// Normality is Shapiro-Wilk on MpirunMedians (NaN p for < 3 mpiruns).
	Normality TestResult
	// Modes are the clusters of MpirunMedians (FindModes; indices into
	// MpirunMedians) and the covariates that explain them (explainModes).
	Modes    Modes
	Warnings []string
	// Percentiles holds Options.Percentiles of the valid, unfiltered
	// observations (MpirunPercentiles); nil without them.
	Percentiles []PercentileSummary
	// InvalidExcess is the group's invalid share beside the machine's
	// own, measured by the window baselines of its mpiruns
	// (SetInvalidExcess); nil when none was recorded.
	InvalidExcess *InvalidExcess
	// Load is the CPU time other processes took during the group's
	// mpiruns (SetCPULoad); nil when none was recorded.
	Load *GroupLoad
}

// Values of GroupSummary.MedianOf.
const (
	// medianOfMpiruns: the median and interval of the per-mpirun medians.
	medianOfMpiruns = "mpirun-medians"
	// medianOfObservations: the median and interval of the filtered
	// observations of the only mpirun.
	medianOfObservations = "observations"
)

// byMpirun splits the runtimes of g by mpirun: the mpirun indices in
// increasing order, and each one's runtimes in file order.
func byMpirun(g *Group) (order []int32, byMp map[int32][]float64) {
	byMp = map[int32][]float64{}
	if g == nil {
		return nil, byMp
	}
	for i, v := range g.Runtimes {
		m := g.Mpirun[i]
		if _, ok := byMp[m]; !ok {
			order = append(order, m)
		}
		byMp[m] = append(byMp[m], v)
	}
	slices.Sort(order)
	return order, byMp
}

// AnalyzeGroup applies Hunold & Carpen-Amarie 2016, Alg. 6 to one group: it splits the
// observations by mpirun, removes outliers per mpirun with Tukey's fences,
// and computes per-mpirun medians and means, plus the pooled summary and
// confidence intervals of the filtered observations.
func AnalyzeGroup(g *Group, opt Options) GroupSummary {
	if g == nil {
		g = &Group{}
	}
	s := GroupSummary{Key: g.Key, Invalid: g.Invalid, Bad: g.Bad, WrongResults: g.WrongResults}
	order, byMp := byMpirun(g)
	runs := make([][]float64, 0, len(order))
	var all [][]float64 // sorted, unfiltered, for the percentiles
	for _, m := range order {
		x := byMp[m]
		slices.Sort(x)
		all = append(all, x)
		kept, rm := tukeySorted(x, opt.TukeyFor(g.Key))
		s.OutliersRemoved += rm
		if len(kept) == 0 {
			continue
		}
		s.MpirunMedians = append(s.MpirunMedians, Quantile(0.5, kept))
		s.MpirunMeans = append(s.MpirunMeans, Mean(kept))
		s.MpirunIndex = append(s.MpirunIndex, m)
		runs = append(runs, kept)
	}
	s.NMpiruns = len(s.MpirunMedians)
	pooled := mergeSorted(runs)
	s.N = len(pooled)
	nan := math.NaN()
	if s.N == 0 {
		s.Median, s.PooledMedian, s.Mean, s.Min, s.P99, s.Max = nan, nan, nan, nan, nan, nan
		s.MedianCI = Interval{Lo: nan, Hi: nan, Level: opt.Level, Confidence: nan}
		s.PooledMedianCI, s.MeanCI = s.MedianCI, s.MedianCI
		s.MedianOf = medianOfObservations
		s.Normality = TestResult{Statistic: nan, P: nan}
		s.Warnings = append(s.Warnings, "no valid observations")
	} else {
		s.PooledMedian = Quantile(0.5, pooled)
		s.PooledMedianCI = MedianCI(pooled, opt.Level)
		if s.NMpiruns >= 2 {
			s.Median, s.MedianCI, s.MedianOf = Median(s.MpirunMedians), MpirunMedianCI(s.MpirunMedians, opt.Level), medianOfMpiruns
		} else {
			s.Median, s.MedianCI, s.MedianOf = s.PooledMedian, s.PooledMedianCI, medianOfObservations
		}
		s.Mean = Mean(pooled)
		s.MeanCI = meanCI(pooled, opt.Level)
		s.Min, s.P99, s.Max = pooled[0], Quantile(0.99, pooled), pooled[len(pooled)-1]
		if s.MedianCI.Warning != "" {
			s.Warnings = append(s.Warnings, s.MedianCI.Warning)
		}
		if s.NMpiruns >= 3 {
			s.Normality = ShapiroWilk(s.MpirunMedians)
		} else {
			s.Normality = TestResult{Method: "Shapiro-Wilk normality test", Statistic: nan, P: nan, Warning: "need ≥ 3 mpiruns"}
		}
	}
	s.Modes = FindModes(s.MpirunMedians)
	if s.Modes.Split() {
		for _, name := range slices.Sorted(maps.Keys(g.Covariates)) {
			vals := make([]string, len(s.MpirunIndex))
			for i, mi := range s.MpirunIndex {
				if v := g.Covariates[name][mi]; v != covariateMixed {
					vals[i] = v
				}
			}
			if explainModes(s.Modes, vals) {
				s.Modes.ExplainedBy = append(s.Modes.ExplainedBy, name)
			}
		}
		w := fmt.Sprintf("per-mpirun medians split into %d modes (%s); the headline median pools them", len(s.Modes.Modes), s.Modes)
		if len(s.Modes.ExplainedBy) > 0 {
			w += "; explained by " + strings.Join(s.Modes.ExplainedBy, ", ")
		}
		s.Warnings = append(s.Warnings, w)
	}
	if len(opt.Percentiles) > 0 {
		// Rows written with --runtime osu get OSU 7's -z rule.
		s.Percentiles = MpirunPercentiles(all, opt.Percentiles, opt.Level, g.Key.LabelValue(factor.RuntimeType.String()) == "osu")
	}
	if g.Bad > 0 {
		s.Warnings = append(s.Warnings, fmt.Sprintf("%d observations with NaN, infinite or negative runtime_s skipped", g.Bad))
	}
	if s.NMpiruns == 1 {
		s.Warnings = append(s.Warnings, "single mpirun: results may not be reproducible across mpiruns (Hunold et al. 2014, §3)")
	}
	return s
}

// Analyze runs AnalyzeGroup over every group of d, sorted by key (call,
// labels, datatype, np, msize).
func Analyze(d *Dataset, opt Options) []GroupSummary {
	if d == nil {
		return nil
	}
	out := analyzeAll(d.Groups, opt)
	sort.Slice(out, func(i, j int) bool { return keyLess(out[i].Key, out[j].Key) })
	return out
}

// analyzeAll runs AnalyzeGroup over groups on GOMAXPROCS goroutines; the
// result is in the order of groups.
func analyzeAll(groups []*Group, opt Options) []GroupSummary {
	out := make([]GroupSummary, len(groups))
	var next atomic.Int64
	var wg sync.WaitGroup
	for w := 0; w < runtime.GOMAXPROCS(0); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1) - 1)
				if i >= len(groups) {
					return
				}
				out[i] = AnalyzeGroup(groups[i], opt)
			}
		}()
	}
	wg.Wait()
	return out
}

func summaryMap(groups []*Group, opt Options) map[*Group]GroupSummary {
	sums := analyzeAll(groups, opt)
	m := make(map[*Group]GroupSummary, len(groups))
	for i, g := range groups {
		m[g] = sums[i]
	}
	return m
}

func keyLess(a, b GroupKey) bool {
	if a.Call != b.Call {
		return a.Call < b.Call
	}
	if a.Labels != b.Labels {
		return a.Labels < b.Labels
	}
	if a.Datatype != b.Datatype {
		return a.Datatype < b.Datatype
	}
	if a.Np != b.Np {
		return a.Np < b.Np
	}
	return a.MsizeBytes < b.MsizeBytes
}

// Comparison is one row of a comparison table (Hunold & Carpen-Amarie 2016, §6.2).
type Comparison struct {
	Key              GroupKey // without the --by label, if any
	NameA, NameB     string   // label values when comparing by label
	MedianA, MedianB float64  // median of the values entering the test
	// Ratio is the median ratio MedianB / MedianA (CSV and JSON:
	// median_ratio); MedianRatioCI is its interval.
	Ratio float64
	// MedianRatioCI is the confidence interval of Ratio at Options.Level
	// (MedianRatioCI, exact order statistics of each side; paired by
	// mpirun in compareSummariesPaired). Its Confidence is the coverage it
	// guarantees, below Level (with a Warning) when the sides are too
	// small for Level. Ratio lies inside it whenever it exists.
	MedianRatioCI Interval
	// RatioShift is the Hodges-Lehmann ratio (CSV and JSON: hl_ratio):
	// exp of the Hodges-Lehmann estimate of log B − log A over the values
	// entering the test, the factor by which B's values are shifted from
	// A's on a log scale. RatioCI is its interval, and it always lies
	// inside it. It equals Ratio when B's values are A's scaled; when the
	// two sides differ in shape (a side whose mpiruns ran partly in a fast
	// and partly in a slow mode) the two estimators part, and each lies
	// inside its own interval only.
	RatioShift float64
	// RatioCI is the confidence interval of RatioShift at Options.Level:
	// exp of the Hodges-Lehmann interval of log B − log A (it inverts the
	// Wilcoxon rank-sum test, so it assumes B is A shifted on the log
	// scale). Its Warning says why it is missing (values ≤ 0, too few
	// values for the level).
	RatioCI Interval
	Test    string // "wilcoxon-mpirun-medians" or "wilcoxon-observations"
	Result  TestResult
	NA, NB  int // sample sizes entering the test
	// Shift is the Hodges-Lehmann estimate of B − A with its confidence
	// interval at Options.Level (Hoefler & Belli 2015, §3.2: report the size of a
	// difference, not only its significance).
	Shift Shift
	// A12 is the probability that a value of B exceeds one of A
	// (Vargha-Delaney; 0.5 = no effect).
	A12         float64
	Significant bool
	Warnings    []string
	// MpirunMediansA and MpirunMediansB are the per-mpirun medians of
	// each side (GroupSummary.MpirunMedians), whatever Test used; the
	// regression gate (Gate) tests these and never single observations.
	MpirunMediansA, MpirunMediansB []float64
}

// TestPairedMpirunMedians is Comparison.Test of compareSummariesPaired.
const TestPairedMpirunMedians = "wilcoxon-signed-rank-paired-mpirun-medians"

// shiftLimit is the largest total sample size for which CompareSummaries
// computes the Hodges-Lehmann shift (its root finding costs O(n) per step).
const shiftLimit = 20000

// CompareSummaries compares two analyzed groups with the Wilcoxon rank-sum
// test (Hunold & Carpen-Amarie 2016, §6.2). When both sides have at least two mpiruns the test
// runs on the per-mpirun medians, as the paper does; otherwise it falls back
// to the filtered observations of the single mpirun and warns that
// observations within one mpirun are not independent of the mpirun.
func CompareSummaries(a, b GroupSummary, ra, rb []float64, opt Options) Comparison {
	c := Comparison{Key: a.Key, MpirunMediansA: a.MpirunMedians, MpirunMediansB: b.MpirunMedians}
	var xa, xb []float64
	if a.NMpiruns >= 2 && b.NMpiruns >= 2 {
		c.Test = "wilcoxon-mpirun-medians"
		xa, xb = a.MpirunMedians, b.MpirunMedians
	} else {
		c.Test = "wilcoxon-observations"
		xa, xb = ra, rb
		c.Warnings = append(c.Warnings, "fewer than 2 mpiruns on a side: compared single observations")
	}
	c.NA, c.NB = len(xa), len(xb)
	c.MedianA, c.MedianB = Median(xa), Median(xb)
	c.Ratio = c.MedianB / c.MedianA
	c.MedianRatioCI = MedianRatioCI(xa, xb, false, opt.Level)
	if w := medianRatioWarning(c.MedianRatioCI); w != "" {
		c.Warnings = append(c.Warnings, w)
	}
	c.Result = WilcoxonRankSum(xa, xb, opt.Alternative)
	if c.Result.Warning != "" {
		c.Warnings = append(c.Warnings, c.Result.Warning)
	}
	c.Significant = c.Result.P <= opt.Alpha
	c.A12 = math.NaN()
	if len(xa) > 0 && len(xb) > 0 {
		c.A12 = effect(xb, xa).A12
	}
	if len(xa) > 0 && len(xb) > 0 && len(xa)+len(xb) <= shiftLimit {
		c.Shift = HodgesLehmann(xb, xa, TwoSided, opt.Level)
		c.RatioShift, c.RatioCI = ratioShift(xa, xb, opt.Level)
	} else {
		nan := math.NaN()
		c.Shift = Shift{Estimate: nan, Interval: Interval{Lo: nan, Hi: nan}}
		c.RatioShift = nan
		c.RatioCI = Interval{Lo: nan, Hi: nan, Level: opt.Level, Confidence: nan, Warning: "no values or too many"}
		if len(xa)+len(xb) > shiftLimit {
			c.Warnings = append(c.Warnings, fmt.Sprintf("shift estimate skipped for %d > %d values", len(xa)+len(xb), shiftLimit))
		}
	}
	if c.Test == "wilcoxon-mpirun-medians" && c.NA+c.NB < 8 {
		c.Warnings = append(c.Warnings, fmt.Sprintf("only %d+%d mpiruns: the test cannot reach p < 0.05 with fewer than 4 per side", c.NA, c.NB))
	}
	if w := modesWarning(a.Modes, b.Modes); w != "" {
		c.Warnings = append(c.Warnings, w)
	}
	return c
}

// modesWarning returns the note of a comparison whose sides' per-mpirun
// medians split into modes (GroupSummary.Modes), "" when neither does:
// the ratio then compares mixtures of states, and which side is faster
// can depend on how many mpiruns fell into each.
func modesWarning(a, b Modes) string {
	if !a.Split() && !b.Split() {
		return ""
	}
	return fmt.Sprintf("mixed modes (A %s, B %s): the ratio compares mixtures of states; compare mode by mode or control the factor that sets them", a, b)
}

// medianRatioWarning is the comparison's warning about iv, the interval
// of the median ratio: why it is missing or why its confidence is below
// the level; "" when neither. A missing interval for lack of values says
// nothing more than the test's own warning and is left out.
func medianRatioWarning(iv Interval) string {
	if iv.Valid() {
		return iv.Warning
	}
	if strings.HasPrefix(iv.Warning, "a value") {
		return iv.Warning
	}
	return ""
}

// ratioShift is exp of the Hodges-Lehmann estimate of log b − log a and
// of its interval.
func ratioShift(a, b []float64, level float64) (float64, Interval) {
	nan := math.NaN()
	la, lb := make([]float64, len(a)), make([]float64, len(b))
	for i, v := range a {
		la[i] = math.Log(v)
	}
	for i, v := range b {
		lb[i] = math.Log(v)
	}
	if slices.ContainsFunc(a, func(v float64) bool { return !(v > 0) }) || slices.ContainsFunc(b, func(v float64) bool { return !(v > 0) }) {
		return nan, Interval{Lo: nan, Hi: nan, Level: level, Confidence: nan, Warning: "a value ≤ 0: no ratio interval"}
	}
	sh := HodgesLehmann(lb, la, TwoSided, level)
	iv := sh.Interval
	iv.Lo, iv.Hi = math.Exp(iv.Lo), math.Exp(iv.Hi)
	if !iv.Valid() && iv.Warning == "" {
		iv.Warning = fmt.Sprintf("too few values (%d+%d) for a %g%% interval of the ratio", len(a), len(b), 100*level)
	}
	return math.Exp(sh.Estimate), iv
}

// compareSummariesPaired compares two analyzed groups whose observations
// come from the same mpiruns (the same MpirunIndex, at least two): the
// Wilcoxon signed-rank test on the per-mpirun medians paired by mpirun.
// Pairing removes what varies from one mpirun to the next (Hunold et al. 2014: the
// mpirun is a factor), so it detects differences that mpirun-to-mpirun
// variation hides from the rank-sum test on the same medians; with n pairs
// its smallest two-sided p-value is 2/2^n. Ratio, RatioShift, RatioCI, A12
// and Shift stay those of the two sets of medians (Shift and RatioShift:
// the two-sample Hodges-Lehmann estimates); MedianRatioCI is recomputed
// for paired sides (Bonferroni instead of independence). It returns
// CompareSummaries' result when the groups are not paired.
func compareSummariesPaired(a, b GroupSummary, opt Options) Comparison {
	if a.NMpiruns < 2 || !slices.Equal(a.MpirunIndex, b.MpirunIndex) {
		return CompareSummaries(a, b, nil, nil, opt)
	}
	c := CompareSummaries(a, b, nil, nil, opt)
	c.Warnings = slices.DeleteFunc(c.Warnings, func(w string) bool { return strings.HasPrefix(w, "only ") })
	if c.Result.Warning != "" {
		c.Warnings = slices.DeleteFunc(c.Warnings, func(w string) bool { return w == c.Result.Warning })
	}
	c.Test = TestPairedMpirunMedians
	if w := medianRatioWarning(c.MedianRatioCI); w != "" {
		c.Warnings = slices.DeleteFunc(c.Warnings, func(s string) bool { return s == w })
	}
	c.MedianRatioCI = MedianRatioCI(a.MpirunMedians, b.MpirunMedians, true, opt.Level)
	if w := medianRatioWarning(c.MedianRatioCI); w != "" {
		c.Warnings = append(c.Warnings, w)
	}
	// x = A, y = B as in the rank-sum test: Less means A below B.
	c.Result = WilcoxonSignedRank(a.MpirunMedians, b.MpirunMedians, opt.Alternative)
	if c.Result.Warning != "" {
		c.Warnings = append(c.Warnings, c.Result.Warning)
	}
	c.Significant = c.Result.P <= opt.Alpha
	if c.NA < 6 {
		c.Warnings = append(c.Warnings, fmt.Sprintf("only %d paired mpiruns: the test cannot reach p < 0.05 with fewer than 6", c.NA))
	}
	return c
}

func compareGroups(ga, gb *Group, sa, sb GroupSummary, opt Options) Comparison {
	var ra, rb []float64
	if sa.NMpiruns < 2 || sb.NMpiruns < 2 {
		ra, rb = Filtered(ga, opt.TukeyFor(ga.Key)), Filtered(gb, opt.TukeyFor(gb.Key))
	}
	return CompareSummaries(sa, sb, ra, rb, opt)
}

// CompareBy compares, within one data set, the groups that differ only in
// the value of label: the smallest value (in byte order) is the baseline A
// and every other value is compared against it. With opt.PairByMpirun,
// groups that ran in the same mpiruns (at least two) have their medians
// paired by mpirun (compareSummariesPaired); otherwise CompareSummaries.
func CompareBy(d *Dataset, label string, opt Options) ([]Comparison, error) {
	if d == nil {
		return nil, fmt.Errorf("analysis: CompareBy: no data set (nil)")
	}
	type side struct {
		value string
		g     *Group
	}
	bucket := map[GroupKey][]side{}
	found := false
	for _, g := range d.Groups {
		v := g.Key.LabelValue(label)
		if v != "" {
			found = true
		}
		k := g.Key.WithoutLabel(label)
		bucket[k] = append(bucket[k], side{v, g})
	}
	if !found {
		return nil, fmt.Errorf("analysis: no group has label %q", label)
	}
	sums := summaryMap(d.Groups, opt)
	var rows []Comparison
	for k, sides := range bucket {
		if len(sides) < 2 {
			continue
		}
		sort.Slice(sides, func(i, j int) bool { return sides[i].value < sides[j].value })
		for _, s := range sides[1:] {
			var c Comparison
			if sa, sb := sums[sides[0].g], sums[s.g]; opt.PairByMpirun && sa.NMpiruns >= 2 && slices.Equal(sa.MpirunIndex, sb.MpirunIndex) {
				c = compareSummariesPaired(sa, sb, opt)
			} else {
				c = compareGroups(sides[0].g, s.g, sa, sb, opt)
				if opt.PairByMpirun {
					c.Warnings = append(c.Warnings, NotPairedWarning)
				}
			}
			c.Key = k
			c.NameA, c.NameB = sides[0].value, s.value
			rows = append(rows, c)
		}
	}
	sort.Slice(rows, func(i, j int) bool {
		if rows[i].Key != rows[j].Key {
			return keyLess(rows[i].Key, rows[j].Key)
		}
		return rows[i].NameB < rows[j].NameB
	})
	return rows, nil
}

// NotPairedWarning is the warning CompareBy adds to a row that
// Options.PairByMpirun asked to pair but whose two label values did not
// run in the same mpiruns (at least two): the row is compared unpaired.
const NotPairedWarning = "not paired: the two label values did not run in the same mpiruns (at least 2); compared unpaired"

// Paired reports whether c was computed by the paired signed-rank test.
func (c Comparison) Paired() bool { return c.Test == TestPairedMpirunMedians }

// RankPooling is the outcome of the Rule 10 check of Hoefler & Belli 2015: can the
// completion times of different ranks be pooled?
type RankPooling struct {
	Key           GroupKey
	Ranks         int
	ANOVA         TestResult
	KruskalWallis TestResult
	// Poolable is true when Kruskal-Wallis does not reject equal
	// distributions across ranks at level alpha.
	Poolable bool
}

// PoolRanks runs one-way ANOVA and Kruskal-Wallis across ranks for every
// per-rank group of d (Hoefler & Belli 2015, §3.2.2 and Rule 10).
func PoolRanks(d *Dataset, alpha float64) []RankPooling {
	if d == nil {
		return nil
	}
	var out []RankPooling
	for _, g := range d.PerRank {
		ranks := make([]int, 0, len(g.ByRank))
		for r := range g.ByRank {
			ranks = append(ranks, r)
		}
		slices.Sort(ranks)
		groups := make([][]float64, len(ranks))
		for i, r := range ranks {
			groups[i] = g.ByRank[r]
		}
		p := RankPooling{Key: g.Key, Ranks: len(ranks), ANOVA: OneWayANOVA(groups), KruskalWallis: KruskalWallis(groups)}
		p.Poolable = !(p.KruskalWallis.P <= alpha)
		out = append(out, p)
	}
	sort.Slice(out, func(i, j int) bool { return keyLess(out[i].Key, out[j].Key) })
	return out
}

// ReproducibilityMetric returns the per-mpirun means of one group divided
// by their minimum; its maximum is the largest relative difference between
// the mpiruns of one campaign. This is the normalization of Hunold &
// Carpen-Amarie 2016 (§6.3) applied within a campaign: their metric
// normalizes per-trial means of per-mpirun medians, one trial being a whole
// repetition of the method). Entries are NaN when the minimum is ≤ 0.
func ReproducibilityMetric(s GroupSummary) []float64 {
	x := s.MpirunMeans
	out := make([]float64, len(x))
	if len(x) == 0 {
		return out
	}
	mn := slices.Min(x)
	for i, v := range x {
		if mn > 0 {
			out[i] = v / mn
		} else {
			out[i] = math.NaN()
		}
	}
	return out
}

// mergeSorted merges sorted runs into one sorted slice by pairwise merging
// (O(n log k) for k runs).
func mergeSorted(runs [][]float64) []float64 {
	if len(runs) == 0 {
		return nil
	}
	for len(runs) > 1 {
		next := runs[:0:0]
		for i := 0; i < len(runs); i += 2 {
			if i+1 == len(runs) {
				next = append(next, runs[i])
				continue
			}
			a, b := runs[i], runs[i+1]
			m := make([]float64, 0, len(a)+len(b))
			for len(a) > 0 && len(b) > 0 {
				if b[0] < a[0] {
					m = append(m, b[0])
					b = b[1:]
				} else {
					m = append(m, a[0])
					a = a[1:]
				}
			}
			m = append(append(m, a...), b...)
			next = append(next, m)
		}
		runs = next
	}
	return slices.Clone(runs[0])
}
