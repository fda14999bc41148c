package report

import (
	"bytes"
	_ "embed"
	"errors"
	"fmt"
	"html/template"
	"io"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/reprobench/reprobench/analysis"
	"github.com/reprobench/reprobench/plots"
	"github.com/reprobench/reprobench/tables"
)

//go:embed page.html.tmpl
var pageTemplate string

//go:embed page.css
var pageCSS string

// maxRowsPerFigure is the most groups one figure shows; more are split by
// call.
const maxRowsPerFigure = 24

// WriteHTML writes the report as one self-contained HTML page: inline CSS
// and inline SVG figures, no script, nothing fetched from anywhere (its
// Content-Security-Policy forbids it), so that it opens from a file in any
// browser and can be archived beside the raw data.
func (r *Report) WriteHTML(w io.Writer) error {
	v := r.view()
	t, err := template.New("page").Funcs(template.FuncMap{
		"lower": strings.ToLower,
		"join":  strings.Join,
	}).Parse(pageTemplate)
	if err != nil {
		return fmt.Errorf("report: template: %w", err)
	}
	var b bytes.Buffer
	if err := t.Execute(&b, v); err != nil {
		return fmt.Errorf("report: %w", err)
	}
	_, err = w.Write(b.Bytes())
	return err
}

// page is what the template shows; every value is formatted already.
type page struct {
	Title, Generated, Generator, Command string
	CSS                                  template.CSS
	Sides                                []sideView
	TwoSides                             bool
	Common                               string
	Level                                string
	RuleCounts                           []ruleCount
	Rules                                []ruleView
	Headline                             []headRow
	Findings                             []string
	Violins, MpirunFigs                  []template.HTML
	GroupRows                            []groupRow
	SharedWarnings                       []string
	Pct                                  *pctView
	Windows                              *windowsView
	Compare                              *compareView
	Method                               []factRow
	Syncs                                []syncRow
	SyncExtra                            []string
	Machine                              []factRow
	Provenance                           []string // what else differed
	Unavailable                          [][]string
	MPIEnv                               []factRow
	Flags                                []factRow
	Commands                             [][]Command
	Files                                [][]File
	Missing                              [][]string
	Regions                              []regionView
}

// regionView is one run of application regions on the page.
type regionView struct {
	Title, Note string
	SVG         template.HTML
	Rows        []entryRow
	// Account is the incomplete mark and the misuse account; Warn when
	// either says something went wrong.
	Account string
	Warn    bool
	Totals  []totalRow
	POP     []popRow
	PopNote string
}

type totalRow struct {
	Region, Ranks, Mean, Max, Min, Share, Imbalance string
}

type popRow struct {
	Name, Value, Interval, Verdict string
}

type entryRow struct {
	Region, N, Runtime, Median, P90, Max, Bound, Resolved string
}

type sideView struct {
	Name, What, Counts, When string
}

type ruleCount struct {
	Status, Class string
	N             int
}

type ruleView struct {
	Number       int
	Text, Status string
	Class        string
	Evidence     []string
}

type headRow struct {
	Side, Group, N, Mpiruns, Median, CI, MpirunRange, P99, Invalid string
	Warn                                                           string
}

type groupRow struct {
	Side, Group, N, Outliers, Invalid, Medians, Spread, NormalMed, NormalObs string
	// Modes lists each mode's median and share of mpiruns when the
	// per-mpirun medians split (analysis.FindModes), "1" otherwise.
	Modes    string
	Warnings []string
}

// windowsView is the windows section: the machine's own late share of
// each side first, then every windowed group's invalid share beside it.
type windowsView struct {
	Lead []string
	Rows []excessRow
	Note string
}

type excessRow struct {
	Side, Group, Invalid, Own, Excess, Mark string
}

// pctView is the table of tail percentiles (analysis.MpirunPercentiles):
// one row per group, one cell per percentile.
type pctView struct {
	Header []string // "P50", "P99.9"
	Rows   []pctRow
	Notes  []string
}

type pctRow struct {
	Side, Group string
	Cells       []pctCell
}

// pctCell is one percentile with its interval; Pooled marks a value of
// the pooled observations.
type pctCell struct {
	Text   string
	Pooled bool
}

type compareView struct {
	NameA, NameB string
	Figures      []template.HTML
	Rows         []compareRow
	OnlyA, OnlyB []string
	SideLabels   string
	Warning      string
	Alpha        string
	Alternative  string
}

type compareRow struct {
	Group, MedianA, MedianB, MedianRatio, Ratio, Shift, P, Sig, Test, N string
	Class                                                               string
}

type factRow struct {
	Name  string
	Cells []cell
	Note  string
}

// cell is one value of a table; a long one is shown shortened, with the
// whole text a click away.
type cell struct {
	Short, Full string
}

// longCell is the length above which a cell is shortened.
const longCell = 160

func newCell(s string) cell {
	if len([]rune(s)) <= longCell {
		return cell{Short: s}
	}
	return cell{Short: string([]rune(s)[:120]) + "…", Full: s}
}

type syncRow struct {
	Side, Mpirun, Before, Algorithm, Duration, AtSync, Slope, AtEnd, Target string
}

var statusClass = map[Status]string{Met: "met", PartlyMet: "partly", NotMet: "notmet", NotShown: "cannot", NotApplicable: "na"}

