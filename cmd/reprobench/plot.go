package main

import (
	"fmt"
	"image/color"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/reprobench/reprobench/analysis"
)

func init() {
	register(command{
		name:    "plot",
		summary: "plot raw observations: box, violin, hist, qq, acf, compare (with stars) or drift, to PNG or SVG",
		run:     runPlot,
	})
}

func runPlot(stdout, stderr io.Writer, args []string) error {
	fs := newFlagSet("plot", "--kind box|violin|hist|qq|acf|compare|drift|qreg -o FILE.png|.svg [--group SUBSTR] FILES... [-- B-FILES...]", stderr)
	var o anOptions
	o.register(false, fs, "")
	kind := fs.String("kind", "box", "plot kind: box, violin, hist, qq, acf, compare, drift, qreg (quantile differences B−A over τ, paper 002 Fig. 4)")
	outFile := fs.String("o", "", "output file; the extension (.png, .svg, .pdf) selects the format")
	group := fs.String("group", "", "only groups whose name contains this substring (hist, qq, acf and drift plot the first match)")
	by := fs.String("by", "", "for --kind compare: compare the values of this label within one data set")
	width := fs.Float64("width", 8, "width in inches")
	height := fs.Float64("height", 0, "height in inches (0: 5, or enough for one readable row per group with box, violin and compare)")
	logFlag := fs.String("log", "auto", "log scale for the run-time axis of box and violin: auto (when the largest median exceeds the smallest by more than 10×), on or off")
	if err := parseFlagsAnywhere(fs, args); err != nil {
		return err
	}
	opt, err := o.options()
	if err != nil {
		return err
	}
	lm, err := parseLogMode(*logFlag)
	if err != nil {
		return err
	}
	ext := strings.ToLower(filepath.Ext(*outFile))
	if err := checkFigureSize(*width, *height, ext); err != nil {
		return fmt.Errorf("%w: %v", errUsage, err)
	}
	if *outFile != "" && ext != ".png" && ext != ".svg" && ext != ".pdf" {
		return fmt.Errorf("%w: output must end in .png, .svg or .pdf", errUsage)
	}
	// size returns the figure size for a plot with a row per group in keys
	// (none for the plots that show one group).
	size := func(keys []analysis.GroupKey, titleLines int) (vg.Length, vg.Length) {
		h := *height
		if h == 0 {
			h = 5
			if len(keys) > 0 {
				h = groupPlotHeight(len(keys), labelLines(keys), titleLines)
			}
		}
		return vg.Length(*width) * vg.Inch, vg.Length(h) * vg.Inch
	}
	if *outFile == "" {
		return fmt.Errorf("%w: -o FILE is required", errUsage)
	}
	if fs.NArg() == 0 {
		return fmt.Errorf("%w: no input files", errUsage)
	}
	files := fs.Args()
	var bFiles []string
	if i := slices.Index(files, "--"); i >= 0 {
		files, bFiles = files[:i], files[i+1:]
	}
	d, err := anReadFiles(os.Stdin, files, o.keepDup)
	if err != nil {
		return err
	}
	sums := analysis.Analyze(d, opt)
	var sel []analysis.GroupSummary
	for _, s := range sums {
		if strings.Contains(s.Key.String(), *group) && s.N > 0 {
			sel = append(sel, s)
		}
	}
	if len(sel) == 0 && *kind != "compare" && *kind != "qreg" {
		return fmt.Errorf("no group with observations matches %q", *group)
	}
	groupData := func(k analysis.GroupKey) *analysis.Group {
		for _, g := range d.Groups {
			if g.Key == k {
				return g
			}
		}
		return nil
	}
	// Say what the figure leaves out: the plotted groups' invalid and bad
	// observations (issue #21 row 9).
	use := func(k analysis.GroupKey) bool { return strings.Contains(k.String(), *group) }
	if len(sel) > 0 && (*kind == "hist" || *kind == "qq" || *kind == "acf" || *kind == "drift") {
		use = func(k analysis.GroupKey) bool { return k == sel[0].Key }
	}
	setA := ""
	if len(bFiles) > 0 {
		setA = "A"
	}
	reportDropped(stderr, "plot", setA, d, use)
	var p *plot.Plot
	w, h := size(nil, 0)
	switch *kind {
	case "box", "violin":
		if len(sel) > 40 {
			return fmt.Errorf("%d groups: too many for one plot, select with --group", len(sel))
		}
		keys := make([]analysis.GroupKey, len(sel))
		for i, s := range sel {
			keys[i] = s.Key
		}
		w, h = size(keys, 2)
		warnCrowded(stderr, h, len(sel), 2)
		p, err = plotDistributions(d, sel, opt, *kind == "violin", lm, rowSpace(h, len(sel), 2), stderr)
	case "hist", "qq", "acf", "drift":
		if len(sel) > 1 {
			fmt.Fprintf(stderr, "plot: %d groups match; plotting %s (choose with --group)\n", len(sel), sel[0].Key)
		}
		g := groupData(sel[0].Key)
		switch *kind {
		case "hist":
			p, err = plotHist(g, sel[0])
		case "qq":
			p, err = plotQQ(g, sel[0], opt.TukeyK)
		case "acf":
			p, err = plotACF(g)
		case "drift":
			p, err = plotDrift(d, g, h)
		}
	case "qreg":
		p, err = plotQReg(d, bFiles, *by, *group, opt, o.keepDup, stderr)
	case "compare":
		var rows []analysis.Comparison
		switch {
		case *by != "":
			rows, err = analysis.CompareBy(d, *by, opt)
		case len(bFiles) > 0:
			var db *analysis.Dataset
			if db, err = anReadFiles(os.Stdin, bFiles, o.keepDup); err == nil {
				reportDropped(stderr, "plot", "B", db, use)
				rows, _, _ = analysis.Compare(d, db, opt)
			}
		default:
			return fmt.Errorf("%w: --kind compare needs A-FILES -- B-FILES or --by LABEL", errUsage)
		}
		if err == nil {
			var keep []analysis.Comparison
			for _, r := range rows {
				if strings.Contains(r.Key.String(), *group) {
					keep = append(keep, r)
				}
			}
			if len(keep) == 0 {
				return fmt.Errorf("nothing to compare")
			}
			if len(keep) > 40 {
				return fmt.Errorf("%d comparisons: too many for one plot, select with --group", len(keep))
			}
			keys := make([]analysis.GroupKey, len(keep))
			for i, r := range keep {
				keys[i] = r.Key
			}
			w, h = size(keys, 3)
			warnCrowded(stderr, h, len(keep), 3)
			for _, r := range keep {
				for _, wn := range r.Warnings {
					fmt.Fprintf(stderr, "plot: warning: %s: %s\n", r.Key, wn)
				}
			}
			p, err = plotCompare(keep, rowSpace(h, len(keep), 3))
		}
	default:
		return fmt.Errorf("%w: unknown --kind %q", errUsage, *kind)
	}
	if err != nil {
		return err
	}
	// Linear axes that kept gonum/plot's default ticks get niceTicks.
	for _, ax := range []*plot.Axis{&p.X, &p.Y} {
		if _, ok := ax.Tick.Marker.(plot.DefaultTicks); ok {
			ax.Tick.Marker = niceTicks{}
		}
	}
	return savePlot(p, w, h, *outFile)
}

