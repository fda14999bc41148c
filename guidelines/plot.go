package guidelines

import (
	"fmt"
	"image/color"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// Plot draws one context's decisions (index ctx of r.Contexts) as a forest
// plot: a row per guideline and size (the first on top), its ratio
// lhs/rhs of the medians as a dot (red when violated), the Hodges-Lehmann
// interval of the shift as a bar in the same ratio units
// ((rhs + lo)/rhs … (rhs + hi)/rhs), the line ratio = 1 (right of it the
// left-hand side is slower), and Holm's p with its stars beside each row.
// Rows that were not decided are left empty. It also returns the height in
// rows the caller should give it (about 0.3 inch each).
func (r Report) Plot(ctx int) (*plot.Plot, int, error) {
	if ctx < 0 || ctx >= len(r.Contexts) {
		return nil, 0, fmt.Errorf("guidelines: no context %d", ctx)
	}
	c := r.Contexts[ctx]
	n := len(c.Decisions)
	if n == 0 {
		return nil, 0, fmt.Errorf("guidelines: context %s has no decision", c.Name)
	}
	p := plot.New()
	p.Title.Text = fmt.Sprintf("%s: is the left-hand side slower? (%d of %d violated)\n"+
		"dot: median lhs/rhs; bar: %g%% Hodges-Lehmann interval; red: violated (Holm, alpha %g)", c.Name, c.Violations, c.Tests, 100*r.Level, r.Alpha)
	p.X.Label.Text = "lhs run time / rhs run time [ratio]"
	names := make([]string, n)
	var ok, bad plotter.XYs
	var lab plotter.XYLabels
	lo, hi := 1.0, 1.0
	for i, d := range c.Decisions {
		y := float64(n - 1 - i)
		size := "any size"
		if d.SizeBytes >= 0 {
			size = humanBytes(d.SizeBytes)
		}
		names[n-1-i] = d.Guideline + " @ " + size
		if math.IsNaN(d.Ratio) || math.IsInf(d.Ratio, 0) {
			continue
		}
		pt := plotter.XY{X: d.Ratio, Y: y}
		if d.Violated {
			bad = append(bad, pt)
		} else {
			ok = append(ok, pt)
		}
		right := d.Ratio
		lo, hi = math.Min(lo, d.Ratio), math.Max(hi, d.Ratio)
		if d.RhsMedianS > 0 && !math.IsNaN(d.ShiftLoS) && !math.IsNaN(d.ShiftHiS) {
			a, b := (d.RhsMedianS+d.ShiftLoS)/d.RhsMedianS, (d.RhsMedianS+d.ShiftHiS)/d.RhsMedianS
			l, err := plotter.NewLine(plotter.XYs{{X: a, Y: y}, {X: b, Y: y}})
			if err != nil {
				return nil, 0, err
			}
			l.Width = vg.Points(1.5)
			p.Add(l)
			lo, hi, right = math.Min(lo, a), math.Max(hi, b), math.Max(right, b)
		}
		lab.XYs = append(lab.XYs, plotter.XY{X: right, Y: y})
		lab.Labels = append(lab.Labels, fmt.Sprintf("p=%s %s", fmtP(d.PHolm), d.Stars))
	}
	one, err := plotter.NewLine(plotter.XYs{{X: 1, Y: -0.5}, {X: 1, Y: float64(n) - 0.5}})
	if err != nil {
		return nil, 0, err
	}
	one.Color = color.Gray{Y: 110}
	one.Dashes = []vg.Length{vg.Points(3), vg.Points(3)}
	p.Add(one)
	for _, s := range []struct {
		xy  plotter.XYs
		col color.Color
	}{{ok, color.RGBA{R: 30, G: 90, B: 200, A: 255}}, {bad, color.RGBA{R: 210, G: 20, B: 20, A: 255}}} {
		if len(s.xy) == 0 {
			continue
		}
		sc, err := plotter.NewScatter(s.xy)
		if err != nil {
			return nil, 0, err
		}
		sc.GlyphStyle.Color, sc.GlyphStyle.Radius, sc.GlyphStyle.Shape = s.col, vg.Points(4), draw.CircleGlyph{}
		p.Add(sc)
	}
	if len(lab.XYs) > 0 {
		labels, err := plotter.NewLabels(lab)
		if err != nil {
			return nil, 0, err
		}
		for i := range labels.TextStyle {
			labels.TextStyle[i].YAlign = draw.YCenter
			labels.TextStyle[i].Font.Size = vg.Points(9)
		}
		labels.Offset = vg.Point{X: vg.Points(5)}
		p.Add(labels)
	}
	p.NominalY(names...)
	p.Y.Min, p.Y.Max = -0.5, float64(n)-0.5
	span := hi - lo
	p.X.Min, p.X.Max = math.Max(0, lo-0.05*span), hi+0.35*span+0.05 // room for the labels
	return p, n, nil
}