func (r *Report) view() *page {
	opt := r.Options
	v := &page{Title: opt.Title, Generator: opt.Generator, CSS: template.CSS(pageCSS), TwoSides: len(r.Sides) == 2,
		Level: fmt.Sprintf("%g%%", 100*opt.Analysis.Level)}
	if !opt.Generated.IsZero() {
		v.Generated = opt.Generated.UTC().Format("2006-01-02 15:04:05 UTC")
	}
	if len(opt.Command) > 0 {
		v.Command = shellJoin(opt.Command)
	}
	var ids []string
	for i, s := range r.Sides {
		o := r.Overviews[i]
		ids = append(ids, o.RunIDs...)
		v.Sides = append(v.Sides, sideView{Name: s.Name, What: describe(o), Counts: counts(o), When: when(o)})
	}
	if v.Title == "" {
		v.Title = "reprobench report: " + strings.Join(uniqueInOrder(ids), " vs ")
	}
	// Rules.
	count := map[Status]int{}
	for _, ru := range r.Rules {
		count[ru.Status]++
		v.Rules = append(v.Rules, ruleView{Number: ru.Number, Text: ru.Text, Status: ru.Status.String(), Class: statusClass[ru.Status], Evidence: ru.Evidence})
	}
	for _, st := range []Status{Met, PartlyMet, NotMet, NotShown, NotApplicable} {
		if count[st] > 0 {
			v.RuleCounts = append(v.RuleCounts, ruleCount{Status: st.String(), Class: statusClass[st], N: count[st]})
		}
	}
	// Group names: the parts that differ, the shared ones said once.
	type sg struct {
		side int
		g    Group
	}
	var all []sg
	var keys []analysis.GroupKey
	for i, gs := range r.Groups {
		for _, g := range gs {
			all = append(all, sg{i, g})
			keys = append(keys, g.Key)
		}
	}
	names, common := plots.GroupLabels(keys, 1<<20)
	v.Common = strings.ReplaceAll(common, "\n", " ")
	for i, x := range all {
		g := x.g
		side := r.Sides[x.side].Name
		unit, sc := analysis.TimeUnit(g.Median)
		f := func(t float64) string { return analysis.FormatTimeScaled(t, sc, unit) }
		ci := "-"
		if g.MedianCI.Valid() {
			ci = "[" + analysis.FormatTimeScaledPair(g.MedianCI.Lo, g.MedianCI.Hi, sc, unit) + "]"
			if g.MedianCI.Confidence < opt.Analysis.Level-1e-12 {
				ci += fmt.Sprintf(" (%.3g%%)", 100*g.MedianCI.Confidence)
			}
		}
		mr := "-"
		if len(g.MpirunMedians) > 0 {
			mr = strings.TrimSuffix(f(slices.Min(g.MpirunMedians)), unit) + " – " + f(slices.Max(g.MpirunMedians))
		}
		h := headRow{Side: side, Group: names[i], N: strconv.Itoa(g.N), Mpiruns: strconv.Itoa(g.NMpiruns), Median: f(g.Median), CI: ci,
			MpirunRange: mr, P99: f(g.P99), Invalid: pct(g.InvalidShare())}
		switch e := g.InvalidExcess; {
		case e != nil && e.InExcess():
			h.Warn = "in excess of the machine's " + pct(e.Baseline)
		case e != nil:
			h.Warn = ""
		case g.InvalidShare() > 0.1:
			h.Warn = "many invalid"
		}
		if g.Load.Explains() {
			h.Warn = strings.TrimPrefix(h.Warn+"; busy machine", "; ")
		}
		v.Headline = append(v.Headline, h)
		var meds []string
		for _, m := range g.Mpiruns {
			meds = append(meds, strings.TrimSuffix(f(m.Median), unit))
		}
		gr := groupRow{Side: side, Group: names[i], N: strconv.Itoa(g.N),
			Outliers: fmt.Sprintf("%d (%s)", g.OutliersRemoved, pct(g.OutlierShare())),
			Invalid:  fmt.Sprintf("%d of %d (%s)", g.Invalid, g.Rows, pct(g.InvalidShare())),
			Medians:  strings.Join(meds, ", ") + " " + unit, Spread: "-", NormalMed: "-", NormalObs: "-", Warnings: g.Warnings}
		if s := g.Spread(); !math.IsNaN(s) {
			gr.Spread = analysis.FormatRatio(s) + "×"
		}
		gr.Modes = modesCell(g.Modes, f)
		if w := loadWarning(g.Load); w != "" {
			gr.Warnings = append(slices.Clone(gr.Warnings), w)
		}
		if !math.IsNaN(g.Normality.P) {
			gr.NormalMed = fmt.Sprintf("p = %.3g", g.Normality.P)
		}
		if g.ObsTested > 0 {
			gr.NormalObs = fmt.Sprintf("rejected in %d of %d", g.ObsRejected, g.ObsTested)
		}
		v.GroupRows = append(v.GroupRows, gr)
	}
	v.SharedWarnings = foldWarnings(v.GroupRows)
	v.Windows = r.windowsView(names, func(i int) string { return r.Sides[all[i].side].Name }, func(i int) Group { return all[i].g })
	v.Pct = r.percentilesView(names, func(i int) string { return r.Sides[all[i].side].Name }, func(i int) Group { return all[i].g })
	// Figures.
	r.figures(v)
	r.findings(v)
	r.methodView(v)
	r.machineView(v)
	r.regionsView(v)
	return v
}

