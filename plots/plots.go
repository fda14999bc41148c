package plots

import (
	"cmp"
	"fmt"
	"image/color"
	"math"
	"slices"
	"strings"

	"gonum.org/v1/gonum/stat/distuv"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/reprobench/reprobench/analysis"
)

// fitTitle breaks every line of p's title that is wider than the figure
// (width w less the margins) before a "/", ", " or " " (in that order of
// preference), so that no title is cut at the edges.
func fitTitle(p *plot.Plot, w vg.Length) {
	avail := w - 2*Margin - 4
	var out []string
	for _, line := range strings.Split(p.Title.Text, "\n") {
		for p.Title.TextStyle.Width(line) > avail {
			cut := -1
			for _, sep := range []string{"/", ", ", " "} {
				// The last separator at which the head fits.
				for i := len(line) - 1; i > 0; i-- {
					if strings.HasPrefix(line[i:], sep) && p.Title.TextStyle.Width(line[:i+len(sep)]) <= avail {
						cut = i + len(sep)
						break
					}
				}
				if cut > 0 {
					break
				}
			}
			if cut <= 0 {
				break // one word wider than the figure: leave it
			}
			out = append(out, strings.TrimRight(line[:cut], " "))
			line = line[cut:]
		}
		out = append(out, line)
	}
	p.Title.Text = strings.Join(out, "\n")
}

// Distributions draws the figure of plotDistributions for the groups sel
// of d (at least one), sized by size: with a zero Height, a row of about a
// third of an inch per group.
func Distributions(d *analysis.Dataset, sel []analysis.GroupSummary, opt analysis.Options, violin bool, lm LogMode, size Size) (Figure, error) {
	if len(sel) == 0 {
		return Figure{}, fmt.Errorf("plots: no group to draw")
	}
	keys := make([]analysis.GroupKey, len(sel))
	for i, s := range sel {
		keys[i] = s.Key
	}
	w, h := size.width(), size.height(len(sel), labelLines(keys), 2)
	p, note, err := plotDistributions(d, sel, opt, violin, lm, rowSpace(h, len(sel), 2))
	if err != nil {
		return Figure{}, err
	}
	return finish(p, w, h, crowded(h, len(sel), 2), note), nil
}

