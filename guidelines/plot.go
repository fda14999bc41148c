package guidelines

import (
	"fmt"
	"image/color"
	"math"
	"strings"

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
	p.Title.Text = strings.TrimSuffix(wrap(fmt.Sprintf("%s: is the left-hand side slower? %d of %d violated", c.Name, c.Violations, c.Tests), 90, ""), "\n") +
		fmt.Sprintf("\ndot: median lhs/rhs (red: violated, Holm at alpha %g); bar: %g%% Hodges-Lehmann interval (dashed: it goes on beyond the axis)", r.Alpha, 100*r.Level)
	p.X.Label.Text = "lhs run time / rhs run time [ratio]"
	names := make([]string, n)
	var ok, bad plotter.XYs
	var lab plotter.XYLabels
	// The axis spans the dots (and 1), not the intervals: one mpirun
	// descheduled for milliseconds makes an interval thousands of times
	// wider than the ratios, and would hide them.
	lo, hi := 1.0, 1.0
	for _, d := range c.Decisions {
		if !math.IsNaN(d.Ratio) && !math.IsInf(d.Ratio, 0) {
			lo, hi = math.Min(lo, d.Ratio), math.Max(hi, d.Ratio)
		}
	}
	span := hi - lo
	xmin, xmax := math.Max(0, lo-0.25*span-0.05), hi+0.25*span+0.05
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
		if d.RhsMedianS > 0 && !math.IsNaN(d.ShiftLoS) && !math.IsNaN(d.ShiftHiS) {
			a, b := (d.RhsMedianS+d.ShiftLoS)/d.RhsMedianS, (d.RhsMedianS+d.ShiftHiS)/d.RhsMedianS
			ca, cb := math.Max(a, xmin), math.Min(b, xmax)
			if ca < cb {
				l, err := plotter.NewLine(plotter.XYs{{X: ca, Y: y}, {X: cb, Y: y}})
				if err != nil {
					return nil, 0, err
				}
				l.Width = vg.Points(1.5)
				if ca != a || cb != b {
					l.Dashes = []vg.Length{vg.Points(4), vg.Points(2)}
				}
				p.Add(l)
				right = math.Max(right, cb)
			}
		}
		lab.XYs = append(lab.XYs, plotter.XY{X: math.Min(right, xmax), Y: y})
		lab.Labels = append(lab.Labels, fmt.Sprintf("%.2f  p=%s %s", d.Ratio, fmtP(d.PHolm), d.Stars))
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
	p.X.Min, p.X.Max = xmin, xmax+0.3*(xmax-xmin) // room for the labels
	return p, n, nil
}
