package analysis

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
)

// Mode detection in per-mpirun medians.
//
// Hidden state that a whole mpirun runs in (a transport's ring offset,
// where the kernel placed the ranks, a page-cache state) splits the
// mpiruns of one configuration into clusters whose medians differ far more
// than mpiruns in one state do. Pooling them gives a headline median that
// no mpirun measured and an interval that says nothing about either state
// (Hunold, Carpen-Amarie & Träff 2014 show per-mpirun medians that form
// such clusters). Modes flags it.
//
// The rule (FindModes), on the logarithms of the per-mpirun medians,
// sorted: the candidate split is the largest gap between neighbours that
// leaves at least modeMinMpiruns mpiruns on each side; the group is split
// there when the gap is at least log(modeMinRatio) and at least
// modeMinGapSD times the pooled within-cluster standard deviation (sd of
// each side about its own mean, pooled). Each side is then split again by
// the same rule, so a group can have more than two modes.
//
// Null model: one state, per-mpirun medians lognormal with a
// mpirun-to-mpirun spread of 2-4 % (as on the VM the defaults were
// measured on), optionally with one outlier mpirun 1.2-2× slower. A lone
// outlier is never a mode (modeMinMpiruns). Alternative: two states, the
// slow one modeMinRatio or more slower. docs/modes.md has the false-alarm
// rate and the power measured by simulation (TestModesSimulation).

// modeMinMpiruns is the fewest mpiruns a mode has: a lone mpirun apart is
// an outlier, not a state.
const modeMinMpiruns = 2

// modeMinRatio is the smallest ratio between neighbouring modes' closest
// per-mpirun medians that the rule splits at: 10 %, 2.5 standard
// deviations of the largest mpirun-to-mpirun spread of the null model.
const modeMinRatio = 1.10

// modeMinGapSD is how many pooled within-cluster standard deviations the
// gap between two modes must span: it keeps false alarms rare when the
// mpirun-to-mpirun spread is wider than the null model's (docs/modes.md).
const modeMinGapSD = 2.0

// Mode is one cluster of per-mpirun medians.
type Mode struct {
	// Median is the median of the mode's per-mpirun medians, seconds.
	Median float64
	// Mpiruns are the indices (into the medians FindModes was given) of
	// the mode's mpiruns, ascending.
	Mpiruns []int
	// Share is the mode's fraction of the mpiruns.
	Share float64
}

// Modes is the outcome of mode detection on one group.
type Modes struct {
	// Modes are the clusters, fastest first; one mode when the group is
	// not split, none with fewer than 2·modeMinMpiruns mpiruns.
	Modes []Mode
	// ExplainedBy names the covariates (Dataset.Covariates) whose value
	// determines the mode (explainModes), sorted; empty when none does or
	// the group has one mode.
	ExplainedBy []string
}

// Split reports whether the group has more than one mode.
func (m Modes) Split() bool { return len(m.Modes) > 1 }

// ModeOf returns the mode index (0 fastest) of mpirun i of the medians
// FindModes was given, -1 when none.
func (m Modes) ModeOf(i int) int {
	for k, md := range m.Modes {
		if _, ok := slices.BinarySearch(md.Mpiruns, i); ok {
			return k
		}
	}
	return -1
}