// plotDistributions draws one horizontal box (Tukey whiskers at 1.5 IQR, as
// gonum/plot's BoxPlot) or violin (analysis.KernelDensity) per group of
// filtered observations, with the headline median (analysis.GroupSummary:
// the median of the per-mpirun medians) as a white dot and its interval
// as a black bar, visible on any fill. Rows are ordered by call, np,
// message size and datatype, then labels, so that the groups of one size
// that differ only in a label (two libraries) are next to each other;
// each value of the labels that vary gets its own fill color, named in
// the legend. The run-time axis is logarithmic when lm says so (see
// useLog). row is the height of one row in points. note says when the
// data ruled out the log axis that auto would have chosen.
func plotDistributions(d *analysis.Dataset, sel []analysis.GroupSummary, opt analysis.Options, violin bool, lm LogMode, row vg.Length) (p *plot.Plot, note string, err error) {
	sel = sortForRows(sel)
	vals := make([][]float64, len(sel))
	var meds []float64
	minV := math.Inf(1)
	for i, s := range sel {
		for _, g := range d.Groups {
			if g.Key == s.Key {
				vals[i] = analysis.Filtered(g, opt.TukeyFor(g.Key))
			}
		}
		for _, v := range vals[i] {
			minV = math.Min(minV, v)
		}
		meds = append(meds, s.Median)
	}
	logY, err := useLog(lm, meds, minV)
	if err != nil {
		return nil, "", err
	}
	if lm == LogAuto && !logY && !(minV > 0) {
		note = "a run time ≤ 0 rules out the log axis; using a linear one"
	}
	// Linear axes are scaled to one unit; log axes stay in seconds and
	// every tick carries its own unit.
	unit, sc := analysis.TimeUnit(analysis.Median(meds))
	if logY {
		unit, sc = "", 1
	}
	n := len(sel)
	keys := make([]analysis.GroupKey, n)
	for i, s := range sel {
		keys[i] = s.Key
	}
	series, seriesNames := plotSeries(keys)
	p = plot.New()
	what := "distribution"
	if violin {
		what = "density"
	}
	ciWhat := fmt.Sprintf("its %g%% CI", 100*opt.Level)
	if slices.ContainsFunc(sel, func(s analysis.GroupSummary) bool { return s.MedianCI.Confidence < opt.Level }) {
		ciWhat = fmt.Sprintf("its CI (%g%%, or [min, max] when too few mpiruns)", 100*opt.Level)
	}
	p.Title.Text = fmt.Sprintf("run-time %s per group (Tukey-filtered per mpirun)\n○ median of mpirun medians, black bar: %s", what, ciWhat)
	legendDone := map[int]bool{}
	for i, s := range sel {
		y := float64(n - 1 - i) // first group on top
		v := slices.Clone(vals[i])
		for j := range v {
			v[j] *= sc
		}
		if len(v) == 0 {
			continue
		}
		fill := plotutil.SoftColors[series[i]%len(plotutil.SoftColors)]
		if violin {
			poly, err := violinPolygon(v, y, 0.42, logY)
			if err != nil {
				return nil, "", err
			}
			poly.Color = fill
			poly.LineStyle.Color = color.Gray{Y: 60}
			p.Add(poly)
			if len(seriesNames) > 1 && !legendDone[series[i]] {
				p.Legend.Add(seriesNames[series[i]], poly)
				legendDone[series[i]] = true
			}
		} else {
			b, err := plotter.NewBoxPlot(min(vg.Points(18), row*0.6), y, plotter.Values(v))
			if err != nil {
				return nil, "", err
			}
			b.Horizontal = true
			b.FillColor = fill
			p.Add(b)
			if len(seriesNames) > 1 && !legendDone[series[i]] {
				thumb, _ := plotter.NewPolygon(plotter.XYs{{X: 0, Y: 0}, {X: 1, Y: 0}, {X: 1, Y: 1}})
				thumb.Color = fill
				p.Legend.Add(seriesNames[series[i]], thumb)
				legendDone[series[i]] = true
			}
		}
		if s.MedianCI.Valid() {
			ci, err := plotter.NewLine(plotter.XYs{{X: s.MedianCI.Lo * sc, Y: y}, {X: s.MedianCI.Hi * sc, Y: y}})
			if err != nil {
				return nil, "", fmt.Errorf("median CI of %s: %v", s.Key, err)
			}
			ci.Color = color.Black
			ci.Width = vg.Points(2.5)
			p.Add(ci)
		}
		if !math.IsNaN(s.Median) {
			dot, _ := plotter.NewScatter(plotter.XYs{{X: s.Median * sc, Y: y}})
			dot.GlyphStyle = draw.GlyphStyle{Shape: draw.CircleGlyph{}, Color: color.White, Radius: vg.Points(3)}
			ring, _ := plotter.NewScatter(plotter.XYs{{X: s.Median * sc, Y: y}})
			ring.GlyphStyle = draw.GlyphStyle{Shape: draw.RingGlyph{}, Color: color.Black, Radius: vg.Points(3)}
			p.Add(dot, ring)
		}
	}
	names, common := GroupLabels(keys, labelWrap)
	if common != "" {
		p.Title.Text += "\n" + common
	}
	p.Legend.Top = true
	p.NominalY(reversed(names)...)
	p.Y.Min, p.Y.Max = -0.5, float64(n)-0.5
	if len(seriesNames) > 1 {
		// A spare row on top for the legend.
		p.Y.Max += float64((vg.Length(len(seriesNames))*p.Legend.TextStyle.Height("M") + 8) / row)
	}
	if logY {
		if p.X.Min == p.X.Max { // one value: a log axis needs a range > 0
			p.X.Min, p.X.Max = p.X.Min/2, p.X.Max*2
		}
		p.X.Scale = plot.LogScale{}
		p.X.Tick.Marker = timeLogTicks{}
		p.X.Label.Text = "run time (log scale, units on the ticks)"
	} else {
		p.X.Label.Text = "run time [" + unit + "]"
	}
	p.Add(plotter.NewGrid())
	return p, note, nil
}