// windowsView leads with each side's own late share (the pooled window
// baselines of its mpiruns) and sets every windowed group's invalid share
// beside it; nil when no side recorded a baseline and no row is invalid.
func (r *Report) windowsView(names []string, side func(int) string, group func(int) Group) *windowsView {
	v := &windowsView{Note: tables.BaselineNote + "."}
	invalid := 0
	for i, o := range r.Overviews {
		invalid += o.Invalid
		name := r.Sides[i].Name
		b := o.Baseline
		if b.Observations == 0 {
			v.Lead = append(v.Lead, fmt.Sprintf("%s: the machine's own late share was not measured (no window baseline in the sidecars: a run without windowed experiments, or run --window-baseline 0, or an older reprobench).", name))
			continue
		}
		over, of := 0, 0
		for _, g := range r.Groups[i] {
			if e := g.InvalidExcess; e != nil {
				of++
				if e.InExcess() {
					over++
				}
			}
		}
		v.Lead = append(v.Lead, fmt.Sprintf("%s: the machine's own late share is %s (%d of %d observations of the window loop with nothing to time, %s window, %s late tolerance, in %d mpiruns, %s in all); %d of %d windowed groups lose more than that.",
			name, pct(share(b.Invalid, b.Observations)), b.Invalid, b.Observations, analysis.FormatTime(b.WindowS), analysis.FormatTime(b.LateToleranceS),
			o.BaselineMpiruns, analysis.FormatTime(b.DurationS), over, of))
	}
	for i, name := range names {
		g := group(i)
		e := g.InvalidExcess
		if e == nil {
			continue
		}
		row := excessRow{Side: side(i), Group: name, Invalid: fmt.Sprintf("%d of %d (%s)", e.Invalid, e.Rows, tables.SharePct(e.Share)),
			Own: tables.SharePct(e.Baseline), Excess: tables.ExcessText(*e)}
		if e.InExcess() {
			row.Mark = "in excess"
		}
		if g.Load.Explains() {
			row.Mark = strings.TrimPrefix(row.Mark+"; busy machine", "; ")
		}
		v.Rows = append(v.Rows, row)
	}
	if len(v.Rows) == 0 && invalid == 0 {
		return nil
	}
	return v
}

// percentilesView lays out every group's tail percentiles
// (Options.Analysis.Percentiles; nil without them): the value, its
// interval, and a mark where it is of the pooled observations. names,
// side and group give the i-th group of the page.
func (r *Report) percentilesView(names []string, side func(int) string, group func(int) Group) *pctView {
	pcts := r.Options.Analysis.Percentiles
	if len(pcts) == 0 || len(names) == 0 {
		return nil
	}
	v := &pctView{}
	for _, p := range pcts {
		v.Header = append(v.Header, "P"+strconv.FormatFloat(p, 'f', -1, 64))
	}
	pooled, nearest := 0, false
	warn := map[string]int{}
	var order []string
	for i, name := range names {
		g := group(i)
		row := pctRow{Side: side(i), Group: name}
		for _, ps := range g.Percentiles {
			unit, sc := analysis.TimeUnit(ps.Value)
			c := analysis.FormatTimeScaled(ps.Value, sc, unit)
			if ps.CI.Valid() {
				c += " [" + analysis.FormatTimeScaledPair(ps.CI.Lo, ps.CI.Hi, sc, unit) + "]"
			} else {
				c += " [-]"
			}
			isPooled := ps.Of == analysis.PercentileOfPooled
			if isPooled {
				pooled++
			}
			nearest = nearest || ps.Rule == "nearest-rank"
			row.Cells = append(row.Cells, pctCell{Text: c, Pooled: isPooled})
			for _, w := range ps.Warnings {
				if warn[w] == 0 {
					order = append(order, w)
				}
				warn[w]++
			}
		}
		v.Rows = append(v.Rows, row)
	}
	if pooled > 0 {
		v.Notes = append(v.Notes, fmt.Sprintf("pooled (%d cells): too few mpiruns for an interval over mpiruns; the percentile of all valid observations pooled, whose interval treats them as independent and is too narrow when mpiruns differ.", pooled))
	}
	if nearest {
		v.Notes = append(v.Notes, "runtime_type=osu groups: nearest-rank percentiles of the per-iteration times averaged over ranks, as OSU 7's -z.")
	}
	for _, w := range order {
		v.Notes = append(v.Notes, fmt.Sprintf("%d cells: %s", warn[w], w))
	}
	return v
}

// regionsView shows each run of application regions: the timeline of a
// slice of iterations and, per region, the spread of the ranks' entries
// beside what the clocks allow.
func (r *Report) regionsView(v *page) {
	for i, runs := range r.Regions {
		for _, run := range runs {
			rv := regionView{Title: fmt.Sprintf("%s mpirun %d (%d ranks)", run.ID.RunID, run.ID.Mpirun, run.Np), SVG: timelineSVG(run)}
			if len(r.Sides) == 2 {
				rv.Title = r.Sides[i].Name + ": " + rv.Title
			}
			switch {
			case !run.Synced:
				rv.Note = "The clocks were not synchronized: no global times, no timeline and no entry spread; runtime_s (each rank's own clock) stands."
			case rv.SVG == "":
				rv.Note = fmt.Sprintf("No region occurrence in iterations %d to %d.", run.From, run.To-1)
			default:
				rv.Note = fmt.Sprintf("Iterations %d to %d on the global clock. Stated clock bounds per rank: %s.", run.From, run.To-1, boundList(run.BoundS))
			}
			for _, e := range run.Entry {
				row := entryRow{Region: e.Region, N: strconv.Itoa(e.N), Runtime: e.MedianRuntimeS, Median: fmtSeconds(e.MedianS), P90: fmtSeconds(e.P90S),
					Max: fmtSeconds(e.MaxS), Bound: fmtSeconds(e.BoundS), Resolved: "—"}
				if !math.IsNaN(e.MedianS) && !math.IsNaN(e.BoundS) {
					row.Resolved = "no: within the clocks' error"
					if e.MedianS > e.BoundS {
						row.Resolved = "yes"
					}
				}
				rv.Rows = append(rv.Rows, row)
			}
			regionAnalysisView(&rv, run.Analysis)
			v.Regions = append(v.Regions, rv)
		}
	}
}

