package plots

import (
	"fmt"
	"image/color"
	"maps"
	"math"
	"slices"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/reprobench/reprobench/analysis"
)

// modeGlyphs are the glyphs of the modes of a group, fastest first.
var modeGlyphs = []draw.GlyphDrawer{draw.CircleGlyph{}, draw.TriangleGlyph{}, draw.SquareGlyph{}, draw.CrossGlyph{}}

// Mpiruns draws, per group of sel (at least one), every mpirun's median
// relative to the group's headline median (analysis.GroupSummary.Median)
// as a dot, with the interquartile range of that mpirun's Tukey-filtered
// observations (analysis.PerMpirun) as a line through it: how far a rerun
// moves the result (the spread of Hunold et al. 2014, §3), and how that compares
// with the spread within one mpirun. The mpiruns of a row are stacked
// within it in mpirun order. When a group's per-mpirun medians split into
// modes (analysis.GroupSummary.Modes), each mode has its own glyph
// (circle for the fastest, then triangle, square, cross) and a thin
// vertical tick at its median. Rows are ordered and colored as in
// Distributions; size as there.
func Mpiruns(d *analysis.Dataset, sel []analysis.GroupSummary, opt analysis.Options, size Size) (Figure, error) {
	if len(sel) == 0 {
		return Figure{}, fmt.Errorf("plots: no group to draw")
	}
	sel = sortForRows(sel)
	n := len(sel)
	keys := make([]analysis.GroupKey, n)
	for i, s := range sel {
		keys[i] = s.Key
	}
	w, h := size.width(), size.height(n, labelLines(keys), 2)
	series, seriesNames := plotSeries(keys)
	p := plot.New()
	p.Title.Text = "per-mpirun medians relative to the group's median (dot), and each mpirun's interquartile range (line)\nmpiruns stacked in order within a row; 1 = the median of the mpirun medians"
	lo, hi := 1.0, 1.0
	legendDone := map[int]bool{}
	split := false
	for i, s := range sel {
		var g *analysis.Group
		for _, x := range d.Groups {
			if x.Key == s.Key {
				g = x
				break
			}
		}
		if g == nil || !(s.Median > 0) {
			continue
		}
		runs := analysis.PerMpirun(g, opt.TukeyFor(g.Key))
		runs = slices.DeleteFunc(runs, func(m analysis.MpirunSummary) bool { return m.N == 0 })
		y0 := float64(n - 1 - i) // first group on top
		col := plotutil.DarkColors[series[i]%len(plotutil.DarkColors)]
		dots := map[int]plotter.XYs{} // per mode; 0 without modes
		for j, m := range runs {
			y := y0
			if len(runs) > 1 {
				y = y0 + 0.35 - 0.7*float64(j)/float64(len(runs)-1)
			}
			q1, med, q3 := m.Q1/s.Median, m.Median/s.Median, m.Q3/s.Median
			if !finite(q1) || !finite(q3) || !finite(med) {
				continue
			}
			lo, hi = math.Min(lo, q1), math.Max(hi, q3)
			ln, err := plotter.NewLine(plotter.XYs{{X: q1, Y: y}, {X: q3, Y: y}})
			if err != nil {
				return Figure{}, err
			}
			ln.Color = col
			ln.Width = vg.Points(1)
			p.Add(ln)
			mode := max(s.Modes.ModeOf(slices.Index(s.MpirunIndex, m.Mpirun)), 0)
			dots[mode] = append(dots[mode], plotter.XY{X: med, Y: y})
		}
		if len(dots) == 0 {
			continue
		}
		for _, mode := range slices.Sorted(maps.Keys(dots)) {
			sc, err := plotter.NewScatter(dots[mode])
			if err != nil {
				return Figure{}, err
			}
			sc.GlyphStyle = draw.GlyphStyle{Shape: modeGlyphs[mode%len(modeGlyphs)], Color: col, Radius: vg.Points(2.2)}
			p.Add(sc)
			if len(seriesNames) > 1 && !legendDone[series[i]] {
				p.Legend.Add(seriesNames[series[i]], sc)
				legendDone[series[i]] = true
			}
		}
		if s.Modes.Split() {
			split = true
			for _, md := range s.Modes.Modes {
				x := md.Median / s.Median
				tick, err := plotter.NewLine(plotter.XYs{{X: x, Y: y0 - 0.45}, {X: x, Y: y0 + 0.45}})
				if err != nil {
					return Figure{}, err
				}
				tick.Color = col
				tick.Width = vg.Points(0.5)
				p.Add(tick)
			}
		}
	}
	if split {
		p.Title.Text += "\nglyphs and thin ticks: the modes of a group whose mpiruns split (analysis.FindModes), each tick at a mode's median"
	}
	one, err := plotter.NewLine(plotter.XYs{{X: 1, Y: -0.5}, {X: 1, Y: float64(n) - 0.5}})
	if err != nil {
		return Figure{}, err
	}
	one.Color = color.Gray{Y: 110}
	one.Dashes = []vg.Length{vg.Points(3), vg.Points(3)}
	p.Add(one)
	names, common := GroupLabels(keys, labelWrap)
	if common != "" {
		p.Title.Text += "\n" + common
	}
	p.Legend.Top = true
	p.NominalY(reversed(names)...)
	row := rowSpace(h, n, 2)
	p.Y.Min, p.Y.Max = -0.5, float64(n)-0.5
	if len(seriesNames) > 1 {
		p.Y.Max += float64((vg.Length(len(seriesNames))*p.Legend.TextStyle.Height("M") + 8) / row)
	}
	p.X.Label.Text = "run time / the group's median [ratio]"
	if lo > 0 && hi/lo > 4 {
		// One mpirun far off would squash the others on a linear axis;
		// on a log axis ×2 and ×½ are as far from 1.
		p.X.Scale = plot.LogScale{}
		p.X.Tick.Marker = ratioLogTicks{}
		p.X.Min, p.X.Max = lo/1.1, hi*1.1
		p.X.Label.Text = "run time / the group's median [ratio, log scale]"
	} else {
		pad := 0.05 * (hi - lo)
		if !(pad > 0) {
			pad = 0.05
		}
		p.X.Min, p.X.Max = lo-pad, hi+pad
	}
	p.Add(plotter.NewGrid())
	return finish(p, w, h, crowded(h, n, 2)), nil
}