// sortForRows returns sel ordered by call, np, message size and datatype,
// then labels, so that the groups of one size that differ only in a label
// (two libraries) are next to each other.
func sortForRows(sel []analysis.GroupSummary) []analysis.GroupSummary {
	sel = slices.Clone(sel)
	slices.SortStableFunc(sel, func(a, b analysis.GroupSummary) int {
		ka, kb := a.Key, b.Key
		switch {
		case ka.Call != kb.Call:
			return strings.Compare(ka.Call, kb.Call)
		case ka.Np != kb.Np:
			return ka.Np - kb.Np
		case ka.MsizeBytes != kb.MsizeBytes:
			return cmp.Compare(ka.MsizeBytes, kb.MsizeBytes)
		case ka.Datatype != kb.Datatype:
			return strings.Compare(ka.Datatype, kb.Datatype)
		}
		return strings.Compare(ka.Labels, kb.Labels)
	})
	return sel
}

// plotSeries assigns each key a series: the values of the labels that
// vary between keys (say lib=mpich), numbered in order of appearance, with
// their names.
func plotSeries(keys []analysis.GroupKey) (series []int, names []string) {
	varying := map[string]bool{}
	for _, k := range keys {
		for _, kv := range strings.Split(k.Labels, ",") {
			name, _, _ := strings.Cut(kv, "=")
			if name == "" {
				continue
			}
			for _, o := range keys {
				if o.LabelValue(name) != k.LabelValue(name) {
					varying[name] = true
				}
			}
		}
	}
	idx := map[string]int{}
	for _, k := range keys {
		var parts []string
		for _, kv := range strings.Split(k.Labels, ",") {
			name, _, _ := strings.Cut(kv, "=")
			if varying[name] {
				parts = append(parts, kv)
			}
		}
		v := strings.Join(parts, ", ")
		i, ok := idx[v]
		if !ok {
			i = len(names)
			idx[v] = i
			names = append(names, v)
		}
		series = append(series, i)
	}
	return series, names
}

func reversed(s []string) []string {
	r := slices.Clone(s)
	slices.Reverse(r)
	return r
}

// violinPolygon returns the outline of a horizontal violin centred on row
// y: analysis.KernelDensity of vals, scaled to halfWidth at its maximum.
// With logX the density is estimated on log10(vals), which is what the
// eye sees on a log axis.
func violinPolygon(vals []float64, y, halfWidth float64, logX bool) (*plotter.Polygon, error) {
	s := slices.Clone(vals)
	if logX {
		for i, v := range s {
			s[i] = math.Log10(v)
		}
	}
	d := analysis.KernelDensity(s, 81)
	maxD := slices.Max(d.Y)
	if !(maxD > 0) {
		maxD = 1
	}
	if !(maxD > 0) { // bandwidth or values overflow (runtimes near MaxFloat64)
		return nil, fmt.Errorf("no density estimate for run times from %s to %s", fmtShortest(vals[0]), fmtShortest(vals[len(vals)-1]))
	}
	at := func(x float64) float64 {
		if logX {
			return math.Pow(10, x)
		}
		return x
	}
	var pts plotter.XYs
	for i := range d.X {
		pts = append(pts, plotter.XY{X: at(d.X[i]), Y: y + halfWidth*d.Y[i]/maxD})
	}
	for i := len(d.X) - 1; i >= 0; i-- {
		pts = append(pts, plotter.XY{X: at(d.X[i]), Y: y - halfWidth*d.Y[i]/maxD})
	}
	return plotter.NewPolygon(pts)
}

// oneGroupTitle is the title of the plots that show one group: what is
// plotted, then the full group key (the form --group matches), broken
// into lines at its "/" (fitTitle wraps what is still too wide).
func oneGroupTitle(what string, k analysis.GroupKey) string {
	return what + "\n" + k.String()
}

// Hist draws the histogram of plotHist.
func Hist(g *analysis.Group, s analysis.GroupSummary, size Size) (Figure, error) {
	p, err := plotHist(g, s)
	if err != nil {
		return Figure{}, err
	}
	return finish(p, size.width(), size.height(0, 0, 0)), nil
}

