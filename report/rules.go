package report

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/reprobench/reprobench/analysis"
)

// Status is how far a campaign satisfies one rule.
type Status int

// The values of Status. NotShown is for what the data cannot show: it is
// never counted as met.
const (
	Met Status = iota
	PartlyMet
	NotMet
	NotShown
	NotApplicable
)

var statusNames = [...]string{"met", "partly met", "not met", "the data cannot show", "not applicable"}

// String names the status as the report prints it.
func (s Status) String() string {
	if s < 0 || int(s) >= len(statusNames) {
		return fmt.Sprintf("Status(%d)", int(s))
	}
	return statusNames[s]
}

// worse returns the less satisfied of a and b: met, then partly met, then
// "the data cannot show", then not met.
func worse(a, b Status) Status {
	rank := map[Status]int{NotApplicable: 0, Met: 1, PartlyMet: 2, NotShown: 3, NotMet: 4}
	if rank[b] > rank[a] {
		return b
	}
	return a
}

// Rule is one of the twelve rules of Hoefler and Belli, "Scientific
// Benchmarking of Parallel Computing Systems" (SC15, Hoefler & Belli 2015), checked
// against a campaign: the status and the evidence for it.
type Rule struct {
	Number   int
	Text     string // the rule as the paper states it
	Status   Status
	Evidence []string
}

// ruleTexts are the twelve rules of Hoefler & Belli 2015, verbatim.
var ruleTexts = [12]string{
	"When publishing parallel speedup, report if the base case is a single parallel process or best serial execution, as well as the absolute execution performance of the base case.",
	"Specify the reason for only reporting subsets of standard benchmarks or applications or not using all system resources.",
	"Use the arithmetic mean only for summarizing costs. Use the harmonic mean for summarizing rates.",
	"Avoid summarizing ratios; summarize the costs or rates that the ratios base on instead. Only if these are not available use the geometric mean for summarizing ratios.",
	"Report if the measurement values are deterministic. For nondeterministic data, report confidence intervals of the measurement.",
	"Do not assume normality of collected data (e.g., based on the number of samples) without diagnostic checking.",
	"Compare nondeterministic data in a statistically sound way, e.g., using non-overlapping confidence intervals or ANOVA.",
	"Carefully investigate if measures of central tendency such as mean or median are useful to report. Some problems, such as worst-case latency, may require other percentiles.",
	"Document all varying factors and their levels as well as the complete experimental setup (e.g., software, hardware, techniques) to facilitate reproducibility and provide interpretability.",
	"For parallel time measurements, report all measurement, (optional) synchronization, and summarization techniques.",
	"If possible, show upper performance bounds to facilitate interpretability of the measured results.",
	"Plot as much information as needed to interpret the experimental results. Only connect measurements by lines if they indicate trends and the interpolation is valid.",
}

// checkRules checks the twelve rules against r.
func checkRules(r *Report) []Rule {
	checks := [12]func(*Report) (Status, []string){rule1, rule2, rule3, rule4, rule5, rule6, rule7, rule8, rule9, rule10, rule11, rule12}
	out := make([]Rule, 12)
	for i, c := range checks {
		st, ev := c(r)
		out[i] = Rule{Number: i + 1, Text: ruleTexts[i], Status: st, Evidence: ev}
	}
	return out
}

// allGroups returns every side's groups.
func (r *Report) allGroups() []Group {
	var out []Group
	for _, gs := range r.Groups {
		out = append(out, gs...)
	}
	return out
}

func pct(v float64) string {
	if math.IsNaN(v) {
		return "-"
	}
	return fmt.Sprintf("%.3g%%", 100*v)
}

// Rule 1: speedup and its base case; generalized by the paper to "never
// report ratios without absolute values".
func rule1(r *Report) (Status, []string) {
	if r.Comparison == nil || len(r.Comparison.Rows) == 0 {
		return NotApplicable, []string{"no speedup and no ratio is reported: one data set, absolute run times only"}
	}
	return Met, []string{fmt.Sprintf("no parallel speedup is reported; each of the %d ratios %s/%s in the comparison stands beside the absolute medians of both sides (the paper's corollary: never ratios without absolute values)",
		len(r.Comparison.Rows), r.Sides[1].Name, r.Sides[0].Name)}
}