func boundList(b []float64) string {
	parts := make([]string, len(b))
	for i, x := range b {
		parts[i] = fmt.Sprintf("rank %d %s", i, fmtSeconds(x))
	}
	return strings.Join(parts, ", ")
}

// foldWarnings takes the warnings that more than 3 groups have out of
// the rows and returns them, each once with the number of groups, so that
// the rows keep only what sets a group apart.
func foldWarnings(rows []groupRow) []string {
	count := map[string]int{}
	var order []string
	for _, r := range rows {
		for _, w := range r.Warnings {
			if count[w] == 0 {
				order = append(order, w)
			}
			count[w]++
		}
	}
	var shared []string
	for _, w := range order {
		if count[w] > 3 {
			n := fmt.Sprintf("%d groups", count[w])
			if count[w] == len(rows) {
				n = "every group"
			}
			shared = append(shared, n+": "+w)
		}
	}
	for i := range rows {
		rows[i].Warnings = slices.DeleteFunc(slices.Clone(rows[i].Warnings), func(w string) bool { return count[w] > 3 })
	}
	return shared
}

func describe(o Overview) string {
	var sizes []string
	for _, s := range o.Sizes {
		sizes = append(sizes, plots.HumanBytes(s))
	}
	var nps []string
	for _, n := range o.Nps {
		nps = append(nps, strconv.Itoa(n))
	}
	var parts []string
	if len(o.Calls) > 0 {
		s := fmt.Sprintf("%s at %s", strings.Join(o.Calls, ", "), strings.Join(sizes, ", "))
		if len(o.Datatypes) > 0 {
			s += " (" + strings.Join(o.Datatypes, ", ") + ")"
		}
		parts = append(parts, s)
	}
	if len(o.Regions) > 0 {
		parts = append(parts, "application regions "+strings.Join(o.Regions, ", "))
	}
	return fmt.Sprintf("%s on %s processes", strings.Join(parts, "; "), strings.Join(nps, ", "))
}

func counts(o Overview) string {
	s := fmt.Sprintf("%d mpiruns (run id %s); %d observations: %d valid, of which %d removed as outliers; %d invalid (%s); %d bad",
		o.Mpiruns, strings.Join(o.RunIDs, ", "), o.Rows, o.Valid, o.Outliers, o.Invalid, pct(share(o.Invalid, o.Rows)), o.Bad)
	if o.WrongResults > 0 {
		s += fmt.Sprintf("; WRONG RESULTS: %d of the invalid (run --check found the operation's result wrong)", o.WrongResults)
	}
	return s
}

func when(o Overview) string {
	if o.Start.IsZero() {
		return "when: not recorded (no sidecars)"
	}
	return fmt.Sprintf("measured %s to %s, %s of mpiruns", o.Start.UTC().Format("2006-01-02 15:04:05"), o.End.UTC().Format("15:04:05 UTC"),
		(time.Duration(o.MpirunSeconds * float64(time.Second))).Round(time.Second))
}