// plotHist draws the histogram of the valid observations of one group
// over the range that holds their bulk: up to the upper fence
// Q3 + 3·IQR of all of them (plotClip). The observations above it are
// counted in the title with the largest, instead of stretching the axis
// so far that the bulk fills the first bin.
func plotHist(g *analysis.Group, s analysis.GroupSummary) (*plot.Plot, error) {
	unit, sc := analysis.TimeUnit(s.Median)
	p := plot.New()
	clip, all := plotClip(g.Runtimes, 3)
	var vals plotter.Values
	for _, v := range all {
		if v <= clip {
			vals = append(vals, v*sc)
		}
	}
	what := fmt.Sprintf("histogram of %d valid observations", len(all))
	if out := len(all) - len(vals); out > 0 {
		what += fmt.Sprintf("; %d above %s not shown (up to %s)", out, analysis.FormatTime(clip), analysis.FormatTime(all[len(all)-1]))
	}
	p.Title.Text = oneGroupTitle(what, g.Key)
	p.X.Label.Text = "run time [" + unit + "]"
	p.Y.Label.Text = "count [observations]"
	bins := int(math.Min(100, math.Max(10, math.Sqrt(float64(len(vals))))))
	h, err := plotter.NewHist(vals, bins)
	if err != nil {
		return nil, err
	}
	h.FillColor = plotutil.SoftColors[2]
	p.Add(h)
	return p, nil
}

// plotClip returns the end of a run-time axis that shows the bulk of x:
// the upper fence Q3 + k·IQR, or +Inf when no value lies above it; and x
// sorted.
func plotClip(x []float64, k float64) (float64, []float64) {
	all := slices.Clone(x)
	slices.Sort(all)
	if len(all) == 0 {
		return math.Inf(1), all
	}
	q1, q3 := analysis.Quantile(0.25, all), analysis.Quantile(0.75, all)
	clip := q3 + k*(q3-q1)
	if !(clip < all[len(all)-1]) {
		clip = math.Inf(1)
	}
	return clip, all
}

// QQ draws the normal Q-Q plot of plotQQ.
func QQ(g *analysis.Group, s analysis.GroupSummary, tukeyK float64, size Size) (Figure, error) {
	p, err := plotQQ(g, s, tukeyK)
	if err != nil {
		return Figure{}, err
	}
	return finish(p, size.width(), size.height(0, 0, 0)), nil
}

// plotQQ plots the per-mpirun medians (or, with fewer than 3 mpiruns, the
// filtered observations) against normal quantiles, as Hunold & Carpen-Amarie 2016, Fig. 27.
func plotQQ(g *analysis.Group, s analysis.GroupSummary, tukeyK float64) (*plot.Plot, error) {
	vals := slices.Clone(s.MpirunMedians)
	what := "per-mpirun medians"
	if len(vals) < 3 {
		vals = analysis.Filtered(g, tukeyK)
		what = "Tukey-filtered observations"
	}
	slices.Sort(vals)
	unit, sc := analysis.TimeUnit(s.Median)
	n := len(vals)
	pts := make(plotter.XYs, n)
	for i, v := range vals {
		pts[i] = plotter.XY{X: normQ((float64(i+1) - 0.375) / (float64(n) + 0.25)), Y: v * sc}
	}
	p := plot.New()
	sw := analysis.ShapiroWilk(vals)
	p.Title.Text = oneGroupTitle(fmt.Sprintf("normal Q-Q plot of %d %s (Shapiro-Wilk p=%s)", n, what, formatP(sw.P)), g.Key)
	p.X.Label.Text = "theoretical normal quantile [standard deviations]"
	p.Y.Label.Text = "sample [" + unit + "]"
	sct, err := plotter.NewScatter(pts)
	if err != nil {
		return nil, err
	}
	p.Add(sct)
	// The normal reference line needs two points and a finite mean and
	// standard deviation (values near MaxFloat64 overflow them).
	m, sd := analysis.Mean(vals)*sc, analysis.StdDev(vals)*sc
	ln, err := plotter.NewLine(plotter.XYs{{X: pts[0].X, Y: m + sd*pts[0].X}, {X: pts[n-1].X, Y: m + sd*pts[n-1].X}})
	switch {
	case n < 2:
		p.Title.Text += "\n(one value: no normal reference line)"
	case err != nil:
		p.Title.Text += "\n(mean or SD not finite: no normal reference line)"
	default:
		ln.Color = color.RGBA{R: 200, A: 255}
		p.Add(ln)
	}
	p.Add(plotter.NewGrid())
	return p, nil
}