// Rule 2: subsets and resources. The data show whether the mpiruns of the
// campaigns are all present and how many processes ran; they cannot show
// a reason for a subset.
func rule2(r *Report) (Status, []string) {
	var ev []string
	st := Met
	for i, s := range r.Sides {
		for _, id := range sortedKeys(s.Manifests) {
			man := s.Manifests[id]
			have := map[int]bool{}
			for _, m := range s.Data.Mpiruns {
				if m.RunID == id {
					have[m.Mpirun] = true
				}
			}
			complete := 0
			for _, run := range man.Runs {
				if run.Complete {
					complete++
				}
			}
			switch {
			case len(have) < man.Mpiruns:
				st = worse(st, NotMet)
				ev = append(ev, fmt.Sprintf("%s: %d of the %d mpiruns of campaign %s are in the report (%d complete in its manifest): a subset, its reason is not recorded", s.Name, len(have), man.Mpiruns, id, complete))
			default:
				ev = append(ev, fmt.Sprintf("%s: all %d mpiruns of campaign %s are in the report", s.Name, man.Mpiruns, id))
			}
		}
		if len(s.Manifests) == 0 {
			st = worse(st, NotShown)
			ev = append(ev, fmt.Sprintf("%s: no campaign manifest beside the files, so whether these are all the mpiruns that ran cannot be checked", s.Name))
		}
		o := r.Overviews[i]
		ev = append(ev, fmt.Sprintf("%s: every group read is reported (%d), with its invalid and removed observations", s.Name, len(r.Groups[i])))
		// Resources: processes against the CPUs of the nodes.
		cpus, nodes := r.Machines[i].OnlineCPUs, r.Machines[i].Nodes
		maxNp := 0
		if len(o.Nps) > 0 {
			maxNp = slices.Max(o.Nps)
		}
		switch {
		case cpus == 0 || nodes == 0:
			st = worse(st, NotShown)
			ev = append(ev, fmt.Sprintf("%s: the CPUs of the nodes were not recorded, so whether all resources were used cannot be shown", s.Name))
		case maxNp < cpus*nodes:
			st = worse(st, PartlyMet)
			ev = append(ev, fmt.Sprintf("%s: at most %d processes on %d node(s) of %d online CPUs each: not every core was used, and the data do not say why (state the reason)", s.Name, maxNp, nodes, cpus))
		default:
			ev = append(ev, fmt.Sprintf("%s: %d processes on %d node(s) with %d online CPUs each: every core was used", s.Name, maxNp, nodes, cpus))
		}
	}
	return st, ev
}

// Rule 3: means of costs, harmonic means of rates. reprobench summarizes
// costs (run times) and derives rates from the summarized cost.
func rule3(r *Report) (Status, []string) {
	rates := 0
	for _, g := range r.allGroups() {
		if _, ok := analysis.MessagesPerCall(g.Key); ok {
			rates++
		}
	}
	ev := []string{"run times (costs) are summarized by medians and by the arithmetic mean; no mean of rates is computed"}
	if rates > 0 {
		ev = append(ev, fmt.Sprintf("the rates of the %d bandwidth groups (bytes/s, messages/s) are computed from the median run time, never averaged", rates))
	}
	return Met, ev
}

// Rule 4: no summary of ratios.
func rule4(r *Report) (Status, []string) {
	if r.Comparison == nil {
		return NotApplicable, []string{"no ratios: one data set"}
	}
	return Met, []string{fmt.Sprintf("each ratio is the ratio of two medians of costs, one per group; the %d ratios are not averaged into one number", len(r.Comparison.Rows))}
}