// figures draws the report's figures as inline SVG.
func (r *Report) figures(v *page) {
	opt := r.Options.Analysis
	// One data set of every side's groups when their keys differ (the
	// sides' labels tell them apart), else one figure per side.
	var batches []struct {
		d    *analysis.Dataset
		sums []analysis.GroupSummary
	}
	seen := map[analysis.GroupKey]bool{}
	distinct := true
	combined := &analysis.Dataset{}
	var allSums []analysis.GroupSummary
	for i, s := range r.Sides {
		combined.Groups = append(combined.Groups, s.Data.Groups...)
		for _, g := range r.Groups[i] {
			if seen[g.Key] {
				distinct = false
			}
			seen[g.Key] = true
			if g.N > 0 {
				allSums = append(allSums, g.GroupSummary)
			}
		}
	}
	if distinct {
		batches = append(batches, struct {
			d    *analysis.Dataset
			sums []analysis.GroupSummary
		}{combined, allSums})
	} else {
		for i, s := range r.Sides {
			var sums []analysis.GroupSummary
			for _, g := range r.Groups[i] {
				if g.N > 0 {
					sums = append(sums, g.GroupSummary)
				}
			}
			batches = append(batches, struct {
				d    *analysis.Dataset
				sums []analysis.GroupSummary
			}{s.Data, sums})
		}
	}
	for _, b := range batches {
		if len(b.sums) == 0 {
			v.Violins = append(v.Violins, notDrawn("run-time distributions", errors.New("no group has a valid observation")))
			continue
		}
		for _, part := range splitByCall(b.sums) {
			v.Violins = append(v.Violins, draw("run-time distributions", func() (plots.Figure, error) {
				return plots.Distributions(b.d, part, opt, true, plots.LogAuto, plots.Size{Width: 11})
			}))
			v.MpirunFigs = append(v.MpirunFigs, draw("per-mpirun medians", func() (plots.Figure, error) {
				return plots.Mpiruns(b.d, part, opt, plots.Size{Width: 11})
			}))
		}
	}
	if c := r.Comparison; c != nil {
		cv := &compareView{NameA: r.Sides[0].Name, NameB: r.Sides[1].Name, SideLabels: strings.Join(c.SideLabels, ", "), Warning: c.Warning,
			Alpha: fmt.Sprintf("%g", opt.Alpha), Alternative: opt.Alternative.String()}
		var keys []analysis.GroupKey
		for _, row := range c.Rows {
			keys = append(keys, row.Key)
		}
		names, _ := plots.GroupLabels(keys, 1<<20)
		for i, row := range c.Rows {
			unit, sc := analysis.TimeUnit(row.MedianA)
			mratio := tables.RatioWithCI(row.Ratio, row.MedianRatioCI)
			ratio := tables.RatioWithCI(row.RatioShift, row.RatioCI)
			shift := analysis.FormatTimeSigned(row.Shift.Estimate, sc, unit)
			if row.Shift.Valid() {
				shift += " [" + analysis.FormatTimeScaledPair(row.Shift.Lo, row.Shift.Hi, sc, unit) + "]"
			}
			sig := analysis.Stars(row.Result.P)
			class := "same"
			if !row.Significant || sig == "" {
				sig = "~"
			} else if row.RatioShift > 1 {
				class = "slower"
			} else {
				class = "faster"
			}
			if row.Test == "wilcoxon-observations" {
				// One mpirun on a side: no mpirun-level significance.
				sig, class = "(obs)", "same"
			}
			p := "-"
			if !math.IsNaN(row.Result.P) {
				p = strconv.FormatFloat(row.Result.P, 'f', 3, 64)
			}
			cv.Rows = append(cv.Rows, compareRow{Group: names[i], MedianA: analysis.FormatTimeScaled(row.MedianA, sc, unit),
				MedianB: analysis.FormatTimeScaled(row.MedianB, sc, unit), MedianRatio: mratio, Ratio: ratio, Shift: shift, P: p, Sig: sig,
				Test: shortTest(row.Test), N: fmt.Sprintf("%d+%d", row.NA, row.NB), Class: class})
		}
		for _, k := range c.OnlyA {
			cv.OnlyA = append(cv.OnlyA, k.String())
		}
		for _, k := range c.OnlyB {
			cv.OnlyB = append(cv.OnlyB, k.String())
		}
		for start := 0; start < len(c.Rows); start += maxRowsPerFigure {
			rows := c.Rows[start:min(start+maxRowsPerFigure, len(c.Rows))]
			cv.Figures = append(cv.Figures, draw("comparison", func() (plots.Figure, error) {
				return plots.Compare(rows, opt.Level, plots.Size{Width: 11})
			}))
		}
		v.Compare = cv
	}
}

// splitByCall splits sums into parts of at most maxRowsPerFigure groups,
// one call per part when there are more.
func splitByCall(sums []analysis.GroupSummary) [][]analysis.GroupSummary {
	if len(sums) <= maxRowsPerFigure {
		return [][]analysis.GroupSummary{sums}
	}
	var parts [][]analysis.GroupSummary
	byCall := map[string][]analysis.GroupSummary{}
	for _, s := range sums {
		byCall[s.Key.Call] = append(byCall[s.Key.Call], s)
	}
	for _, c := range sortedKeys(byCall) {
		g := byCall[c]
		for len(g) > maxRowsPerFigure {
			parts = append(parts, g[:maxRowsPerFigure])
			g = g[maxRowsPerFigure:]
		}
		parts = append(parts, g)
	}
	return parts
}

func shortTest(t string) string {
	switch t {
	case "wilcoxon-mpirun-medians":
		return "rank-sum, medians"
	case analysis.TestPairedMpirunMedians:
		return "signed-rank, paired"
	case "wilcoxon-observations":
		return "rank-sum, observations"
	}
	return t
}

var (
	svgProlog = regexp.MustCompile(`(?s)^.*?<svg `)
	svgFont   = regexp.MustCompile(`font-family:Liberation Serif;`)
)

// draw makes a figure for the page; a figure that cannot be drawn (data a
// plot cannot show) becomes a note that says why, not a failed report.
func draw(label string, mk func() (plots.Figure, error)) template.HTML {
	fig, err := mk()
	if err != nil {
		return notDrawn(label, err)
	}
	svg, err := inlineSVG(fig, label)
	if err != nil {
		return notDrawn(label, err)
	}
	return svg
}

func notDrawn(label string, err error) template.HTML {
	return template.HTML(`<p class="warn">The ` + template.HTMLEscapeString(label) + ` figure could not be drawn: ` + template.HTMLEscapeString(err.Error()) + `</p>`)
}

// inlineSVG renders fig as an <svg> element for the page: without the XML
// prolog, scaled to the page's width, its text in Liberation Serif or the
// fonts with the same metrics (Times New Roman, Times), which every system
// has one of, so that labels keep the widths the layout measured.
func inlineSVG(fig plots.Figure, label string) (template.HTML, error) {
	b, err := fig.SVG()
	if err != nil {
		return "", fmt.Errorf("report: %s: %w", label, err)
	}
	s := svgProlog.ReplaceAllString(string(b), `<svg class="fig" role="img" aria-label="`+template.HTMLEscapeString(label)+`" `)
	s = svgFont.ReplaceAllString(s, `font-family:'Liberation Serif','Times New Roman',Times,serif;`)
	return template.HTML(s), nil
}