func normQ(p float64) float64 { return distuv.UnitNormal.Quantile(p) }

// ACF draws the autocorrelation plot of plotACF.
func ACF(g *analysis.Group, size Size) (Figure, error) {
	p, err := plotACF(g)
	if err != nil {
		return Figure{}, err
	}
	return finish(p, size.width(), size.height(0, 0, 0)), nil
}

// plotACF draws the autocorrelation of the valid observations in file order
// with ±1.96/√n bounds (Hunold et al. 2014, §4.4, Fig. 5).
func plotACF(g *analysis.Group) (*plot.Plot, error) {
	if len(g.Runtimes) < 2 {
		return nil, fmt.Errorf("%s: the autocorrelation needs at least 2 valid observations, the group has %d", g.Key, len(g.Runtimes))
	}
	// The ACF does not change with the scale; dividing by the largest
	// magnitude keeps sums of squares of huge run times finite.
	x := slices.Clone(g.Runtimes)
	var big float64
	for _, v := range x {
		big = math.Max(big, math.Abs(v))
	}
	for i := range x {
		if big > 0 {
			x[i] /= big
		}
	}
	maxLag := min(100, len(x)-1)
	r, bound := analysis.ACF(x, maxLag, 0.05)
	if len(r) == 0 || !finite(r[0]) {
		return nil, fmt.Errorf("%s: all %d valid observations are equal (%s): the autocorrelation is undefined", g.Key, len(x), fmtShortest(g.Runtimes[0]))
	}
	p := plot.New()
	p.Title.Text = oneGroupTitle(fmt.Sprintf("autocorrelation of %d valid observations in file order (dashed: 95%% bounds)", len(g.Runtimes)), g.Key)
	p.X.Label.Text = "lag [observations]"
	p.Y.Label.Text = "autocorrelation (unitless)"
	for h, v := range r {
		l, err := plotter.NewLine(plotter.XYs{{X: float64(h), Y: 0}, {X: float64(h), Y: v}})
		if err != nil {
			return nil, fmt.Errorf("%s: autocorrelation at lag %d: %v", g.Key, h, err)
		}
		l.Width = vg.Points(1.5)
		p.Add(l)
	}
	for _, b := range []float64{bound, -bound} {
		l, err := plotter.NewLine(plotter.XYs{{X: 0, Y: b}, {X: float64(maxLag), Y: b}})
		if err != nil {
			return nil, err
		}
		l.Dashes = []vg.Length{vg.Points(4), vg.Points(3)}
		l.Color = color.RGBA{B: 200, A: 255}
		p.Add(l)
	}
	p.Add(plotter.NewGrid())
	return p, nil
}

// Drift draws the run times of group g of d over their index (plotDrift).
func Drift(d *analysis.Dataset, g *analysis.Group, tukeyK float64, size Size) (Figure, error) {
	w, h := size.width(), size.height(0, 0, 0)
	p, err := plotDrift(d, g, h, tukeyK)
	if err != nil {
		return Figure{}, err
	}
	return finish(p, w, h), nil
}

