package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/reprobench/reprobench/analysis"
	"github.com/reprobench/reprobench/rawdata"
	"github.com/reprobench/reprobench/tables"
)

func init() {
	register(command{
		name:    "compare",
		summary: "compare two data sets (A... -- B...) or label values (--by LABEL) with the Wilcoxon test on per-mpirun medians",
		run:     runCompare,
	})
}

const compareSynopsis = `[--alternative two-sided|less|greater] [--alpha 0.05] [--format text|csv|json] [--ignore auto|none|LABEL,...] A-FILES... -- B-FILES...
       reprobench compare --by LABEL [--paired[=auto]] FILES...
       reprobench compare --fail-if-slower PCT [--junit FILE] [--verdict FILE] A-FILES... -- B-FILES...

--fail-if-slower PCT is a regression gate: per group a one-sided Wilcoxon
rank-sum test on per-mpirun medians of H0 "B/A <= 1+PCT/100", B/A being
the factor by which B's medians are shifted from A's on a log scale (what
HL B/A estimates, and what the gate's lines print), Holm across groups at
--alpha. Exit status 0: no regression; 3: regression; 4: cannot
decide (too few mpiruns for any p to pass alpha; it says how many are
needed). See docs/regression-gate.md.

A -- B: groups of A and B are matched on call, message size, np, datatype and
labels, except the labels that name the two sides: a label with one value in
all of A and another in all of B (lib=openmpi vs lib=mpich) is left out of
the match and shown as the sides' names (--ignore auto, the default; the
header says which). --ignore none matches on every label.

Text columns (one row per matched group; times in the row's unit):
  group          the group without the labels every row shares (those are
                 printed once, as "every group:")
  median A/B     median of the per-mpirun medians of each side (the values
                 the test compares; with one mpirun on a side: the median
                 of the Tukey-filtered observations)
  median B/A     the median ratio, median B / median A, with its own
                 interval: exact order statistics of each side's median
                 combined so that its coverage is at least the level
                 (analysis.MedianRatioCI; distribution-free, no seed). With
                 too few values per side for the level (fewer than 7
                 mpiruns per side at 95 %) it is [min B/max A, max B/min A]
                 with the confidence it does reach: the column's header
                 names the confidence most rows reach ([93.8% CI]), a line
                 below the table names each row that reaches another, and
                 a warning says why
  HL B/A         the Hodges-Lehmann ratio: exp of the Hodges-Lehmann
                 estimate of log B − log A, the factor by which B is
                 shifted from A on a log scale, with its interval, exp of
                 that estimate's interval (it inverts the Wilcoxon test, so
                 it assumes B is A scaled; "-" when too few values for the
                 level). When B is A scaled both ratios estimate the same
                 factor; when the sides differ in shape (mpiruns that ran
                 partly in a fast and partly in a slow mode, in different
                 proportions) they part, and each lies inside its own
                 interval only
  p  sig         p-value of the Wilcoxon test (see "test"), against
                 --alternative stated for A relative to B, and its stars:
                 * p≤0.05, ** p≤0.01, *** p≤0.001; ~ p > --alpha; (obs)
                 instead of stars when a side had one mpirun
  n              values per side entering the test (mpiruns, or
                 observations when a side has one mpirun); below the
                 table when the same in every row
  test           (below the table when the same in every row, or when
                 the others are obs rows, which sig marks)
                 medians: rank-sum on per-mpirun medians (Hunold & Carpen-Amarie 2016, §6.2);
                 paired: signed-rank on medians paired by mpirun (--paired);
                 obs: rank-sum on single observations (a side had 1 mpirun)
--paired needs every compared pair to have run in the same mpiruns; if one
cannot be paired, compare says which and exits with status 1.
--paired=auto pairs what it can and marks the rest "not paired".

CSV and JSON (compare_format 2 in JSON), times in seconds: the text's
columns as median_a_s, median_b_s; median_ratio, median_ratio_ci_lo,
median_ratio_ci_hi, median_ratio_ci_confidence (the coverage the interval
guarantees); hl_ratio, hl_ratio_ci_lo, hl_ratio_ci_hi,
hl_ratio_ci_confidence; p_value, stars, significant, test, n_a, n_b; and
two not in the text: shift B−A, the Hodges-Lehmann estimate of B − A with
its interval (shift_s, shift_ci_lo_s, shift_ci_hi_s, shift_ci_confidence),
and a12, the probability that a value of B exceeds one of A. JSON gives
each interval as one [lo, hi] pair (median_ratio_ci, hl_ratio_ci,
shift_ci_s). Every estimate lies inside its own interval. Format 1 (no
compare_format) had ratio (the median ratio) beside ratio_ci_lo/hi and
ratio_shift (the Hodges-Lehmann ratio, whose interval those were).`