// findings are the sentences at the top of the summary.
func (r *Report) findings(v *page) {
	if c := r.Comparison; c != nil && len(c.Rows) > 0 {
		var faster, slower, same int
		for _, row := range c.Rows {
			switch {
			case !row.Significant:
				same++
			case row.RatioShift < 1:
				faster++
			default:
				slower++
			}
		}
		v.Findings = append(v.Findings, fmt.Sprintf("%s against %s, %d groups compared (Wilcoxon at alpha %g): %s faster in %d, slower in %d, no significant difference in %d.",
			r.Sides[1].Name, r.Sides[0].Name, len(c.Rows), r.Options.Analysis.Alpha, r.Sides[1].Name, faster, slower, same))
	}
	var met, not, cannot int
	for _, ru := range r.Rules {
		switch ru.Status {
		case Met:
			met++
		case NotMet, PartlyMet:
			not++
		case NotShown:
			cannot++
		}
	}
	for i, s := range r.Sides {
		if line := tables.MachineLoadLine(r.Overviews[i].CPULoads); line != "" {
			explained, of := 0, 0
			for _, g := range r.Groups[i] {
				if g.Load != nil {
					of++
					if g.Load.Explains() {
						explained++
					}
				}
			}
			f := fmt.Sprintf("%s: %s.", s.Name, upperFirst(line))
			if explained > 0 {
				f += fmt.Sprintf(" The load explains %d of %d groups (their invalid share in excess of the machine's own, or their slowest mpirun busy) — see the groups and the machine section.", explained, of)
			}
			v.Findings = append(v.Findings, f)
		}
	}
	v.Findings = append(v.Findings, fmt.Sprintf("Hoefler and Belli's 12 rules: %d met, %d not or partly met, %d the data cannot show (see the checklist).", met, not, cannot))
	for i, s := range r.Sides {
		o := r.Overviews[i]
		sh := share(o.Invalid, o.Rows)
		switch b := o.Baseline; {
		case b.Observations > 0 && o.Invalid > 0:
			over := 0
			for _, g := range r.Groups[i] {
				if g.InvalidExcess != nil && g.InvalidExcess.InExcess() {
					over++
				}
			}
			verb := "lose"
			if over == 1 {
				verb = "loses"
			}
			v.Findings = append(v.Findings, fmt.Sprintf("%s: %s of the observations are invalid; the machine's own late share, measured in the same mpiruns, is %s; %s %s significantly more — see windows.",
				s.Name, pct(sh), pct(share(b.Invalid, b.Observations)), tables.Groups(over), verb))
		case sh > 0.1:
			v.Findings = append(v.Findings, fmt.Sprintf("%s: %s of the observations are invalid (a window missed); the medians describe the valid ones only — see the method section.", s.Name, pct(sh)))
		}
	}
}