// plotDrift draws run time against observation index, one color per mpirun,
// to show drift within and between mpiruns. The y axis ends at the upper
// Tukey fence (3 × IQR, or k × IQR when --tukey is larger) of all
// observations, so that a few outliers do not squash the rest; the points
// above it are drawn on the top edge as black triangles, counted in the
// legend with the largest value. height is the figure height, used to
// keep the legend clear of the points.
func plotDrift(d *analysis.Dataset, g *analysis.Group, height vg.Length, tukeyK float64) (*plot.Plot, error) {
	unit, sc := analysis.TimeUnit(analysis.Median(g.Runtimes))
	p := plot.New()
	p.Title.Text = oneGroupTitle("run time over observation index, one color per mpirun", g.Key)
	p.X.Label.Text = "observation index [observations, file order]"
	p.Y.Label.Text = "run time [" + unit + "]"
	clip, all := plotClip(g.Runtimes, math.Max(3, tukeyK))
	byMp := map[int32]plotter.XYs{}
	count := map[int32]int{}
	var above plotter.XYs
	var order []int32
	lo, hi := math.Inf(1), math.Inf(-1)
	for i, v := range g.Runtimes {
		m := g.Mpirun[i]
		if _, ok := byMp[m]; !ok {
			order = append(order, m)
			byMp[m] = nil
		}
		count[m]++
		if v > clip {
			above = append(above, plotter.XY{X: float64(i), Y: clip * sc})
			continue
		}
		byMp[m] = append(byMp[m], plotter.XY{X: float64(i), Y: v * sc})
		lo, hi = math.Min(lo, v*sc), math.Max(hi, v*sc)
	}
	entries := 0
	for i, m := range order {
		if len(byMp[m]) == 0 {
			continue
		}
		s, err := plotter.NewScatter(byMp[m])
		if err != nil {
			return nil, err
		}
		s.GlyphStyle.Radius = vg.Points(1.6)
		s.GlyphStyle.Shape = draw.CircleGlyph{}
		s.GlyphStyle.Color = plotutil.DarkColors[i%len(plotutil.DarkColors)]
		p.Add(s)
		if i < 8 {
			id := d.Mpiruns[m]
			p.Legend.Add(fmt.Sprintf("%s/%d (%d obs.)", id.RunID, id.Mpirun, count[m]), s)
			entries++
		}
	}
	if len(order) > 8 {
		p.Legend.Add(fmt.Sprintf("… %d more mpiruns", len(order)-8))
		entries++
	}
	if len(above) > 0 {
		s, err := plotter.NewScatter(above)
		if err != nil {
			return nil, err
		}
		s.GlyphStyle = draw.GlyphStyle{Shape: draw.PyramidGlyph{}, Color: color.Black, Radius: vg.Points(2.5)}
		p.Add(s)
		p.Legend.Add(fmt.Sprintf("%d above the axis, up to %s", len(above), analysis.FormatTime(all[len(all)-1])), s)
		entries++
		hi = clip * sc
	}
	p.Legend.Top = true
	// Keep the legend above the points: grow the y range by the legend's
	// share of the data area.
	legend := vg.Length(entries)*p.Legend.TextStyle.Height("M") + 8
	data := height - 2*Margin - 100
	if frac := float64(legend / data); hi > lo && frac < 0.6 {
		p.Y.Min, p.Y.Max = lo, hi+(hi-lo)*frac/(1-frac)
	}
	p.Add(plotter.NewGrid())
	return p, nil
}

// Compare draws the comparison figure of plotCompare for rows (at least
// one), sized by size: with a zero Height, a row of about a third of an
// inch per comparison. level is the confidence level of the intervals.
func Compare(rows []analysis.Comparison, level float64, size Size) (Figure, error) {
	if len(rows) == 0 {
		return Figure{}, fmt.Errorf("plots: nothing to compare")
	}
	keys := make([]analysis.GroupKey, len(rows))
	for i, r := range rows {
		keys[i] = r.Key
	}
	w, h := size.width(), size.height(len(rows), labelLines(keys), 3)
	p, labelRoom, err := plotCompare(rows, rowSpace(h, len(rows), 3), level)
	if err != nil {
		return Figure{}, err
	}
	// The labels right of the bars need room: the data area is about the
	// figure less the y labels (~2.5 in).
	data := w - 2.5*vg.Inch
	if frac := float64(labelRoom / data); frac < 0.7 {
		p.X.Max = p.X.Max / (1 - frac)
	}
	return finish(p, w, h, crowded(h, len(rows), 3)), nil
}