// Rule 5: determinism and confidence intervals.
func rule5(r *Report) (Status, []string) {
	level := r.Options.Analysis.Level
	var groups, withCI, below, nondet int
	var mpiruns, conf Range
	for _, g := range r.allGroups() {
		groups++
		if g.Min != g.Max {
			nondet++
		}
		mpiruns.add(float64(g.NMpiruns))
		if g.MedianCI.Valid() {
			withCI++
			if g.MedianCI.Confidence < level-1e-12 {
				below++
				conf.add(g.MedianCI.Confidence)
			}
		}
	}
	ev := []string{fmt.Sprintf("the run times are nondeterministic: they vary within %d of %d groups", nondet, groups)}
	from := fmt.Sprintf("from %s mpiruns per group", rangeInts(mpiruns))
	switch {
	case withCI == 0:
		return NotMet, append(ev, "no group has a confidence interval of its median (too few observations)")
	case withCI < groups:
		ev = append(ev, fmt.Sprintf("%g%% CIs of the median in %d of %d groups, %s; the others have too few values for one", 100*level, withCI, groups, from))
		return PartlyMet, ev
	case below > 0:
		at := pct(conf.Min)
		if conf.Max > conf.Min {
			at = pct(conf.Min) + " to " + pct(conf.Max)
		}
		ev = append(ev, fmt.Sprintf("CIs of the median in every group, %s, but in %d of them at only %s confidence instead of %g%%: with fewer than 6 mpiruns the interval is [min, max] of the per-mpirun medians (the paper: more than 5 measurements are needed for a nonparametric CI); 6 or more mpiruns reach %g%%",
			from, below, at, 100*level, 100*level))
		return PartlyMet, ev
	}
	ev = append(ev, fmt.Sprintf("%g%% CIs of the median in all %d groups, %s (the interval includes the variation from one mpirun to the next)", 100*level, groups, from))
	return Met, ev
}

func rangeInts(r Range) string {
	if r.N == 0 {
		return "0"
	}
	if r.Min == r.Max {
		return fmt.Sprintf("%.0f", r.Min)
	}
	return fmt.Sprintf("%.0f to %.0f", r.Min, r.Max)
}

// Rule 6: normality is checked, not assumed.
func rule6(r *Report) (Status, []string) {
	alpha := r.Options.Analysis.Alpha
	var groups, tested, rejected, medTested, medRejected, mpTested, mpRejected int
	for _, g := range r.allGroups() {
		groups++
		if g.ObsTested > 0 {
			tested++
			if g.ObsRejected > 0 {
				rejected++
			}
			mpTested += g.ObsTested
			mpRejected += g.ObsRejected
		}
		if !math.IsNaN(g.Normality.P) {
			medTested++
			if g.Normality.P <= alpha {
				medRejected++
			}
		}
	}
	var ev []string
	if tested > 0 {
		ev = append(ev, fmt.Sprintf("Shapiro-Wilk on each mpirun's observations: normality rejected (p ≤ %g) in %d of %d mpirun samples, in %d of %d groups",
			alpha, mpRejected, mpTested, rejected, tested))
	}
	if medTested > 0 {
		ev = append(ev, fmt.Sprintf("Shapiro-Wilk on the per-mpirun medians: rejected in %d of %d groups (with few mpiruns the test has little power: not rejecting is not evidence of normality)", medRejected, medTested))
	}
	ev = append(ev, "so the headline is the median with an order-statistic CI and groups are compared with rank tests, none of which assumes normality; the mean and its t interval are secondary")
	switch {
	case tested == 0 && medTested == 0:
		return PartlyMet, append(ev, "no group had enough values for a normality test; nothing assumes normality, but it was not checked")
	case tested < groups:
		return PartlyMet, append(ev, fmt.Sprintf("%d of %d groups had too few observations to be tested", groups-tested, groups))
	}
	return Met, ev
}