// cmpPaired is the value of --paired: off, on (true) or auto.
type cmpPaired string

func (p *cmpPaired) String() string { return string(*p) }
func (p *cmpPaired) Set(s string) error {
	switch s {
	case "true", "on", "1":
		*p = "on"
	case "false", "off", "0":
		*p = "off"
	case "auto":
		*p = "auto"
	default:
		return fmt.Errorf("want true, false or auto")
	}
	return nil
}
func (p *cmpPaired) IsBoolFlag() bool { return true }

func runCompare(stdout, stderr io.Writer, args []string) error {
	fs := newFlagSet("compare", compareSynopsis, stderr)
	var o anOptions
	o.register(true, fs, "text, csv or json")
	alt := fs.String("alternative", "two-sided", "alternative hypothesis for A relative to B: two-sided, less (A faster) or greater")
	alpha := fs.Float64("alpha", 0.05, "significance level; rows with p > alpha are marked ~ in text output")
	by := fs.String("by", "", "compare groups that differ only in this label (smallest value is the baseline A)")
	ignore := fs.String("ignore", "auto", "A -- B: labels left out of the matching: auto (the labels that name the sides: one value in A, another in B), none, or a comma-separated list")
	allowSim := fs.Bool("allow-sim", false, "compare simulated data (run --sim) with measured data")
	paired := cmpPaired("off")
	failSlower := fs.String("fail-if-slower", "", "regression gate: exit 3 if B is significantly slower than A by more than PCT percent in some group (Holm at --alpha), 4 if too few mpiruns to decide, else 0")
	junitFile := fs.String("junit", "", "with --fail-if-slower: write the gate's verdict as JUnit XML to FILE")
	verdictFile := fs.String("verdict", "", "with --fail-if-slower: write the gate's verdict as JSON to FILE")
	explain := fs.Bool("explain", false, "rank the recorded provenance differences (MPI_T control variables, binding, clock, CPU facts) by how well each separates A's mpiruns from B's, with a permutation test over the mpiruns at --alpha")
	explainSeed := fs.Uint64("explain-seed", 1, "--explain: the seed of the permutations (printed with the result)")
	fs.Var(&paired, "paired", "with --by: pair the per-mpirun medians of label values that ran in the same mpiruns and use the signed-rank test (removes mpirun-to-mpirun variation; needs ≥ 6 mpiruns to reach p < 0.05); fails if a pair cannot be paired; --paired=auto pairs what it can")
	if err := parseFlagsAnywhere(fs, args); err != nil {
		return err
	}
	opt, err := o.options()
	if err != nil {
		return err
	}
	if opt.Alternative, err = analysis.ParseAlternative(*alt); err != nil {
		return fmt.Errorf("%w: %v", errUsage, err)
	}
	if !(*alpha > 0 && *alpha < 1) {
		return fmt.Errorf("%w: --alpha must be in (0, 1)", errUsage)
	}
	opt.Alpha = *alpha
	if paired != "off" && *by == "" {
		return fmt.Errorf("%w: --paired needs --by: data sets given as A -- B come from different mpiruns", errUsage)
	}
	opt.PairByMpirun = paired != "off"
	rest := fs.Args()
	if err := checkSimulated(rest, *allowSim); err != nil {
		return err
	}
	var rows []analysis.Comparison
	var header []string
	ignoreSet := false
	fs.Visit(func(f *flag.Flag) { ignoreSet = ignoreSet || f.Name == "ignore" })
	if *by != "" && ignoreSet {
		return fmt.Errorf("%w: --ignore is for A -- B; with --by LABEL the groups are matched without LABEL", errUsage)
	}
	if *by != "" {
		if len(rest) == 0 || slices.Contains(rest, "--") {
			return fmt.Errorf("%w: --by takes one data set: FILES... without --", errUsage)
		}
		var groupBy []string // a covariate compared by is a label here
		if slices.Contains(rawdata.CovariateColumns, *by) {
			groupBy = []string{*by}
		}
		d, err := anReadFiles(os.Stdin, rest, o.keepDup, groupBy...)
		if err != nil {
			return err
		}
		reportDropped(stderr, "compare", "", d, nil)
		if rows, err = analysis.CompareBy(d, *by, opt); err != nil {
			return err
		}
		if len(rows) == 0 {
			return fmt.Errorf("label %q never has two values within one group: nothing to compare", *by)
		}
	} else {
		i := slices.Index(rest, "--")
		if i <= 0 || i == len(rest)-1 {
			fs.Usage()
			return fmt.Errorf("%w: want A-FILES... -- B-FILES... (two data sets separated by --)", errUsage)
		}
		da, err := anReadFiles(os.Stdin, rest[:i], o.keepDup)
		if err != nil {
			return err
		}
		db, err := anReadFiles(os.Stdin, rest[i+1:], o.keepDup)
		if err != nil {
			return err
		}
		reportDropped(stderr, "compare", "A", da, nil)
		reportDropped(stderr, "compare", "B", db, nil)
		var onlyA, onlyB []analysis.GroupKey
		rows, onlyA, onlyB, header, err = cmpMatch(da, db, *ignore, opt)
		if err != nil {
			return err
		}
		for _, k := range onlyA {
			fmt.Fprintf(stderr, "compare: group %s only in A\n", k)
		}
		for _, k := range onlyB {
			fmt.Fprintf(stderr, "compare: group %s only in B\n", k)
		}
		if len(rows) == 0 {
			return fmt.Errorf("no group in common between A and B (%s; to compare label values within one data set use --by LABEL)", strings.Join(header, "; "))
		}
	}
	if paired == "on" {
		var bad []string
		for _, c := range rows {
			if !c.Paired() {
				bad = append(bad, fmt.Sprintf("%s (%s vs %s)", c.Key, c.NameA, c.NameB))
			}
		}
		if len(bad) > 0 {
			return fmt.Errorf("--paired: %d of %d comparisons cannot be paired, their label values did not run in the same mpiruns (at least 2): %s; use --paired=auto to compare those unpaired",
				len(bad), len(rows), strings.Join(bad, ", "))
		}
	}
	sides := rawdata.SidesByLabel(rest, *by)
	if *by == "" {
		i := slices.Index(rest, "--")
		sides = []rawdata.Side{{Name: "A", Files: rest[:i]}, {Name: "B", Files: rest[i+1:]}}
	}
	if w := rawdata.BarrierWarning(sides); w != "" {
		fmt.Fprintln(stderr, "compare: "+w)
		header = append(header, w)
	}
	diffs := provenanceDifferences(sides)
	for _, d := range diffs {
		fmt.Fprintln(stderr, tables.WrapLine("compare: provenance: "+d, 4))
		header = append(header, tables.WrapLine("provenance: "+d, 4))
	}
	gate, err := cmpGate(*failSlower, *junitFile, *verdictFile, rows, opt.Alpha)
	if err != nil {
		return err
	}
	if gate != nil {
		gate.Differences = diffs
	}
	if *explain {
		header = append(header, explainProvenance(sides, opt.Alpha, *explainSeed)...)
	}
	switch o.format {
	case "text":
		err = tables.WriteComparisonText(stdout, rows, header, opt)
		if err == nil && gate != nil {
			err = tables.WriteGateText(stdout, *gate)
		}
	case "csv":
		err = tables.WriteComparisonCSV(stdout, rows, opt)
	case "json":
		err = tables.WriteComparisonJSON(stdout, rows, header, opt, gate)
	default:
		return fmt.Errorf("%w: unknown --format %q", errUsage, o.format)
	}
	if err != nil {
		return err
	}
	return cmpGateFinish(gate, *junitFile, *verdictFile)
}