// plotCompare draws, per group, A and B relative to A as a pair of
// horizontal bars (1, and B's shift ratio analysis.Comparison.RatioShift),
// B's with the confidence interval of that ratio (RatioCI) as a black
// error bar, and to the right of each pair the ratio with that interval, the
// Wilcoxon significance (stars, or ~ when not significant), the p-value
// and the sample sizes (Hunold & Carpen-Amarie 2016, Fig. 26). Groups are rows labelled on
// the y axis in full; row is the height of one row in points. labelRoom is
// the width of the widest label, which the x range must leave free.
func plotCompare(rows []analysis.Comparison, row vg.Length, level float64) (p *plot.Plot, labelRoom vg.Length, err error) {
	n := len(rows)
	va, vb := make(plotter.Values, n), make(plotter.Values, n)
	var lab plotter.XYLabels
	keys := make([]analysis.GroupKey, n)
	w := min(vg.Points(12), row*0.38)
	off := float64(w / 2 / row) // B's bar centre below the row, in rows
	maxR := 1.0
	var bars []plot.Plotter
	for i, r := range rows {
		y := n - 1 - i // first group on top
		va[y], vb[y] = 1, r.RatioShift
		keys[i] = r.Key
		right := 1.0
		for _, v := range []float64{r.RatioShift, r.RatioCI.Hi} {
			if !math.IsNaN(v) && !math.IsInf(v, 0) {
				right = math.Max(right, v)
			}
		}
		maxR = math.Max(maxR, right)
		mark := analysis.Stars(r.Result.P)
		if mark == "" || !r.Significant {
			mark = "~"
		}
		ci := ""
		if r.RatioCI.Valid() {
			ci = " [" + anRatio(r.RatioCI.Lo) + ", " + anRatio(r.RatioCI.Hi) + "]"
			e, _ := plotter.NewLine(plotter.XYs{{X: r.RatioCI.Lo, Y: float64(y) - off}, {X: r.RatioCI.Hi, Y: float64(y) - off}})
			e.Width = vg.Points(1.5)
			e.Color = color.Black
			bars = append(bars, e)
			for _, x := range []float64{r.RatioCI.Lo, r.RatioCI.Hi} {
				t, _ := plotter.NewLine(plotter.XYs{{X: x, Y: float64(y) - 1.6*off}, {X: x, Y: float64(y) - 0.4*off}})
				t.Width = vg.Points(1.5)
				t.Color = color.Black
				bars = append(bars, t)
			}
		}
		lab.XYs = append(lab.XYs, plotter.XY{X: right, Y: float64(y)})
		lab.Labels = append(lab.Labels, fmt.Sprintf("%s×%s  %s  p=%s n=%d+%d", anRatio(r.RatioShift), ci, mark, formatP(r.Result.P), r.NA, r.NB))
	}
	ba, err := plotter.NewBarChart(va, w)
	if err != nil {
		return nil, 0, err
	}
	bb, err := plotter.NewBarChart(vb, w)
	if err != nil {
		return nil, 0, err
	}
	ba.Horizontal, bb.Horizontal = true, true
	ba.Color, bb.Color = plotutil.SoftColors[1], plotutil.SoftColors[0]
	ba.Offset, bb.Offset = w/2, -w/2 // A above B
	p = plot.New()
	nameA, nameB := "A", "B"
	if rows[0].NameA != "" {
		nameA, nameB = rows[0].NameA, rows[0].NameB
	}
	names, common := GroupLabels(keys, labelWrap)
	p.Title.Text = fmt.Sprintf("%s vs %s: Hodges-Lehmann ratio %s/%s (exp of the HL estimate of log %s − log %s); black: its %g%% CI\nWilcoxon rank-sum: * p≤0.05  ** p≤0.01  *** p≤0.001  ~ not significant", nameB, nameA, nameB, nameA, nameB, nameA, 100*level)
	if common != "" {
		p.Title.Text += "\n" + common
	}
	p.X.Label.Text = "run time / run time of " + nameA + " [ratio]"
	one, err := plotter.NewLine(plotter.XYs{{X: 1, Y: -0.5}, {X: 1, Y: float64(n) - 0.5}})
	if err != nil {
		return nil, 0, err
	}
	one.Color = color.Gray{Y: 110}
	one.Dashes = []vg.Length{vg.Points(3), vg.Points(3)}
	p.Add(ba, bb, one)
	p.Add(bars...)
	labels, err := plotter.NewLabels(lab)
	if err != nil {
		return nil, 0, err
	}
	var labelW vg.Length
	for i := range labels.TextStyle {
		labels.TextStyle[i].YAlign = draw.YCenter
		labels.TextStyle[i].Font.Size = vg.Points(10)
		labelW = max(labelW, labels.TextStyle[i].Width(lab.Labels[i]))
	}
	labels.Offset = vg.Point{X: vg.Points(4)}
	p.Add(labels)
	p.Legend.Add(nameA, ba)
	p.Legend.Add(nameB, bb)
	p.Legend.Top = true
	p.NominalY(reversed(names)...)
	// One spare row on top for the legend.
	spare := float64((2*p.Legend.TextStyle.Height("M") + 8) / row)
	p.Y.Min, p.Y.Max = -0.5, float64(n)-0.5+spare
	p.X.Min, p.X.Max = 0, maxR*1.05
	return p, labelW + vg.Points(8), nil
}