// Rule 7: statistically sound comparison.
func rule7(r *Report) (Status, []string) {
	if r.Comparison == nil {
		return NotApplicable, []string{"one data set: nothing is compared (give A-FILES -- B-FILES to compare)"}
	}
	c := r.Comparison
	if len(c.Rows) == 0 {
		return NotMet, []string{"no group of A matches one of B: nothing could be compared"}
	}
	tests := map[string]int{}
	sig, weak := 0, 0
	for _, row := range c.Rows {
		tests[row.Test]++
		if row.Significant {
			sig++
		}
		if minP(row, r.Options.Analysis.Alternative) > r.Options.Analysis.Alpha {
			weak++
		}
	}
	var names []string
	for _, t := range sortedKeys(tests) {
		names = append(names, fmt.Sprintf("%s in %d comparisons", testName(t), tests[t]))
	}
	ev := []string{
		fmt.Sprintf("%s; Hodges-Lehmann intervals of the shift and of the ratio", strings.Join(names, ", ")),
		fmt.Sprintf("%d of %d groups differ at alpha %g (%s)", sig, len(c.Rows), r.Options.Analysis.Alpha, r.Options.Analysis.Alternative),
	}
	st := Met
	if n := tests["wilcoxon-observations"]; n > 0 {
		st = worse(st, PartlyMet)
		ev = append(ev, fmt.Sprintf("%d comparisons test single observations because a side had one mpirun: those are not independent of their mpirun, run several", n))
	}
	if weak > 0 {
		st = worse(st, PartlyMet)
		ev = append(ev, fmt.Sprintf("%d comparisons have so few mpiruns that their test cannot reach p ≤ %g whatever the data (exact rank tests: the smallest p of n+m values is 2/C(n+m, n) two-sided): run more mpiruns",
			weak, r.Options.Analysis.Alpha))
	}
	if len(c.OnlyA)+len(c.OnlyB) > 0 {
		ev = append(ev, fmt.Sprintf("%d groups only in %s and %d only in %s are not compared", len(c.OnlyA), r.Sides[0].Name, len(c.OnlyB), r.Sides[1].Name))
	}
	return st, ev
}

// minP is the smallest p-value the exact test of a comparison can give
// with its sample sizes: 1/C(n+m, n) for the rank-sum test of n and m
// per-mpirun medians, 1/2^n for the signed-rank test of n pairs, doubled
// when two-sided; 0 for tests on observations (many values).
func minP(c analysis.Comparison, alt analysis.Alternative) float64 {
	var p float64
	switch {
	case c.Paired():
		p = math.Pow(2, -float64(c.NA))
	case c.Test == "wilcoxon-mpirun-medians":
		// 1/C(n+m, n), as a product to stay exact for small n.
		p = 1
		for i := 1; i <= c.NA; i++ {
			p *= float64(i) / float64(c.NB+i)
		}
	default:
		return 0
	}
	if alt == analysis.TwoSided {
		p *= 2
	}
	return p
}

// testName explains a Comparison.Test.
func testName(t string) string {
	switch t {
	case "wilcoxon-mpirun-medians":
		return "Wilcoxon rank-sum on per-mpirun medians (Hunold & Carpen-Amarie 2016, §6.2)"
	case analysis.TestPairedMpirunMedians:
		return "Wilcoxon signed-rank on per-mpirun medians paired by mpirun"
	case "wilcoxon-observations":
		return "Wilcoxon rank-sum on single observations"
	}
	return t
}

// Rule 8: central tendency and other percentiles.
func rule8(r *Report) (Status, []string) {
	var tail, groups int
	for _, g := range r.allGroups() {
		groups++
		if g.Median > 0 && g.P99 > 2*g.Median {
			tail++
		}
	}
	ev := []string{"every group shows its minimum, 99th percentile and maximum beside the median, and its whole distribution in a violin plot"}
	if tail > 0 {
		ev = append(ev, fmt.Sprintf("in %d of %d groups the 99th percentile is more than twice the median: where the worst case matters, read the p99 column, not the median", tail, groups))
	} else {
		ev = append(ev, "in no group is the 99th percentile more than twice the median")
	}
	ev = append(ev, "which percentile matters depends on the use of the result, which the data do not say")
	return Met, ev
}