// plotDistributions draws one horizontal box (Tukey whiskers at 1.5 IQR, as
// gonum/plot's BoxPlot) or violin (Gaussian kernel density, Silverman's
// bandwidth) per group of filtered observations, with the median CI as a
// red bar. Groups are rows, labelled on the y axis in full; the run-time
// axis is logarithmic when lm says so (see useLog). row is the height of
// one row in points.
func plotDistributions(d *analysis.Dataset, sel []analysis.GroupSummary, opt analysis.Options, violin bool, lm logMode, row vg.Length, stderr io.Writer) (*plot.Plot, error) {
	groups := make([]*analysis.Group, len(sel))
	vals := make([][]float64, len(sel))
	var meds []float64
	minV := math.Inf(1)
	for i, s := range sel {
		for _, g := range d.Groups {
			if g.Key == s.Key {
				groups[i] = g
			}
		}
		vals[i] = plotFiltered(groups[i], opt.TukeyK, 1)
		for _, v := range vals[i] {
			minV = math.Min(minV, v)
		}
		meds = append(meds, s.Median)
	}
	logY, err := useLog(lm, meds, minV)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", errUsage, err)
	}
	if lm == "auto" && !logY && !(minV > 0) {
		fmt.Fprintln(stderr, "plot: a run time ≤ 0 rules out the log axis; using a linear one")
	}
	// Linear axes are scaled to one unit; log axes stay in seconds and
	// every tick carries its own unit.
	unit, sc := anUnit(analysis.Median(meds))
	if logY {
		unit, sc = "", 1
	}
	p := plot.New()
	what := "distribution"
	if violin {
		what = "density"
	}
	p.Title.Text = "run-time " + what + " per group (Tukey-filtered per mpirun; red: median CI)"
	n := len(sel)
	for i, s := range sel {
		y := float64(n - 1 - i) // first group on top
		v := slices.Clone(vals[i])
		for j := range v {
			v[j] *= sc
		}
		if len(v) == 0 {
			continue
		}
		if violin {
			poly, err := violinPolygon(v, y, 0.42, logY)
			if err != nil {
				return nil, err
			}
			poly.Color = plotutil.Color(0)
			p.Add(poly)
		} else {
			b, err := plotter.NewBoxPlot(min(vg.Points(18), row*0.6), y, plotter.Values(v))
			if err != nil {
				return nil, err
			}
			b.Horizontal = true
			p.Add(b)
		}
		if s.MedianCI.Valid() {
			ci, err := plotter.NewLine(plotter.XYs{{X: s.MedianCI.Lo * sc, Y: y}, {X: s.MedianCI.Hi * sc, Y: y}})
			if err != nil {
				return nil, fmt.Errorf("median CI of %s: %v", s.Key, err)
			}
			ci.Color = color.RGBA{R: 200, A: 255}
			ci.Width = vg.Points(3)
			p.Add(ci)
		}
	}
	keys := make([]analysis.GroupKey, n)
	for i, s := range sel {
		keys[i] = s.Key
	}
	names, common := groupLabels(keys, labelWrap)
	if common != "" {
		p.Title.Text += "\n" + common
	}
	p.NominalY(reversed(names)...)
	p.Y.Min, p.Y.Max = -0.5, float64(n)-0.5
	if logY {
		if p.X.Min == p.X.Max { // one value: a log axis needs a range > 0
			p.X.Min, p.X.Max = p.X.Min/2, p.X.Max*2
		}
		p.X.Scale = plot.LogScale{}
		p.X.Tick.Marker = timeLogTicks{}
		p.X.Label.Text = "run time (log scale)"
	} else {
		p.X.Label.Text = "run time [" + unit + "]"
	}
	p.Add(plotter.NewGrid())
	return p, nil
}