// methodView lays out how each side measured.
func (r *Report) methodView(v *page) {
	n := len(r.Sides)
	row := func(name, note string, value func(m Method, i int) string) {
		fr := factRow{Name: name, Note: note}
		for i := 0; i < n; i++ {
			fr.Cells = append(fr.Cells, newCell(value(r.Methods[i], i)))
		}
		v.Method = append(v.Method, fr)
	}
	row("measured time", "local: per observation the largest over ranks of end − start on each rank's own clock; global: the latest end minus the earliest start in synchronized time",
		func(m Method, _ int) string { return orNone(m.RuntimeTypes) })
	row("process synchronization", "how the ranks start each observation together (Hunold & Carpen-Amarie 2016, §4; windows: Hoefler & Belli 2015, §4.2.1)",
		func(m Method, _ int) string { return orNone(m.ProcSyncs) })
	row("windows", "initial → final window of the windowed methods, and how often an adaptive policy changed it",
		func(m Method, _ int) string {
			if m.InitialWindowS.N == 0 {
				return "no windows"
			}
			return fmt.Sprintf("%s → %s; %d adaptations", rangeTime(m.InitialWindowS), rangeTime(m.FinalWindowS), m.Adaptations)
		})
	row("invalid observations", "rows flagged late or expired by the window, not analyzed (docs/data-format.md)",
		func(m Method, i int) string {
			o := r.Overviews[i]
			s := fmt.Sprintf("%d of %d (%s)", o.Invalid, o.Rows, pct(share(o.Invalid, o.Rows)))
			if len(m.LateTolerance) > 0 {
				s += "; late tolerance " + strings.Join(m.LateTolerance, ", ")
			}
			if m.MaxLateS > 0 {
				s += "; latest start " + analysis.FormatTime(m.MaxLateS) + " late"
			}
			return s
		})
	row("clock synchronization", "the algorithm the clocks were synchronized with; with local run times it only sets the windows' common start",
		func(m Method, _ int) string {
			if len(m.Syncs) == 0 {
				return orNone(m.ClockSyncs)
			}
			var d Range
			for _, s := range m.Syncs {
				d.add(s.DurationS)
			}
			return fmt.Sprintf("%s; %d synchronizations of %s each", orNone(m.ClockSyncs), len(m.Syncs), rangeTime(d))
		})
	row("clock accuracy (stated bound)", "the error bound each synchronization predicted for itself, at the sync and at the end of its mpirun; a bound, not a measured error",
		func(m Method, _ int) string {
			var at, end Range
			unknown, targets, met := 0, 0, 0
			for _, s := range m.Syncs {
				at.add(s.BoundAtSyncS)
				end.add(s.BoundAtEndS)
				if s.Unknown != "" {
					unknown++
				}
				if s.Target != "" {
					targets++
					if s.TargetMet {
						met++
					}
				}
			}
			if len(m.Syncs) == 0 {
				return "no synchronization recorded"
			}
			out := fmt.Sprintf("at the sync %s; at the end of the mpirun %s", rangeTime(at), rangeTime(end))
			if unknown > 0 {
				out += fmt.Sprintf("; %d without a bound", unknown)
			}
			if targets > 0 {
				out += fmt.Sprintf("; target met in %d of %d", met, targets)
			} else {
				out += "; no accuracy target"
			}
			return out
		})
	row("clock accuracy (true error)", "needs a ground truth: reprobench clockcheck, or the virtual cluster's known offsets",
		func(Method, int) string { return "not measured in this campaign (the data cannot show it)" })
	row("warm-up", "observations run and discarded before each experiment's first recorded one (Hoefler & Belli 2015, §4.1.2)",
		func(m Method, _ int) string {
			if m.Warmup.N == 0 {
				return "not recorded"
			}
			return rangeInts(m.Warmup) + " per experiment"
		})
	row("timer", "resolution and read overhead measured at the start of each mpirun; Hoefler & Belli 2015, §4.2.1 asks for an overhead below 5% of the interval and a resolution 10× finer",
		func(m Method, i int) string { return timerCell(m, r.Groups[i]) })
	row("summary", "what the headline numbers are",
		func(Method, int) string {
			tukey := fmt.Sprintf("Tukey's fences (k = %g) per mpirun, as Alg. 6 does (Hoefler & Belli 2015, §3.1.3, advise keeping outliers; --tukey 0 does; docs/outliers.md)", r.Options.Analysis.TukeyK)
			if r.Options.Analysis.TukeyK == 0 {
				tukey = "no outlier filter (--tukey 0; Alg. 6 filters with Tukey's fences per mpirun)"
			}
			return fmt.Sprintf("%s, per-mpirun medians, their median with a %g%% order-statistic CI (Hunold & Carpen-Amarie 2016, Alg. 6)", tukey, 100*r.Options.Analysis.Level)
		})
	row("heap allocations", "per observation, whole process, rank 0: the observation loop should not allocate",
		func(m Method, _ int) string {
			if m.AllocsPerObs.N == 0 {
				return "not recorded"
			}
			lo, hi := fmt.Sprintf("%.3g", m.AllocsPerObs.Min), fmt.Sprintf("%.3g", m.AllocsPerObs.Max)
			if lo == hi {
				return lo
			}
			return lo + " – " + hi
		})
	row("noise guard", "window starts placed away from learned periodic OS noise (opt-in, run --noise-guard)",
		func(m Method, _ int) string {
			if m.NoiseGuarded == 0 {
				return "off; no noise probe recorded"
			}
			return fmt.Sprintf("on in %d experiments; %s – %s of window slots skipped; %s sources learned", m.NoiseGuarded, pct(m.NoiseSkipped.Min), pct(m.NoiseSkipped.Max), rangeInts(m.NoiseSources))
		})
	extra := map[string]bool{}
	for i, m := range r.Methods {
		for _, s := range m.Syncs {
			sr := syncRow{Side: r.Sides[i].Name, Mpirun: fmt.Sprintf("%s/%d", s.Mpirun.RunID, s.Mpirun.Mpirun), Before: strconv.Itoa(s.BeforeExp),
				Algorithm: s.Algorithm, Duration: analysis.FormatTime(s.DurationS), AtSync: analysis.FormatTime(s.BoundAtSyncS),
				Slope: fmt.Sprintf("%.3g", s.BoundSlope), AtEnd: analysis.FormatTime(s.BoundAtEndS), Target: "-"}
			if s.Unknown != "" {
				sr.AtSync, sr.Slope, sr.AtEnd = "unknown: "+s.Unknown, "-", "-"
			}
			if s.Target != "" {
				sr.Target = s.Target + map[bool]string{true: " (met)", false: " (not met)"}[s.TargetMet]
			}
			v.Syncs = append(v.Syncs, sr)
			for k, x := range s.Extra {
				extra[k+" = "+x] = true
			}
		}
	}
	v.SyncExtra = sortedKeys(extra)
}

// timerCell says the timer's resolution and overhead against the shortest
// median.
func timerCell(m Method, groups []Group) string {
	if len(m.Clocks) == 0 {
		return "not recorded"
	}
	var res, ovh Range
	names := map[string]bool{}
	for _, c := range m.Clocks {
		res.add(c.ResolutionNs * 1e-9)
		ovh.add(c.OverheadNs * 1e-9)
		names[c.Name] = true
	}
	s := fmt.Sprintf("%s: resolution %s, read overhead %s", strings.Join(sortedKeys(names), ", "), rangeTime(res), rangeTime(ovh))
	shortest := math.Inf(1)
	for _, g := range groups {
		if g.Median > 0 {
			shortest = math.Min(shortest, g.Median)
		}
	}
	if !math.IsInf(shortest, 1) {
		okO, okR := ovh.Max <= 0.05*shortest, res.Max*10 <= shortest
		verdict := "meets both"
		switch {
		case !okO && !okR:
			verdict = "misses both"
		case !okO:
			verdict = "overhead above 5%"
		case !okR:
			verdict = "resolution not 10× finer"
		}
		s += fmt.Sprintf("; the shortest median is %s: overhead %s of it, resolution %s of it (%s)", analysis.FormatTime(shortest), pct(ovh.Max/shortest), pct(res.Max/shortest), verdict)
	}
	return s
}