// Rule 9: factors, levels and the setup.
func rule9(r *Report) (Status, []string) {
	var ev []string
	st := Met
	for i, s := range r.Sides {
		o := r.Overviews[i]
		var varying, fixed []string
		for _, f := range o.Factors {
			if f.Varying() {
				varying = append(varying, fmt.Sprintf("%s (%d levels)", f.Name, len(f.Levels)))
			} else {
				fixed = append(fixed, f.Name)
			}
		}
		ev = append(ev, fmt.Sprintf("%s: %d calls × %d sizes × %d process counts; varying labels: %s; %d fixed factors stated once",
			s.Name, len(o.Calls), len(o.Sizes), len(o.Nps), orNone(varying), len(fixed)))
		nMeta := len(s.metas())
		if nMeta == 0 {
			st = worse(st, NotMet)
			ev = append(ev, fmt.Sprintf("%s: no sidecar found: software, hardware and the method are undocumented", s.Name))
			continue
		}
		if nMeta < len(s.Meta) {
			st = worse(st, PartlyMet)
			ev = append(ev, fmt.Sprintf("%s: sidecars of %d of %d mpiruns", s.Name, nMeta, len(s.Meta)))
		}
		m := r.Machines[i]
		if len(m.Unavailable) > 0 {
			st = worse(st, PartlyMet)
			ev = append(ev, fmt.Sprintf("%s: environment complete except: %s", s.Name, strings.Join(m.Unavailable, "; ")))
		} else {
			ev = append(ev, fmt.Sprintf("%s: environment complete (CPU, kernel, MPI library and thread level, compiler, source commit, MPI variables)", s.Name))
		}
		if len(m.Commands) == 0 {
			st = worse(st, PartlyMet)
			ev = append(ev, fmt.Sprintf("%s: no command line to reproduce the campaign was recorded", s.Name))
		}
	}
	ev = append(ev, "the network's topology, latency and bandwidth and the memory bandwidth are not measured by reprobench: state them")
	return st, ev
}

func orNone(x []string) string {
	if len(x) == 0 {
		return "none"
	}
	return strings.Join(x, ", ")
}

// Rule 10: measurement, synchronization and summarization of parallel
// time.
func rule10(r *Report) (Status, []string) {
	var ev []string
	st := Met
	for i, s := range r.Sides {
		m := r.Methods[i]
		if len(m.RuntimeTypes) == 0 || len(m.ProcSyncs) == 0 {
			st = worse(st, PartlyMet)
			ev = append(ev, fmt.Sprintf("%s: the raw data lack the method columns (runtime_type, procsync): how the times were taken is not recorded", s.Name))
			continue
		}
		ev = append(ev, fmt.Sprintf("%s: measurement: runtime %s; process synchronization: %s; clock synchronization: %s",
			s.Name, strings.Join(m.RuntimeTypes, ", "), strings.Join(m.ProcSyncs, ", "), orNone(m.ClockSyncs)))
		if len(s.Data.PerRank) == 0 {
			ev = append(ev, fmt.Sprintf("%s: no per-rank data (run --per-rank): whether ranks differ (ANOVA, Kruskal-Wallis, Hoefler & Belli 2015, §4.2.1) cannot be shown", s.Name))
		} else {
			pool := analysis.PoolRanks(s.Data, r.Options.Analysis.Alpha)
			n := 0
			for _, p := range pool {
				if p.Poolable {
					n++
				}
			}
			ev = append(ev, fmt.Sprintf("%s: the ranks' times can be pooled (Kruskal-Wallis across ranks not significant, Hoefler & Belli 2015, §4.2.1) in %d of %d groups", s.Name, n, len(pool)))
		}
	}
	ev = append(ev, fmt.Sprintf("summary: per group, Tukey's fences (k = %g) per mpirun, per-mpirun medians, their median with its CI (Hunold & Carpen-Amarie 2016, Alg. 6); the method section says each step", r.Options.Analysis.TukeyK))
	return st, ev
}

// Rule 11: upper performance bounds. reprobench has no model of the
// machine.
func rule11(*Report) (Status, []string) {
	return NotShown, []string{"no upper performance bound (a network or memory model, a peak bandwidth, a LogP or roofline bound) is in the data; the report cannot show one — add one where it helps to interpret the run times"}
}

// Rule 12: plots.
func rule12(r *Report) (Status, []string) {
	ev := []string{"the distribution of every group (violin, with the median and its CI), the per-mpirun medians with their interquartile ranges, and the comparison with its intervals and stars are plotted; no line connects separate measurements"}
	if r.Comparison == nil {
		ev[0] = "the distribution of every group (violin, with the median and its CI) and the per-mpirun medians with their interquartile ranges are plotted; no line connects separate measurements"
	}
	return Met, ev
}
