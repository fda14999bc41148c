package report

import (
	"bytes"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/net/html"

	"github.com/reprobench/reprobench/analysis"
	"github.com/reprobench/reprobench/rawdata"
)

// twoSides writes two campaigns like the demo's (Open MPI against MPICH,
// 9 groups each) and loads them.
func twoSides(t testing.TB, a, b spec) []*Side {
	t.Helper()
	dir := t.TempDir()
	var sides []*Side
	for _, c := range []spec{a, b} {
		files := writeCampaign(t, dir, c)
		s, err := Load(files, false)
		if err != nil {
			t.Fatal(err)
		}
		sides = append(sides, s)
	}
	return sides
}

// oneSide writes campaign c and makes its report.
func oneSide(t *testing.T, c spec) *Report {
	t.Helper()
	s, err := Load(writeCampaign(t, t.TempDir(), c), false)
	if err != nil {
		t.Fatal(err)
	}
	r, err := New([]*Side{s}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func demoLike(mpiruns, reps int) (spec, spec) {
	a := spec{runID: "openmpi", lib: "openmpi", mpiruns: mpiruns, reps: reps, factor: 1, invalid: 0.05, outliers: 0.01, seed: 1,
		unavailable: []string{"cpufreq: no scaling_governor"}, manifest: mpiruns}
	b := spec{runID: "mpich", lib: "mpich", mpiruns: mpiruns, reps: reps, factor: 1.5, invalid: 0.05, outliers: 0.01, seed: 2,
		unavailable: []string{"cpufreq: no scaling_governor"}, manifest: mpiruns}
	return a, b
}

func ruleStatus(r *Report) []Status {
	out := make([]Status, len(r.Rules))
	for i, ru := range r.Rules {
		out[i] = ru.Status
	}
	return out
}

func evidence(r *Report, rule int) string { return strings.Join(r.Rules[rule-1].Evidence, "\n") }

// TestRulesDemoLike checks the checklist on two campaigns as the demo runs
// them, at 5 mpiruns (below the 6 a 95% interval of medians needs) and at
// 8: every status is what the data support, with its evidence.
func TestRulesDemoLike(t *testing.T) {
	a, b := demoLike(5, 60)
	r, err := New(twoSides(t, a, b), Options{Analysis: analysis.DefaultOptions})
	if err != nil {
		t.Fatal(err)
	}
	if r.Sides[0].Name != "openmpi" || r.Sides[1].Name != "mpich" {
		t.Errorf("sides named %q, %q; want openmpi, mpich (the label that tells them apart)", r.Sides[0].Name, r.Sides[1].Name)
	}
	c := r.Comparison
	if c == nil || len(c.Rows) != 9 || len(c.OnlyA)+len(c.OnlyB) != 0 || !slices.Equal(c.SideLabels, []string{"mpi_lib"}) {
		t.Fatalf("comparison: %+v", c)
	}
	for _, row := range c.Rows {
		// MPICH is 1.5× slower in the fixture; 5+5 mpiruns reach p = 0.008.
		if !row.Significant || row.Ratio < 1.3 || row.Ratio > 1.7 {
			t.Errorf("%s: ratio %g significant %v; want ≈1.5 and significant", row.Key, row.Ratio, row.Significant)
		}
	}
	want := []Status{Met, Met, Met, Met, PartlyMet, Met, Met, Met, PartlyMet, Met, NotShown, Met}
	if got := ruleStatus(r); !slices.Equal(got, want) {
		t.Errorf("statuses\n got %v\nwant %v", got, want)
		for _, ru := range r.Rules {
			t.Logf("rule %d %s: %s", ru.Number, ru.Status, strings.Join(ru.Evidence, " | "))
		}
	}
	for _, c := range []struct {
		rule int
		want string
	}{
		{2, "all 5 mpiruns of campaign openmpi are in the report"},
		{2, "2 processes on 1 node(s) with 2 online CPUs each: every core was used"},
		{5, "at only 93.8% confidence"},
		{6, "normality rejected"},
		{7, "9 of 9 groups differ"},
		{9, "environment complete except: cpufreq: no scaling_governor"},
		{10, "no per-rank data"},
		{11, "no upper performance bound"},
	} {
		if ev := evidence(r, c.rule); !strings.Contains(ev, c.want) {
			t.Errorf("rule %d: evidence %q lacks %q", c.rule, ev, c.want)
		}
	}

	// 3 mpiruns per side: the rank-sum test cannot reach p ≤ 0.05
	// (smallest p: 2/C(6, 3) = 0.1).
	a, b = demoLike(3, 40)
	r, err = New(twoSides(t, a, b), Options{Analysis: analysis.DefaultOptions})
	if err != nil {
		t.Fatal(err)
	}
	if ru := r.Rules[6]; ru.Status != PartlyMet || !strings.Contains(evidence(r, 7), "9 comparisons have so few mpiruns") {
		t.Errorf("3+3 mpiruns: rule 7 is %s: %s", ru.Status, evidence(r, 7))
	}

	// 8 mpiruns: the intervals reach 95%.
	a, b = demoLike(8, 40)
	a.unavailable, b.unavailable = nil, nil
	r, err = New(twoSides(t, a, b), Options{Analysis: analysis.DefaultOptions})
	if err != nil {
		t.Fatal(err)
	}
	for rule, want := range map[int]Status{5: Met, 7: Met, 9: Met} {
		if got := r.Rules[rule-1].Status; got != want {
			t.Errorf("8 mpiruns: rule %d is %s, want %s: %s", rule, got, want, evidence(r, rule))
		}
	}
}

// TestRulesWithoutMetadata: raw files alone (no sidecars, no manifest)
// cannot show the setup; one data set has nothing to compare.
func TestRulesWithoutMetadata(t *testing.T) {
	r := oneSide(t, spec{runID: "bare", lib: "x", mpiruns: 3, reps: 30, factor: 1, seed: 3, noSidecar: true})
	if len(r.Sides[0].Missing) != 4 { // 3 sidecars, 1 manifest
		t.Errorf("missing: %q", r.Sides[0].Missing)
	}
	for rule, want := range map[int]Status{1: NotApplicable, 2: NotShown, 4: NotApplicable, 7: NotApplicable, 9: NotMet, 11: NotShown} {
		if got := r.Rules[rule-1].Status; got != want {
			t.Errorf("rule %d is %s, want %s: %s", rule, got, want, evidence(r, rule))
		}
	}
	var b bytes.Buffer
	if err := r.WriteHTML(&b); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(b.String(), `id="comparison"`) {
		t.Error("one data set, but the page has a comparison section")
	}
}

// TestRulePerRank: with per-rank files, rule 10 says whether the ranks'
// times can be pooled.
func TestRulePerRank(t *testing.T) {
	r := oneSide(t, spec{runID: "ranks", lib: "x", mpiruns: 3, reps: 40, factor: 1, seed: 5, perRank: true})
	if len(r.Sides[0].Data.PerRank) != 9 || len(r.Sides[0].Meta) != 3 || len(r.Sides[0].metas()) != 3 {
		t.Fatalf("per-rank groups %d, mpiruns %d with %d sidecars; want 9, 3, 3", len(r.Sides[0].Data.PerRank), len(r.Sides[0].Meta), len(r.Sides[0].metas()))
	}
	if ev := evidence(r, 10); !strings.Contains(ev, "can be pooled") || !strings.Contains(ev, "of 9 groups") {
		t.Errorf("rule 10: %s", ev)
	}
}

// TestRuleSubset: a report of 3 of a campaign's 6 mpiruns does not meet
// rule 2, and says so.
func TestRuleSubset(t *testing.T) {
	r := oneSide(t, spec{runID: "part", lib: "x", mpiruns: 3, reps: 30, factor: 1, seed: 4, manifest: 6})
	if ru := r.Rules[1]; ru.Status != NotMet || !strings.Contains(evidence(r, 2), "3 of the 6 mpiruns of campaign part") {
		t.Errorf("rule 2: %s: %s", ru.Status, evidence(r, 2))
	}
}

// TestPage checks the HTML of the demo-like report: it parses, has every
// section, twelve rules, a figure per plot, nothing that loads from
// anywhere (no script, no external reference, a Content-Security-Policy
// that forbids it), and the commands to reproduce.
func TestPage(t *testing.T) {
	a, b := demoLike(5, 60)
	r, err := New(twoSides(t, a, b), Options{Analysis: analysis.DefaultOptions, Command: []string{"reprobench", "report", "x.csv"}})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := r.WriteHTML(&buf); err != nil {
		t.Fatal(err)
	}
	doc, err := html.Parse(bytes.NewReader(buf.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	p := inspect(doc)
	for _, id := range []string{"summary", "groups", "comparison", "method", "machine", "rules"} {
		if !p.ids[id] {
			t.Errorf("no section #%s", id)
		}
	}
	if n := p.classCount["rule"]; n != 12 {
		t.Errorf("%d rules on the page, want 12", n)
	}
	if p.svgs != 3 { // violins, per-mpirun medians, comparison
		t.Errorf("%d figures, want 3", p.svgs)
	}
	if len(p.external) > 0 {
		t.Errorf("references that leave the page: %q", p.external)
	}
	if !strings.Contains(p.csp, "default-src 'none'") {
		t.Errorf("Content-Security-Policy %q does not forbid loading", p.csp)
	}
	page := buf.String()
	for _, want := range []string{
		"reprobench launch --exe reprobench --mpiruns 5 --np 2 --launcher 'mpirun -np {np}'", // rebuilt from the manifest
		"mpirun -np 2 reprobench run --out",
		"reprobench report x.csv",
		"Test CPU", "openmpi 1.0", "MPI_THREAD_SINGLE", "OMPI_MCA_btl_vader_single_copy_mechanism",
		"target_source = late tolerance", // a field of the sync record this package does not know
		"not measured in this campaign",
		"resolution 30.0ns",
	} {
		if !strings.Contains(page, want) && !strings.Contains(html.UnescapeString(page), want) {
			t.Errorf("page lacks %q", want)
		}
	}
	if strings.Contains(page, "OMPI_COMM_WORLD_RANK") {
		t.Error("the page lists a per-process variable (OMPI_COMM_WORLD_RANK) as configuration")
	}
	checkComparisonRatios(t, page, len(r.Comparison.Rows))
}

// checkComparisonRatios checks the comparison table of a page: its
// header names both ratios ("median B/A", "HL B/A") and their caption
// says which is which, and in each of rows rows both ratio cells hold a
// value inside its own interval.
func checkComparisonRatios(t *testing.T, page string, rows int) {
	t.Helper()
	page = html.UnescapeString(page)
	i := strings.Index(page, `id="comparison"`)
	if i < 0 {
		t.Fatal("no comparison section")
	}
	sec := page[i:]
	sec = sec[:strings.Index(sec, "</section>")]
	for _, want := range []string{">median B/A [95% CI]</th>", ">HL B/A [95% CI]</th>", "median B/A: ratio of the medians, median B / median A, with its own",
		"HL B/A: exp of the Hodges-Lehmann estimate of log B − log A"} {
		if !strings.Contains(sec, want) {
			t.Errorf("comparison section lacks %q", want)
		}
	}
	cells := regexp.MustCompile(`<td class="num">([0-9.]+) \[([0-9.]+), ([0-9.]+)\]`).FindAllStringSubmatch(sec, -1)
	if len(cells) != 2*rows {
		t.Errorf("%d ratio cells with an interval, want 2 per row for %d rows", len(cells), rows)
	}
	for _, c := range cells {
		v, _ := strconv.ParseFloat(c[1], 64)
		lo, _ := strconv.ParseFloat(c[2], 64)
		hi, _ := strconv.ParseFloat(c[3], 64)
		if !(lo <= v && v <= hi) {
			t.Errorf("ratio cell %q: the value lies outside its interval", c[0])
		}
	}
}

// page facts found by inspect.
type pageFacts struct {
	ids        map[string]bool
	classCount map[string]int
	svgs       int
	external   []string
	csp        string
}

// inspect walks a parsed page for its section ids, classes, inline SVGs,
// the Content-Security-Policy, and every reference a browser would load or
// follow off the page: src, href other than "#…", srcset, <link>, <script>,
// <iframe>, <object>, url(…) and @import in CSS.
func inspect(doc *html.Node) pageFacts {
	p := pageFacts{ids: map[string]bool{}, classCount: map[string]int{}}
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.ElementNode {
			switch n.Data {
			case "svg":
				p.svgs++
			case "script", "link", "iframe", "object", "embed", "base":
				p.external = append(p.external, "<"+n.Data+">")
			}
			for _, a := range n.Attr {
				switch a.Key {
				case "id":
					p.ids[a.Val] = true
				case "class":
					for _, c := range strings.Fields(a.Val) {
						p.classCount[c]++
					}
				case "src", "srcset", "action", "formaction", "poster", "data", "xlink:href":
					p.external = append(p.external, a.Key+"="+a.Val)
				case "href":
					if !strings.HasPrefix(a.Val, "#") {
						p.external = append(p.external, "href="+a.Val)
					}
				case "http-equiv":
					if strings.EqualFold(a.Val, "Content-Security-Policy") {
						for _, b := range n.Attr {
							if b.Key == "content" {
								p.csp = b.Val
							}
						}
					}
				case "style":
					if strings.Contains(a.Val, "url(") {
						p.external = append(p.external, "style url(")
					}
				}
			}
		}
		if n.Type == html.TextNode && n.Parent != nil && n.Parent.Data == "style" {
			if strings.Contains(n.Data, "url(") || strings.Contains(n.Data, "@import") {
				p.external = append(p.external, "css url(/@import")
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(doc)
	return p
}

// TestPageSize: a page of 18 groups stays under 2 MB however many
// observations they hold (the figures draw densities and per-mpirun
// summaries, never one mark per observation).
func TestPageSize(t *testing.T) {
	if testing.Short() {
		t.Skip("writes 2 × 20 mpiruns × 9 000 observations")
	}
	a, b := demoLike(20, 1000)
	a.outliers, b.outliers = 0.05, 0.05
	r, err := New(twoSides(t, a, b), Options{Analysis: analysis.DefaultOptions})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := r.WriteHTML(&buf); err != nil {
		t.Fatal(err)
	}
	groups := len(r.Groups[0]) + len(r.Groups[1])
	if groups != 18 {
		t.Fatalf("%d groups, want 18", groups)
	}
	if buf.Len() >= 2<<20 {
		t.Errorf("page of %d groups with %d observations is %d bytes, want < 2 MiB", groups, r.Overviews[0].Rows+r.Overviews[1].Rows, buf.Len())
	}
	t.Logf("%d groups, %d observations: %d bytes", groups, r.Overviews[0].Rows+r.Overviews[1].Rows, buf.Len())
}

// TestPageAllInvalid: a campaign whose every observation was invalid still
// gives a page, which says the figures could not be drawn and why.
func TestPageAllInvalid(t *testing.T) {
	r := oneSide(t, spec{runID: "late", lib: "x", mpiruns: 2, reps: 20, factor: 1, invalid: 1, seed: 6})
	var buf bytes.Buffer
	if err := r.WriteHTML(&buf); err != nil {
		t.Fatal(err)
	}
	page := html.UnescapeString(buf.String())
	if !strings.Contains(page, "figure could not be drawn: no group has a valid observation") || !strings.Contains(page, "100% of the observations are invalid") {
		t.Errorf("the page of a campaign without a valid observation does not say so")
	}
	if r.Rules[4].Status != NotMet {
		t.Errorf("rule 5 is %s without a valid observation: %s", r.Rules[4].Status, evidence(r, 5))
	}
}

// TestNoiseProbe summarizes the "reprobench noise --json" file a run was
// seeded with, and says when it cannot be read.
func TestNoiseProbe(t *testing.T) {
	dir := t.TempDir()
	f := filepath.Join(dir, "noise.json")
	os.WriteFile(f, []byte(`{"duration_s": 1, "expected_late_fraction": 0.053, "simultaneous_fraction": 0.74, "periodic_sources": [{"period_s": 0.001}, {"period_s": 0.004}]}`), 0o644)
	want := f + "; 5.3% of windowed observations expected late; 74% of the detour time on every CPU at once; 2 periodic sources"
	if got := noiseProbe(f); got != want {
		t.Errorf("noiseProbe = %q, want %q", got, want)
	}
	if got := noiseProbe(filepath.Join(dir, "gone.json")); !strings.Contains(got, "not readable here") {
		t.Errorf("a missing probe: %q", got)
	}
	if noiseProbe("") != "" {
		t.Error("no probe gave a fact")
	}
}

// TestPercentiles: with Options.Analysis.Percentiles the page has a
// table of every group's percentiles, with the same numbers as
// analysis.MpirunPercentiles, marked pooled with too few mpiruns and
// not marked with enough; without them, no table.
func TestPercentiles(t *testing.T) {
	for _, c := range []struct {
		mpiruns    int
		wantPooled bool
	}{{3, true}, {6, false}} {
		a, _ := demoLike(c.mpiruns, 200)
		s, err := Load(writeCampaign(t, t.TempDir(), a), false)
		if err != nil {
			t.Fatal(err)
		}
		opt := analysis.DefaultOptions
		opt.Percentiles = []float64{50, 99}
		r, err := New([]*Side{s}, Options{Analysis: opt})
		if err != nil {
			t.Fatal(err)
		}
		var buf bytes.Buffer
		if err := r.WriteHTML(&buf); err != nil {
			t.Fatal(err)
		}
		page := html.UnescapeString(buf.String())
		if !strings.Contains(page, "Tail percentiles") || !strings.Contains(page, ">P99<") {
			t.Fatalf("%d mpiruns: no percentile table", c.mpiruns)
		}
		g := r.Groups[0][0]
		ps := g.Percentiles[1]
		if ps.Percent != 99 || (ps.Of == analysis.PercentileOfPooled) != c.wantPooled {
			t.Errorf("%d mpiruns: P99 of %q, want pooled %v", c.mpiruns, ps.Of, c.wantPooled)
		}
		// The same number as the analysis of the group's own runs.
		byMp := map[int32][]float64{}
		for _, dg := range r.Sides[0].Data.Groups {
			if dg.Key == g.Key {
				for j, x := range dg.Runtimes {
					byMp[dg.Mpirun[j]] = append(byMp[dg.Mpirun[j]], x)
				}
			}
		}
		var runs [][]float64
		for _, mi := range slices.Sorted(maps.Keys(byMp)) {
			runs = append(runs, slices.Sorted(slices.Values(byMp[mi])))
		}
		want := analysis.MpirunPercentiles(runs, []float64{50, 99}, opt.Level, false)[1]
		if want.Value != ps.Value || want.CI != ps.CI {
			t.Errorf("%d mpiruns: P99 %v %v, want %v %v", c.mpiruns, ps.Value, ps.CI, want.Value, want.CI)
		}
		unit, sc := analysis.TimeUnit(ps.Value)
		if cell := analysis.FormatTimeScaled(ps.Value, sc, unit); !strings.Contains(page, cell) {
			t.Errorf("%d mpiruns: page lacks the P99 %s", c.mpiruns, cell)
		}
		if got := strings.Contains(page, "pooled</span></td>"); got != c.wantPooled {
			t.Errorf("%d mpiruns: pooled mark shown %v, want %v", c.mpiruns, got, c.wantPooled)
		}
	}
	r := oneSide(t, spec{runID: "x", lib: "x", mpiruns: 2, reps: 20, factor: 1, seed: 3})
	var buf bytes.Buffer
	if err := r.WriteHTML(&buf); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(buf.String(), "Tail percentiles") {
		t.Error("a table of percentiles without Options.Analysis.Percentiles")
	}
}

// BenchmarkNewPercentiles is the cost of a report of a demo-sized campaign
// (9 groups, 10 mpiruns × 1000 observations) with and without the table
// of percentiles.
func BenchmarkNewPercentiles(b *testing.B) {
	a, _ := demoLike(10, 1000)
	s, err := Load(writeCampaign(b, b.TempDir(), a), false)
	if err != nil {
		b.Fatal(err)
	}
	for _, pcts := range [][]float64{nil, {50, 90, 99}} {
		b.Run(fmt.Sprint(len(pcts)), func(b *testing.B) {
			opt := analysis.DefaultOptions
			opt.Percentiles = pcts
			for b.Loop() {
				r, err := New([]*Side{s}, Options{Analysis: opt})
				if err != nil {
					b.Fatal(err)
				}
				if err := r.WriteHTML(io.Discard); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// TestWindowsBaseline: the windows section leads with each side's own
// late share (the pooled window baselines of its sidecars) and marks the
// groups whose invalid share exceeds it; the headline warns only of
// those. Side A loses 5 % of its rows against a machine's own 1 %, side
// B 5 % against 5 %.
func TestWindowsBaseline(t *testing.T) {
	a, b := demoLike(3, 300)
	a.baseline = &rawdata.WindowBaseline{Observations: 1000, Invalid: 10, Late: 10, WindowS: 1e-4, LateToleranceS: 1e-6, Batches: 10, DurationS: 0.1}
	b.baseline = &rawdata.WindowBaseline{Observations: 1000, Invalid: 50, Late: 50, WindowS: 1e-4, LateToleranceS: 1e-6, Batches: 10, DurationS: 0.1}
	sides := twoSides(t, a, b)
	r, err := New(sides, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if o := r.Overviews[0]; o.BaselineMpiruns != 3 || o.Baseline.Observations != 3000 || o.Baseline.Invalid != 30 {
		t.Errorf("side A's pooled baseline %+v over %d mpiruns", o.Baseline, o.BaselineMpiruns)
	}
	over := [2]int{}
	for i, gs := range r.Groups {
		for _, g := range gs {
			e := g.InvalidExcess
			if e == nil {
				t.Fatalf("side %d group %v: no baseline", i, g.Key)
			}
			if e.BaseN != 3000 || e.Rows != g.Rows {
				t.Errorf("side %d group %v: %+v", i, g.Key, e)
			}
			if e.InExcess() {
				over[i]++
			}
		}
	}
	// A: 5 % of 900 rows against 1 % of 3000: the excess's lower bound is
	// about 2.6 points, in excess in every group but by a rare draw; B:
	// 5 % against 5 %, in excess at most by a rare draw.
	if over[0] < 8 || over[1] > 1 {
		t.Errorf("groups in excess: A %d of 9, B %d of 9", over[0], over[1])
	}
	var buf bytes.Buffer
	if err := r.WriteHTML(&buf); err != nil {
		t.Fatal(err)
	}
	page := html.UnescapeString(buf.String())
	w := strings.Index(page, `<section id="windows">`)
	if w < 0 {
		t.Fatal("no windows section")
	}
	lead := page[w:]
	lead = lead[:strings.Index(lead, "<table>")]
	if !strings.Contains(lead, "the machine's own late share is 1%") || !strings.Contains(lead, "the machine's own late share is 5%") {
		t.Errorf("the windows section does not lead with the machine's own share:\n%s", lead)
	}
	if !strings.Contains(page, "in excess of the machine's 1%") {
		t.Error("the headline does not mark side A's groups in excess")
	}
	if strings.Contains(page, "many invalid") {
		t.Error("a group is marked \"many invalid\" although its share has a baseline")
	}
	// Without baselines: no windows table, the lead says so.
	r2 := oneSide(t, spec{runID: "x", lib: "x", mpiruns: 2, reps: 20, factor: 1, invalid: 0.2, seed: 3})
	buf.Reset()
	if err := r2.WriteHTML(&buf); err != nil {
		t.Fatal(err)
	}
	if p := html.UnescapeString(buf.String()); !strings.Contains(p, "late share was not measured") {
		t.Error("without baselines the windows section does not say so")
	}
}