// cmpMatch compares a with b, leaving out of the matching the labels that
// --ignore names (auto: analysis.SideLabels). header says what was left
// out, for the output's first lines.
func cmpMatch(a, b *analysis.Dataset, ignore string, opt analysis.Options) (rows []analysis.Comparison, onlyA, onlyB []analysis.GroupKey, header []string, err error) {
	var names []string
	switch ignore {
	case "auto":
		names = analysis.SideLabels(a, b)
		if len(names) > 0 {
			header = append(header, fmt.Sprintf("label %s names the sides (one value in A, another in B): not matched on (--ignore none)", strings.Join(names, ", ")))
		}
	case "none", "":
	default:
		names = strings.Split(ignore, ",")
		for _, n := range names {
			if n == "" || strings.ContainsAny(n, "=") {
				return nil, nil, nil, nil, fmt.Errorf("%w: --ignore: bad label name %q", errUsage, n)
			}
		}
		header = append(header, fmt.Sprintf("label %s left out of the matching (--ignore)", strings.Join(names, ", ")))
	}
	if len(names) == 0 {
		header = append(header, "groups matched on every label")
	}
	rows, onlyA, onlyB = analysis.CompareIgnoring(a, b, names, opt)
	return rows, onlyA, onlyB, header, nil
}

// checkSimulated refuses files of simulated mpiruns mixed with measured
// ones (rawdata.SimulatedFiles) unless allow is set: a simulated machine's
// numbers say nothing about a real one's.
func checkSimulated(files []string, allow bool) error {
	var fs []string
	for _, f := range files {
		if f != "--" {
			fs = append(fs, f)
		}
	}
	sim, real := rawdata.SimulatedFiles(fs)
	if allow || len(sim) == 0 || len(real) == 0 {
		return nil
	}
	return fmt.Errorf("%w: %s is simulated (run --sim) and %s measured: add --allow-sim to compare them anyway", errUsage, sim[0], real[0])
}