func rangeTime(r Range) string {
	if r.N == 0 {
		return "-"
	}
	lo, hi := analysis.FormatTime(r.Min), analysis.FormatTime(r.Max)
	if lo == hi {
		return lo
	}
	return lo + " – " + hi
}

// keyedRows makes a row per key of any of the maps (a side each), named
// prefix+key, "-" where a side lacks the key.
func keyedRows(maps []map[string]string, prefix string) []factRow {
	keys := map[string]bool{}
	for _, m := range maps {
		for k := range m {
			keys[k] = true
		}
	}
	var rows []factRow
	for _, k := range sortedKeys(keys) {
		fr := factRow{Name: prefix + k}
		for _, m := range maps {
			val, ok := m[k]
			if !ok {
				val = "-"
			}
			fr.Cells = append(fr.Cells, newCell(val))
		}
		rows = append(rows, fr)
	}
	return rows
}

// machineView lays out the environment of each side.
func (r *Report) machineView(v *page) {
	v.Provenance = r.Differences
	var names []string
	for _, m := range r.Machines {
		for _, f := range m.Facts {
			if !slices.Contains(names, f.Name) {
				names = append(names, f.Name)
			}
		}
	}
	for _, n := range names {
		fr := factRow{Name: n}
		for _, m := range r.Machines {
			c := "-"
			for _, f := range m.Facts {
				if f.Name == n {
					c = strings.Join(f.Values, " | ")
					if len(f.Values) > 1 {
						c += fmt.Sprintf(" (%d values)", len(f.Values))
					}
				}
			}
			fr.Cells = append(fr.Cells, newCell(c))
		}
		v.Machine = append(v.Machine, fr)
	}
	var env, flags []map[string]string
	for _, m := range r.Machines {
		env, flags = append(env, m.MPIEnv), append(flags, m.Flags)
	}
	if fr := r.cpuLoadRow(); fr != nil {
		v.Machine = append(v.Machine, *fr)
	}
	v.MPIEnv, v.Flags = keyedRows(env, ""), keyedRows(flags, "--")
	for i, m := range r.Machines {
		v.Unavailable = append(v.Unavailable, m.Unavailable)
		v.Commands = append(v.Commands, m.Commands)
		v.Files = append(v.Files, r.Sides[i].Files)
		v.Missing = append(v.Missing, r.Sides[i].Missing)
	}
}

// modesCell describes the modes of a group for the per-group table: each
// mode's median and its share of the mpiruns, and the covariates that
// explain them; "1" for one mode, "-" with too few mpiruns to tell.
func modesCell(m analysis.Modes, f func(float64) string) string {
	if len(m.Modes) == 0 {
		return "-"
	}
	if !m.Split() {
		return "1"
	}
	n := 0
	for _, md := range m.Modes {
		n += len(md.Mpiruns)
	}
	var parts []string
	for _, md := range m.Modes {
		parts = append(parts, fmt.Sprintf("%s in %d of %d mpiruns (%s)", f(md.Median), len(md.Mpiruns), n, pct(md.Share)))
	}
	out := fmt.Sprintf("%d modes: %s", len(m.Modes), strings.Join(parts, "; "))
	if len(m.ExplainedBy) > 0 {
		out += "; explained by " + strings.Join(m.ExplainedBy, ", ")
	}
	return out
}

// cpuLoadRow is the machine section's row of the CPU time other processes
// took during each side's mpirun measurements (Overview.CPULoads); nil
// when no side recorded any.
func (r *Report) cpuLoadRow() *factRow {
	fr := &factRow{Name: "CPU taken by other processes", Note: tables.CPULoadNote}
	seen := false
	for i := range r.Sides {
		var parts []string
		for _, l := range r.Overviews[i].CPULoads {
			if l == nil {
				parts = append(parts, "-")
				continue
			}
			seen = true
			p := tables.SharePct(l.BusiestShare())
			if analysis.MpirunBusy(l) {
				p += " busy"
			}
			parts = append(parts, p)
		}
		c := "-"
		if line := tables.MachineLoadLine(r.Overviews[i].CPULoads); line != "" {
			c = "per mpirun: " + strings.Join(parts, ", ") + "; " + line
		}
		fr.Cells = append(fr.Cells, newCell(c))
	}
	if !seen {
		return nil
	}
	return fr
}

// loadWarning is a group's warning when the CPU load of other processes
// explains its numbers (analysis.GroupLoad.Explains), "" otherwise.
func loadWarning(l *analysis.GroupLoad) string {
	if !l.Explains() {
		return ""
	}
	var why []string
	if l.InExcess {
		why = append(why, "its invalid share in excess of the machine's own")
	}
	if l.SlowestBusy {
		why = append(why, "its slowest per-mpirun median")
	}
	return fmt.Sprintf("The machine was busy in %d of %d of its mpiruns (other processes took up to %.0f%% of the CPU time the ranks could use); the load explains %s.",
		l.Busy, l.Recorded, 100*l.Max, strings.Join(why, " and "))
}

// upperFirst returns s with its first letter in upper case.
func upperFirst(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}