// String renders m for a table cell: "1" for one mode; else the count and
// each mode's median ratio to the fastest and share, e.g.
// "2: 1.00×60% 1.38×40% (prehistory_msgs)".
func (m Modes) String() string {
	if len(m.Modes) == 0 {
		return "-"
	}
	if !m.Split() {
		return "1"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%d:", len(m.Modes))
	for _, md := range m.Modes {
		fmt.Fprintf(&b, " %.2f×%.0f%%", md.Median/m.Modes[0].Median, 100*md.Share)
	}
	if len(m.ExplainedBy) > 0 {
		fmt.Fprintf(&b, " (%s)", strings.Join(m.ExplainedBy, ","))
	}
	return b.String()
}

// FindModes applies the rule of the package's mode detection to per-mpirun
// medians (seconds, > 0). NaN and non-positive values are left out of
// every mode.
func FindModes(medians []float64) Modes {
	var idx []int
	for i, v := range medians {
		if v > 0 && !math.IsInf(v, 0) {
			idx = append(idx, i)
		}
	}
	if len(idx) < 2*modeMinMpiruns {
		return Modes{}
	}
	slices.SortFunc(idx, func(a, b int) int {
		if c := compareFloat(medians[a], medians[b]); c != 0 {
			return c
		}
		return a - b
	})
	x := make([]float64, len(idx))
	for k, i := range idx {
		x[k] = math.Log(medians[i])
	}
	var cuts []int
	splitModes(x, 0, len(x), &cuts)
	slices.Sort(cuts)
	bounds := slices.Concat([]int{0}, cuts, []int{len(x)})
	var out Modes
	for k := 0; k+1 < len(bounds); k++ {
		members := slices.Clone(idx[bounds[k]:bounds[k+1]])
		vals := make([]float64, len(members))
		for j, i := range members {
			vals[j] = medians[i]
		}
		slices.Sort(members)
		out.Modes = append(out.Modes, Mode{Median: Median(vals), Mpiruns: members, Share: float64(len(members)) / float64(len(idx))})
	}
	return out
}

func compareFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// splitModes appends to cuts the positions in sorted x[lo:hi] where the
// rule splits, recursively.
func splitModes(x []float64, lo, hi int, cuts *[]int) {
	best, gap := -1, 0.0
	for k := lo + modeMinMpiruns; k <= hi-modeMinMpiruns; k++ {
		if g := x[k] - x[k-1]; g > gap {
			best, gap = k, g
		}
	}
	if best < 0 || gap < math.Log(modeMinRatio) || gap < modeMinGapSD*pooledSD(x[lo:best], x[best:hi]) {
		return
	}
	*cuts = append(*cuts, best)
	splitModes(x, lo, best, cuts)
	splitModes(x, best, hi, cuts)
}

// pooledSD is the pooled standard deviation of a and b about their own
// means (n_a + n_b − 2 degrees of freedom).
func pooledSD(a, b []float64) float64 {
	ss := 0.0
	for _, s := range [][]float64{a, b} {
		m := Mean(s)
		for _, v := range s {
			ss += (v - m) * (v - m)
		}
	}
	df := len(a) + len(b) - 2
	if df <= 0 {
		return math.Inf(1)
	}
	return math.Sqrt(ss / float64(df))
}

// modeExplainP is the permutation p-value below which explainModes says a
// covariate explains the modes.
const modeExplainP = 0.05

// modeExplainPerms is the number of permutations explainModes draws, with
// the fixed seed modeExplainSeed so that the answer is reproducible.
const (
	modeExplainPerms = 2000
	modeExplainSeed  = 0x6d6f646573
)

// explainModes reports whether covariate values (one per mpirun, in the
// order of the medians m was found in; "" for unknown or mixed within the
// mpirun) explain the modes m: every value that occurs falls in one mode
// only, and a permutation test
// of the mode labels over the mpirun values (modeExplainPerms permutations,
// fixed seed) finds such purity with probability at most modeExplainP, so
// some value must recur: a covariate that differs in every mpirun never
// explains anything, as any split would be pure. Mpiruns with an empty
// value or without a mode are left out.
func explainModes(m Modes, values []string) bool {
	if !m.Split() {
		return false
	}
	var labels []int
	var vals []string
	for i, v := range values {
		if k := m.ModeOf(i); k >= 0 && v != "" {
			labels, vals = append(labels, k), append(vals, v)
		}
	}
	if len(labels) < 2*modeMinMpiruns {
		return false
	}
	obs := purity(labels, vals)
	if obs != len(labels) {
		return false
	}
	r := rand.New(rand.NewPCG(modeExplainSeed, uint64(len(labels))))
	perm := slices.Clone(labels)
	hits := 0
	for range modeExplainPerms {
		r.Shuffle(len(perm), func(i, j int) { perm[i], perm[j] = perm[j], perm[i] })
		if purity(perm, vals) >= obs {
			hits++
		}
	}
	return float64(hits+1)/float64(modeExplainPerms+1) <= modeExplainP
}

// purity is the number of mpiruns whose mode is their value's most common
// mode: len(labels) when each value falls in one mode.
func purity(labels []int, vals []string) int {
	count := map[string]map[int]int{}
	for i, v := range vals {
		if count[v] == nil {
			count[v] = map[int]int{}
		}
		count[v][labels[i]]++
	}
	p := 0
	for _, c := range count {
		best := 0
		for _, n := range c {
			best = max(best, n)
		}
		p += best
	}
	return p
}