// anRatio is analysis.FormatRatio.
func anRatio(r float64) string { return analysis.FormatRatio(r) }

// formatP formats a p-value with 3 significant digits, "-" for NaN.
func formatP(p float64) string {
	if math.IsNaN(p) {
		return "-"
	}
	return fmt.Sprintf("%.3g", p)
}

// QReg draws the quantile regression of Hoefler & Belli 2015, §3.2.3 (Fig. 4) of
// group gb against group ga: the difference Q_B(τ) − Q_A(τ) of the
// Tukey-filtered observations for τ = 0.02…0.98 with its confidence band.
// nameA and nameB name the sides; the title shows ga's key without the
// label by (the label that names the sides; "" for none).
func QReg(ga, gb *analysis.Group, nameA, nameB, by string, opt analysis.Options, size Size) (Figure, error) {
	if ga == nil || gb == nil || len(ga.Runtimes) == 0 || len(gb.Runtimes) == 0 {
		return Figure{}, fmt.Errorf("plots: the quantile regression needs two groups with observations")
	}
	a := analysis.Filtered(ga, opt.TukeyFor(ga.Key))
	b := analysis.Filtered(gb, opt.TukeyFor(gb.Key))
	slices.Sort(a)
	slices.Sort(b)
	qs := analysis.QuantileRegression(a, b, analysis.Taus(), opt.Level)
	unit, sc := analysis.TimeUnit(analysis.Quantile(0.5, a))
	var pts, lo, hi plotter.XYs
	for _, q := range qs {
		pts = append(pts, plotter.XY{X: q.Tau, Y: q.Diff * sc})
		if !math.IsNaN(q.Lo) {
			lo = append(lo, plotter.XY{X: q.Tau, Y: q.Lo * sc})
			hi = append(hi, plotter.XY{X: q.Tau, Y: q.Hi * sc})
		}
	}
	p := plot.New()
	p.Title.Text = fmt.Sprintf("quantile regression: %s − %s per quantile (%g%% CI dashed)\n%s", nameB, nameA, 100*opt.Level, ga.Key.WithoutLabel(by))
	p.X.Label.Text = "quantile τ [probability]"
	p.Y.Label.Text = "difference B − A [" + unit + "]"
	line, sct, err := plotter.NewLinePoints(pts)
	if err != nil {
		return Figure{}, err
	}
	p.Add(line, sct)
	for _, band := range []plotter.XYs{lo, hi} {
		if len(band) < 2 {
			continue
		}
		l, err := plotter.NewLine(band)
		if err != nil {
			return Figure{}, err
		}
		l.Dashes = []vg.Length{vg.Points(4), vg.Points(3)}
		l.Color = color.RGBA{R: 200, A: 255}
		p.Add(l)
	}
	zero, err := plotter.NewLine(plotter.XYs{{X: 0, Y: 0}, {X: 1, Y: 0}})
	if err != nil {
		return Figure{}, err
	}
	zero.Color = color.Gray{Y: 120}
	p.Add(zero, plotter.NewGrid())
	return finish(p, size.width(), size.height(0, 0, 0)), nil
}
