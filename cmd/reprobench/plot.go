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
	height := fs.Float64("height", 5, "height in inches")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	opt, err := o.options()
	if err != nil {
		return err
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
	d, err := anReadFiles(os.Stdin, files)
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
	var p *plot.Plot
	switch *kind {
	case "box", "violin":
		p, err = plotDistributions(d, sel, opt, *kind == "violin")
	case "hist", "qq", "acf", "drift":
		if len(sel) > 1 {
			fmt.Fprintf(stderr, "plot: %d groups match; plotting %s (choose with --group)\n", len(sel), sel[0].Key)
		}
		g := groupData(sel[0].Key)
		switch *kind {
		case "hist":
			p, err = plotHist(g, sel[0])
		case "qq":
			p, err = plotQQ(g, sel[0])
		case "acf":
			p, err = plotACF(g)
		case "drift":
			p, err = plotDrift(d, g)
		}
	case "qreg":
		p, err = plotQReg(d, bFiles, *by, *group, opt, stderr)
	case "compare":
		var rows []analysis.Comparison
		switch {
		case *by != "":
			rows, err = analysis.CompareBy(d, *by, opt)
		case len(bFiles) > 0:
			var db *analysis.Dataset
			if db, err = anReadFiles(os.Stdin, bFiles); err == nil {
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
			p, err = plotCompare(keep)
		}
	default:
		return fmt.Errorf("%w: unknown --kind %q", errUsage, *kind)
	}
	if err != nil {
		return err
	}
	ext := strings.ToLower(filepath.Ext(*outFile))
	if ext != ".png" && ext != ".svg" && ext != ".pdf" {
		return fmt.Errorf("%w: output must end in .png, .svg or .pdf", errUsage)
	}
	p.Y.Tick.Marker = preciseTicks{}
	return p.Save(vg.Length(*width)*vg.Inch, vg.Length(*height)*vg.Inch, *outFile)
}

// plotUnit picks one unit for a whole plot from the median of the medians.
func plotUnit(vals []float64) (string, float64) {
	if len(vals) == 0 {
		return "s", 1
	}
	return anUnit(analysis.Median(vals))
}

func shortName(k analysis.GroupKey) string {
	return strings.TrimPrefix(k.String(), "MPI_")
}

// distinctNames returns, for several groups, only the parts of their names
// that differ, and the common parts (for the title), so tick labels stay
// short.
func distinctNames(keys []analysis.GroupKey) (names []string, common string) {
	parts := make([][]string, len(keys))
	for i, k := range keys {
		parts[i] = strings.Split(shortName(k), "/")
	}
	isCommon := func(seg string) bool {
		for _, p := range parts {
			if !slices.Contains(p, seg) {
				return false
			}
		}
		return true
	}
	var com []string
	if len(keys) > 1 {
		for _, seg := range parts[0] {
			if isCommon(seg) {
				com = append(com, seg)
			}
		}
	}
	for _, p := range parts {
		var keep []string
		for _, seg := range p {
			if !slices.Contains(com, seg) {
				keep = append(keep, seg)
			}
		}
		if len(keep) == 0 {
			keep = p
		}
		names = append(names, strings.Join(keep, "/"))
	}
	return names, strings.Join(com, "/")
}

// plotDistributions draws one box (Tukey whiskers at 1.5 IQR, as
// gonum/plot's BoxPlot) or violin (Gaussian kernel density, Silverman's
// bandwidth) per group of filtered observations, with the median CI as a
// red bar.
func plotDistributions(d *analysis.Dataset, sel []analysis.GroupSummary, opt analysis.Options, violin bool) (*plot.Plot, error) {
	if len(sel) > 40 {
		return nil, fmt.Errorf("%d groups: too many for one plot, select with --group", len(sel))
	}
	var meds []float64
	for _, s := range sel {
		meds = append(meds, s.Median)
	}
	unit, sc := plotUnit(meds)
	p := plot.New()
	p.Title.Text = "run-time distribution per group (Tukey-filtered per mpirun)"
	if violin {
		p.Title.Text = "run-time density per group (Tukey-filtered per mpirun)"
	}
	p.Y.Label.Text = "run time [" + unit + "]"
	var names []string
	for i, s := range sel {
		var g *analysis.Group
		for _, gg := range d.Groups {
			if gg.Key == s.Key {
				g = gg
			}
		}
		vals := plotFiltered(g, opt.TukeyK, sc)
		x := float64(i)
		if violin {
			poly, err := violinPolygon(vals, x, 0.4)
			if err != nil {
				return nil, err
			}
			poly.Color = plotutil.Color(0)
			p.Add(poly)
		} else {
			b, err := plotter.NewBoxPlot(vg.Points(20), x, plotter.Values(vals))
			if err != nil {
				return nil, err
			}
			p.Add(b)
		}
		if s.MedianCI.Valid() {
			ci, _ := plotter.NewLine(plotter.XYs{{X: x, Y: s.MedianCI.Lo * sc}, {X: x, Y: s.MedianCI.Hi * sc}})
			ci.Color = color.RGBA{R: 200, A: 255}
			ci.Width = vg.Points(3)
			p.Add(ci)
		}
	}
	var keys []analysis.GroupKey
	for _, s := range sel {
		keys = append(keys, s.Key)
	}
	names, common := distinctNames(keys)
	if common != "" {
		p.Title.Text += "\n" + common
	}
	p.NominalX(names...)
	rotateTicks(p, names)
	p.Add(plotter.NewGrid())
	return p, nil
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

func violinPolygon(vals []float64, x, halfWidth float64) (*plotter.Polygon, error) {
	s := slices.Clone(vals)
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
	ys := make([]float64, steps+1)
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
	for i := range ys {
		y := lo + (hi-lo)*float64(i)/steps
		ys[i] = y
		var dsum float64
		for b, c := range counts {
			if c == 0 {
				continue
			}
			c0 := lo + (float64(b)+0.5)*bw
			z := (y - c0) / h
			dsum += c * math.Exp(-0.5*z*z)
		}
		dens[i] = dsum
		maxD = math.Max(maxD, dsum)
	}
	var pts plotter.XYs
	for i := range ys {
		pts = append(pts, plotter.XY{X: x + halfWidth*dens[i]/maxD, Y: ys[i]})
	}
	for i := len(ys) - 1; i >= 0; i-- {
		pts = append(pts, plotter.XY{X: x - halfWidth*dens[i]/maxD, Y: ys[i]})
	}
	return plotter.NewPolygon(pts)
}

func plotHist(g *analysis.Group, s analysis.GroupSummary) (*plot.Plot, error) {
	unit, sc := anUnit(s.Median)
	p := plot.New()
	p.Title.Text = shortName(g.Key) + ": histogram of valid observations"
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
func plotQQ(g *analysis.Group, s analysis.GroupSummary) (*plot.Plot, error) {
	vals := slices.Clone(s.MpirunMedians)
	what := "per-mpirun medians"
	if len(vals) < 3 {
		vals = plotFiltered(g, 1.5, 1)
		what = "observations"
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
	p.Title.Text = fmt.Sprintf("%s: normal Q-Q of %s (Shapiro-Wilk p=%.3g)", shortName(g.Key), what, sw.P)
	p.X.Label.Text = "theoretical normal quantile"
	p.Y.Label.Text = "sample [" + unit + "]"
	sct, err := plotter.NewScatter(pts)
	if err != nil {
		return nil, err
	}
	p.Add(sct)
	m, sd := analysis.Mean(vals)*sc, analysis.StdDev(vals)*sc
	ln, _ := plotter.NewLine(plotter.XYs{{X: pts[0].X, Y: m + sd*pts[0].X}, {X: pts[n-1].X, Y: m + sd*pts[n-1].X}})
	ln.Color = color.RGBA{R: 200, A: 255}
	p.Add(ln, plotter.NewGrid())
	return p, nil
}

func normQ(p float64) float64 { return math.Sqrt2 * math.Erfinv(2*p-1) }

// plotACF draws the autocorrelation of the valid observations in file order
// with ±1.96/√n bounds (paper 001 §4.4, Fig. 5).
func plotACF(g *analysis.Group) (*plot.Plot, error) {
	maxLag := min(100, len(g.Runtimes)-1)
	r, bound := analysis.ACF(g.Runtimes, maxLag, 0.05)
	p := plot.New()
	p.Title.Text = shortName(g.Key) + ": autocorrelation (dashed: 95% bounds)"
	p.X.Label.Text = "lag"
	p.Y.Label.Text = "ACF"
	for h, v := range r {
		l, _ := plotter.NewLine(plotter.XYs{{X: float64(h), Y: 0}, {X: float64(h), Y: v}})
		l.Width = vg.Points(1.5)
		p.Add(l)
	}
	for _, b := range []float64{bound, -bound} {
		l, _ := plotter.NewLine(plotter.XYs{{X: 0, Y: b}, {X: float64(maxLag), Y: b}})
		l.Dashes = []vg.Length{vg.Points(4), vg.Points(3)}
		l.Color = color.RGBA{B: 200, A: 255}
		p.Add(l)
	}
	return p, nil
}

// plotDrift draws run time against observation index, one color per mpirun,
// to show drift within and between mpiruns.
func plotDrift(d *analysis.Dataset, g *analysis.Group) (*plot.Plot, error) {
	unit, sc := anUnit(analysis.Median(g.Runtimes))
	p := plot.New()
	p.Title.Text = shortName(g.Key) + ": run time over observation index"
	p.X.Label.Text = "observation index (file order)"
	p.Y.Label.Text = "run time [" + unit + "]"
	byMp := map[int32]plotter.XYs{}
	var order []int32
	for i, v := range g.Runtimes {
		m := g.Mpirun[i]
		if _, ok := byMp[m]; !ok {
			order = append(order, m)
		}
		byMp[m] = append(byMp[m], plotter.XY{X: float64(i), Y: v * sc})
	}
	for i, m := range order {
		s, err := plotter.NewScatter(byMp[m])
		if err != nil {
			return nil, err
		}
		s.GlyphStyle.Radius = vg.Points(1)
		s.GlyphStyle.Color = plotutil.Color(i)
		p.Add(s)
		if i < 8 {
			id := d.Mpiruns[m]
			p.Legend.Add(fmt.Sprintf("%s/%d", id.RunID, id.Mpirun), s)
		}
	}
	p.Legend.Top = true
	p.Add(plotter.NewGrid())
	return p, nil
}

// plotCompare draws the median of per-mpirun medians of A and B per group as
// bars, with the Wilcoxon significance stars above each pair (paper 000
// Fig. 26).
func plotCompare(rows []analysis.Comparison) (*plot.Plot, error) {
	if len(rows) > 40 {
		return nil, fmt.Errorf("%d comparisons: too many for one plot, select with --group", len(rows))
	}
	var meds []float64
	for _, r := range rows {
		meds = append(meds, r.MedianA)
	}
	unit, sc := plotUnit(meds)
	// Normalize to A so groups of different sizes share one axis.
	va, vb := make(plotter.Values, len(rows)), make(plotter.Values, len(rows))
	var lab plotter.XYLabels
	var keys []analysis.GroupKey
	maxR := 1.0
	for i, r := range rows {
		va[i], vb[i] = 1, r.Ratio
		keys = append(keys, r.Key)
		maxR = math.Max(maxR, r.Ratio)
		star := analysis.Stars(r.Result.P)
		if star == "" {
			star = "~"
		}
		lab.XYs = append(lab.XYs, plotter.XY{X: float64(i), Y: math.Max(1, r.Ratio) * 1.02})
		lab.Labels = append(lab.Labels, star)
	}
	w := vg.Points(12)
	ba, err := plotter.NewBarChart(va, w)
	if err != nil {
		return nil, err
	}
	bb, err := plotter.NewBarChart(vb, w)
	if err != nil {
		return nil, err
	}
	ba.Color, bb.Color = plotutil.Color(0), plotutil.Color(1)
	ba.Offset, bb.Offset = -w/2, w/2
	p := plot.New()
	nameA, nameB := "A", "B"
	if rows[0].NameA != "" {
		nameA, nameB = rows[0].NameA, rows[0].NameB
	}
	names, common := distinctNames(keys)
	p.Title.Text = fmt.Sprintf("median of per-mpirun medians, %s relative to %s; Wilcoxon: * p≤.05 ** p≤.01 *** p≤.001 ~ n.s.", nameB, nameA)
	if common != "" {
		p.Title.Text += "\n" + common
	}
	_, _ = unit, sc
	p.Y.Label.Text = "run time / run time of " + nameA
	p.Add(ba, bb)
	labels, err := plotter.NewLabels(lab)
	if err != nil {
		return nil, err
	}
	p.Add(labels)
	p.Legend.Add(nameA, ba)
	p.Legend.Add(nameB, bb)
	p.Legend.Top = true
	p.Legend.Left = true
	p.Legend.YOffs = vg.Points(-4)
	p.NominalX(names...)
	rotateTicks(p, names)
	p.Y.Min = 0
	p.Y.Max = maxR * 1.25
	return p, nil
}

// rotateTicks slants long nominal tick labels so they do not overlap.
func rotateTicks(p *plot.Plot, names []string) {
	long := 0
	for _, n := range names {
		long = max(long, len(n))
	}
	if long*len(names) <= 90 {
		return
	}
	p.X.Tick.Label.Rotation = math.Pi / 6
	p.X.Tick.Label.XAlign = -0.9
	p.X.Tick.Label.YAlign = -0.2
}

// preciseTicks are gonum/plot's default ticks labelled with enough digits to
// tell neighbouring ticks apart.
type preciseTicks struct{}

func (preciseTicks) Ticks(min, max float64) []plot.Tick {
	ticks := plot.DefaultTicks{}.Ticks(min, max)
	for prec := 3; prec <= 8; prec++ {
		seen := map[string]bool{}
		dup := false
		for i := range ticks {
			if ticks[i].Label == "" {
				continue
			}
			ticks[i].Label = strconv.FormatFloat(ticks[i].Value, 'g', prec, 64)
			dup = dup || seen[ticks[i].Label]
			seen[ticks[i].Label] = true
		}
		if !dup {
			break
		}
	}
	return ticks
}

// plotQReg draws the quantile regression of paper 002 §3.2.3 (Fig. 4) for
// the first matching pair of groups: the difference Q_B(τ) − Q_A(τ) of the
// Tukey-filtered observations for τ = 0.02…0.98 with its confidence band.
func plotQReg(d *analysis.Dataset, bFiles []string, by, group string, opt analysis.Options, stderr io.Writer) (*plot.Plot, error) {
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
		db, err := anReadFiles(os.Stdin, bFiles)
		if err != nil {
			return nil, err
		}
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
	zero, _ := plotter.NewLine(plotter.XYs{{X: 0, Y: 0}, {X: 1, Y: 0}})
	zero.Color = color.Gray{Y: 120}
	p.Add(zero, plotter.NewGrid())
	return p, nil
}