func reversed(s []string) []string {
	r := slices.Clone(s)
	slices.Reverse(r)
	return r
}

func plotFiltered(g *analysis.Group, k, sc float64) []float64 {
	byMp := map[int32][]float64{}
	for i, v := range g.Runtimes {
		byMp[g.Mpirun[i]] = append(byMp[g.Mpirun[i]], v)
	}
	var out []float64
	for _, x := range byMp {
		kept, _ := analysis.TukeyFilter(x, k)
		for _, v := range kept {
			out = append(out, v*sc)
		}
	}
	return out
}

// violinPolygon returns the outline of a horizontal violin centred on row
// y: the Gaussian kernel density of vals (Silverman's bandwidth), scaled to
// halfWidth at its maximum. With logX the density is estimated on
// log10(vals), which is what the eye sees on a log axis.
func violinPolygon(vals []float64, y, halfWidth float64, logX bool) (*plotter.Polygon, error) {
	s := slices.Clone(vals)
	if logX {
		for i, v := range s {
			s[i] = math.Log10(v)
		}
	}
	slices.Sort(s)
	n := float64(len(s))
	sd := analysis.StdDev(s)
	iqr := analysis.Quantile(0.75, s) - analysis.Quantile(0.25, s)
	h := 0.9 * math.Min(sd, iqr/1.34) * math.Pow(n, -0.2) // Silverman
	if !(h > 0) {
		h = math.Max(math.Abs(s[0])*1e-3, 1e-12)
	}
	const steps = 80
	lo, hi := s[0], s[len(s)-1]
	xs := make([]float64, steps+1)
	dens := make([]float64, steps+1)
	var maxD float64
	// Bin the data for an O(steps·bins) density evaluation.
	const bins = 512
	counts := make([]float64, bins)
	bw := (hi - lo) / bins
	for _, v := range s {
		b := 0
		if bw > 0 {
			b = min(bins-1, int((v-lo)/bw))
		}
		counts[b]++
	}
	for i := range xs {
		x := lo + (hi-lo)*float64(i)/steps
		xs[i] = x
		var dsum float64
		for b, c := range counts {
			if c == 0 {
				continue
			}
			c0 := lo + (float64(b)+0.5)*bw
			z := (x - c0) / h
			dsum += c * math.Exp(-0.5*z*z)
		}
		dens[i] = dsum
		maxD = math.Max(maxD, dsum)
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
	for i := range xs {
		pts = append(pts, plotter.XY{X: at(xs[i]), Y: y + halfWidth*dens[i]/maxD})
	}
	for i := len(xs) - 1; i >= 0; i-- {
		pts = append(pts, plotter.XY{X: at(xs[i]), Y: y - halfWidth*dens[i]/maxD})
	}
	return plotter.NewPolygon(pts)
}

// oneGroupTitle is the title of the plots that show one group: what is
// plotted, then the full group key (the form --group matches).
func oneGroupTitle(what string, k analysis.GroupKey) string {
	return what + "\n" + k.String()
}

func plotHist(g *analysis.Group, s analysis.GroupSummary) (*plot.Plot, error) {
	unit, sc := anUnit(s.Median)
	p := plot.New()
	p.Title.Text = oneGroupTitle("histogram of valid observations", g.Key)
	p.X.Label.Text = "run time [" + unit + "]"
	p.Y.Label.Text = "count"
	vals := make(plotter.Values, len(g.Runtimes))
	for i, v := range g.Runtimes {
		vals[i] = v * sc
	}
	bins := int(math.Min(100, math.Max(10, math.Sqrt(float64(len(vals))))))
	h, err := plotter.NewHist(vals, bins)
	if err != nil {
		return nil, err
	}
	p.Add(h)
	return p, nil
}

// plotQQ plots the per-mpirun medians (or, with fewer than 3 mpiruns, the
// filtered observations) against normal quantiles, as paper 000 Fig. 27.
func plotQQ(g *analysis.Group, s analysis.GroupSummary, tukeyK float64) (*plot.Plot, error) {
	vals := slices.Clone(s.MpirunMedians)
	what := "per-mpirun medians"
	if len(vals) < 3 {
		vals = plotFiltered(g, tukeyK, 1)
		what = "Tukey-filtered observations"
	}
	slices.Sort(vals)
	unit, sc := anUnit(s.Median)
	n := len(vals)
	pts := make(plotter.XYs, n)
	for i, v := range vals {
		pts[i] = plotter.XY{X: normQ((float64(i+1) - 0.375) / (float64(n) + 0.25)), Y: v * sc}
	}
	p := plot.New()
	sw := analysis.ShapiroWilk(vals)
	p.Title.Text = oneGroupTitle(fmt.Sprintf("normal Q-Q plot of %d %s (Shapiro-Wilk p=%s)", n, what, anP(sw.P)), g.Key)
	p.X.Label.Text = "theoretical normal quantile"
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

func normQ(p float64) float64 { return math.Sqrt2 * math.Erfinv(2*p-1) }

// plotACF draws the autocorrelation of the valid observations in file order
// with ±1.96/√n bounds (paper 001 §4.4, Fig. 5).
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
	p.X.Label.Text = "lag"
	p.Y.Label.Text = "ACF"
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

// plotDrift draws run time against observation index, one color per mpirun,
// to show drift within and between mpiruns. height is the figure height,
// used to keep the legend clear of the points.
func plotDrift(d *analysis.Dataset, g *analysis.Group, height vg.Length) (*plot.Plot, error) {
	unit, sc := anUnit(analysis.Median(g.Runtimes))
	p := plot.New()
	p.Title.Text = oneGroupTitle("run time over observation index, one color per mpirun", g.Key)
	p.X.Label.Text = "observation index (file order)"
	p.Y.Label.Text = "run time [" + unit + "]"
	byMp := map[int32]plotter.XYs{}
	var order []int32
	lo, hi := math.Inf(1), math.Inf(-1)
	for i, v := range g.Runtimes {
		m := g.Mpirun[i]
		if _, ok := byMp[m]; !ok {
			order = append(order, m)
		}
		byMp[m] = append(byMp[m], plotter.XY{X: float64(i), Y: v * sc})
		lo, hi = math.Min(lo, v*sc), math.Max(hi, v*sc)
	}
	entries := 0
	for i, m := range order {
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
			p.Legend.Add(fmt.Sprintf("%s/%d (%d obs.)", id.RunID, id.Mpirun, len(byMp[m])), s)
			entries++
		}
	}
	if len(order) > 8 {
		p.Legend.Add(fmt.Sprintf("… %d more mpiruns", len(order)-8))
		entries++
	}
	p.Legend.Top = true
	// Keep the legend above the points: grow the y range by the legend's
	// share of the data area.
	legend := vg.Length(entries)*p.Legend.TextStyle.Height("M") + 8
	data := height - 2*plotMargin - 100
	if frac := float64(legend / data); hi > lo && frac < 0.6 {
		p.Y.Min, p.Y.Max = lo, hi+(hi-lo)*frac/(1-frac)
	}
	p.Add(plotter.NewGrid())
	return p, nil
}

// plotCompare draws, per group, the median of per-mpirun medians of A and B
// relative to A as a pair of horizontal bars, and to the right of each pair
// the ratio, the Wilcoxon significance (stars, or ~ when not significant),
// the p-value and the sample sizes (paper 000 Fig. 26). Groups are rows
// labelled on the y axis in full; row is the height of one row in points.
func plotCompare(rows []analysis.Comparison, row vg.Length) (*plot.Plot, error) {
	n := len(rows)
	va, vb := make(plotter.Values, n), make(plotter.Values, n)
	var lab plotter.XYLabels
	keys := make([]analysis.GroupKey, n)
	maxR := 1.0
	for i, r := range rows {
		y := n - 1 - i // first group on top
		va[y], vb[y] = 1, r.Ratio
		keys[i] = r.Key
		if !math.IsNaN(r.Ratio) && !math.IsInf(r.Ratio, 0) {
			maxR = math.Max(maxR, r.Ratio)
		}
		mark := analysis.Stars(r.Result.P)
		if mark == "" || !r.Significant {
			mark = "~"
		}
		at := 1.0
		if r.Ratio > 1 && !math.IsInf(r.Ratio, 0) {
			at = r.Ratio
		}
		lab.XYs = append(lab.XYs, plotter.XY{X: at, Y: float64(y)})
		lab.Labels = append(lab.Labels, fmt.Sprintf("%s×  %s  p=%s n=%d+%d", anRatio(r.Ratio), mark, anP(r.Result.P), r.NA, r.NB))
	}
	w := min(vg.Points(12), row*0.38)
	ba, err := plotter.NewBarChart(va, w)
	if err != nil {
		return nil, err
	}
	bb, err := plotter.NewBarChart(vb, w)
	if err != nil {
		return nil, err
	}
	ba.Horizontal, bb.Horizontal = true, true
	ba.Color, bb.Color = plotutil.Color(0), plotutil.Color(1)
	ba.Offset, bb.Offset = w/2, -w/2 // A above B
	p := plot.New()
	nameA, nameB := "A", "B"
	if rows[0].NameA != "" {
		nameA, nameB = rows[0].NameA, rows[0].NameB
	}
	names, common := groupLabels(keys, labelWrap)
	p.Title.Text = fmt.Sprintf("%s vs %s: median of per-mpirun medians, relative to %s\nWilcoxon rank-sum: * p≤0.05  ** p≤0.01  *** p≤0.001  ~ not significant", nameB, nameA, nameA)
	if common != "" {
		p.Title.Text += "\n" + common
	}
	p.X.Label.Text = "run time / run time of " + nameA
	one, err := plotter.NewLine(plotter.XYs{{X: 1, Y: -0.5}, {X: 1, Y: float64(n) - 0.5}})
	if err != nil {
		return nil, err
	}
	one.Color = color.Gray{Y: 110}
	one.Dashes = []vg.Length{vg.Points(3), vg.Points(3)}
	p.Add(ba, bb, one)
	labels, err := plotter.NewLabels(lab)
	if err != nil {
		return nil, err
	}
	for i := range labels.TextStyle {
		labels.TextStyle[i].YAlign = draw.YCenter
		labels.TextStyle[i].Font.Size = vg.Points(10)
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
	return p, nil
}

// anRatio formats a ratio with three significant digits.
func anRatio(r float64) string {
	switch {
	case math.IsNaN(r) || math.IsInf(r, 0):
		return "-"
	case r == 0:
		return "0"
	}
	return strconv.FormatFloat(r, 'f', max0(2-int(math.Floor(math.Log10(math.Abs(r))))), 64)
}

// plotQReg draws the quantile regression of paper 002 §3.2.3 (Fig. 4) for
// the first matching pair of groups: the difference Q_B(τ) − Q_A(τ) of the
// Tukey-filtered observations for τ = 0.02…0.98 with its confidence band.
func plotQReg(d *analysis.Dataset, bFiles []string, by, group string, opt analysis.Options, keepDup bool, stderr io.Writer) (*plot.Plot, error) {
	var ga, gb *analysis.Group
	var nameA, nameB string
	match := func(g *analysis.Group) bool { return strings.Contains(g.Key.String(), group) && len(g.Runtimes) > 0 }
	switch {
	case by != "":
		for _, g := range d.Groups {
			if !match(g) || g.Key.LabelValue(by) == "" {
				continue
			}
			if ga == nil {
				ga = g
				continue
			}
			if g.Key.WithoutLabel(by) == ga.Key.WithoutLabel(by) && g.Key.LabelValue(by) != ga.Key.LabelValue(by) {
				gb = g
				break
			}
		}
		if ga != nil && gb != nil {
			if gb.Key.LabelValue(by) < ga.Key.LabelValue(by) {
				ga, gb = gb, ga
			}
			nameA, nameB = ga.Key.LabelValue(by), gb.Key.LabelValue(by)
		}
	case len(bFiles) > 0:
		db, err := anReadFiles(os.Stdin, bFiles, keepDup)
		if err != nil {
			return nil, err
		}
		reportDropped(stderr, "plot", "B", db, func(k analysis.GroupKey) bool { return strings.Contains(k.String(), group) })
		for _, g := range d.Groups {
			if !match(g) {
				continue
			}
			for _, h := range db.Groups {
				if h.Key == g.Key && len(h.Runtimes) > 0 {
					ga, gb = g, h
					break
				}
			}
			if gb != nil {
				break
			}
		}
		nameA, nameB = "A", "B"
	default:
		return nil, fmt.Errorf("%w: --kind qreg needs A-FILES -- B-FILES or --by LABEL", errUsage)
	}
	if ga == nil || gb == nil {
		return nil, fmt.Errorf("no pair of groups to compare matches %q", group)
	}
	fmt.Fprintf(stderr, "plot: quantile regression of %s (%s) against %s (%s)\n", gb.Key, nameB, ga.Key, nameA)
	a := plotFiltered(ga, opt.TukeyK, 1)
	b := plotFiltered(gb, opt.TukeyK, 1)
	slices.Sort(a)
	slices.Sort(b)
	qs := analysis.QuantileRegression(a, b, analysis.Taus(), opt.Level)
	unit, sc := anUnit(analysis.Quantile(0.5, a))
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
	p.X.Label.Text = "quantile τ"
	p.Y.Label.Text = "difference [" + unit + "]"
	line, sct, err := plotter.NewLinePoints(pts)
	if err != nil {
		return nil, err
	}
	p.Add(line, sct)
	for _, band := range []plotter.XYs{lo, hi} {
		if len(band) < 2 {
			continue
		}
		l, err := plotter.NewLine(band)
		if err != nil {
			return nil, err
		}
		l.Dashes = []vg.Length{vg.Points(4), vg.Points(3)}
		l.Color = color.RGBA{R: 200, A: 255}
		p.Add(l)
	}
	zero, err := plotter.NewLine(plotter.XYs{{X: 0, Y: 0}, {X: 1, Y: 0}})
	if err != nil {
		return nil, err
	}
	zero.Color = color.Gray{Y: 120}
	p.Add(zero, plotter.NewGrid())
	return p, nil
}
