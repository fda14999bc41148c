package plots

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// Figure is a finished plot and the size to draw it at. Warnings say what
// a reader of the figure should know that it does not show (a crowded
// layout, a log axis refused); callers print them.
type Figure struct {
	Plot          *plot.Plot
	Width, Height vg.Length
	Warnings      []string
}

// Size is the requested size of a figure in inches. A zero Width is 8
// inches; a zero Height is 5 inches, or for the figures with one row per
// group (Distributions, Compare, MpirunMedians) enough for every row to be
// read.
type Size struct {
	Width, Height float64
}

func (s Size) width() vg.Length {
	if s.Width == 0 {
		return 8 * vg.Inch
	}
	return vg.Length(s.Width) * vg.Inch
}

// height is the figure height for a figure with a row per key (none for
// the figures that show one group).
func (s Size) height(rows, labelLines, titleLines int) vg.Length {
	h := s.Height
	if h == 0 {
		h = 5
		if rows > 0 {
			h = groupPlotHeight(rows, labelLines, titleLines)
		}
	}
	return vg.Length(h) * vg.Inch
}

// ErrLogAxis is wrapped by the error of Distributions when LogOn meets a
// run time ≤ 0.
var ErrLogAxis = errors.New("no log axis")

// finish gives the linear axes that kept gonum/plot's default ticks
// niceTicks and fits the title to the width.
func finish(p *plot.Plot, w, h vg.Length, warns ...string) Figure {
	for _, ax := range []*plot.Axis{&p.X, &p.Y} {
		if _, ok := ax.Tick.Marker.(plot.DefaultTicks); ok {
			ax.Tick.Marker = niceTicks{}
		}
	}
	fitTitle(p, w)
	f := Figure{Plot: p, Width: w, Height: h}
	for _, wn := range warns {
		if wn != "" {
			f.Warnings = append(f.Warnings, wn)
		}
	}
	return f
}

// Encode writes the figure in format "svg", "png" or "pdf", keeping Margin
// free on every side.
func (f Figure) Encode(w io.Writer, format string) error {
	if err := CheckSize(float64(f.Width/vg.Inch), float64(f.Height/vg.Inch), "."+format); err != nil {
		return err
	}
	c, err := draw.NewFormattedCanvas(f.Width, f.Height, format)
	if err != nil {
		return err
	}
	dc := draw.New(c)
	if f.Plot.BackgroundColor != nil {
		dc.SetColor(f.Plot.BackgroundColor)
		dc.Fill(dc.Rectangle.Path())
	}
	f.Plot.Draw(draw.Crop(dc, Margin, -Margin, Margin, -Margin))
	_, err = c.WriteTo(w)
	return err
}

// SVG returns the figure as an SVG document.
func (f Figure) SVG() ([]byte, error) {
	var b bytes.Buffer
	if err := f.Encode(&b, "svg"); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// Save writes the figure to file, in the format its extension names
// (.png, .svg or .pdf).
func (f Figure) Save(file string) (err error) {
	format := strings.TrimPrefix(strings.ToLower(filepath.Ext(file)), ".")
	switch format {
	case "png", "svg", "pdf":
	default:
		return fmt.Errorf("plots: %s: the name must end in .png, .svg or .pdf", file)
	}
	var b bytes.Buffer
	if err := f.Encode(&b, format); err != nil {
		return err
	}
	return os.WriteFile(file, b.Bytes(), 0o644)
}
