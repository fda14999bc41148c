package main

import (
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/reprobench/reprobench/analysis"
)

// Layout helpers shared by the plot kinds: readable group labels, tick
// markers in time units, automatic log axes and a margin around the figure.

// plotMargin is left free around the whole figure so that neither the title
// nor the outermost tick labels touch the edge of the image.
const plotMargin = vg.Length(8)

// savePlot writes p to file (format from the extension) at w×h, keeping
// plotMargin free on every side.
func savePlot(p *plot.Plot, w, h vg.Length, file string) (err error) {
	format := strings.TrimPrefix(strings.ToLower(filepath.Ext(file)), ".")
	c, err := draw.NewFormattedCanvas(w, h, format)
	if err != nil {
		return err
	}
	dc := draw.New(c)
	if p.BackgroundColor != nil {
		dc.SetColor(p.BackgroundColor)
		dc.Fill(dc.Rectangle.Path())
	}
	p.Draw(draw.Crop(dc, plotMargin, -plotMargin, plotMargin, -plotMargin))
	f, err := os.Create(file)
	if err != nil {
		return err
	}
	defer func() {
		if e := f.Close(); err == nil {
			err = e
		}
	}()
	_, err = c.WriteTo(f)
	return err
}

// humanBytes renders a message size in bytes with binary prefixes, the way
// MPI users speak of them: 8 B, 1 KiB, 32 KiB, 1.5 MiB.
func humanBytes(n int64) string {
	units := []string{"B", "KiB", "MiB", "GiB", "TiB"}
	v := float64(n)
	i := 0
	for math.Abs(v) >= 1024 && i < len(units)-1 {
		v /= 1024
		i++
	}
	return strconv.FormatFloat(math.Round(v*100)/100, 'f', -1, 64) + " " + units[i]
}

// groupParts splits a group key into the parts a reader needs: the call
// without its MPI_ prefix, the message size in human units, np, the
// datatype and each label.
func groupParts(k analysis.GroupKey) []string {
	parts := []string{strings.TrimPrefix(k.Call, "MPI_"), humanBytes(k.MsizeBytes), "np=" + strconv.Itoa(k.NP)}
	if k.Datatype != "" {
		parts = append(parts, k.Datatype)
	}
	if k.Labels != "" {
		parts = append(parts, strings.Split(k.Labels, ",")...)
	}
	return parts
}

// groupLabels returns, for several groups, the parts of their names that
// differ (as tick labels, wrapped to at most wrap characters per line) and
// the parts all groups share (for the title), so that each label stays
// short enough to be read in full.
func groupLabels(keys []analysis.GroupKey, wrap int) (names []string, common string) {
	parts := make([][]string, len(keys))
	for i, k := range keys {
		parts[i] = groupParts(k)
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
		names = append(names, wrapParts(keep, wrap))
	}
	return names, wrapParts(com, 90)
}

// wrapParts joins parts with ", ", starting a new line before a part that
// would make the current line longer than width characters.
func wrapParts(parts []string, width int) string {
	var b strings.Builder
	line := 0
	for i, p := range parts {
		n := len([]rune(p))
		if i > 0 {
			if line+2+n > width {
				b.WriteString(",\n")
				line = 0
			} else {
				b.WriteString(", ")
				line += 2
			}
		}
		b.WriteString(p)
		line += n
	}
	return b.String()
}

// niceTicks labels three to eight ticks at 1, 2 or 5 × 10^k steps, with minor
// ticks in between, and prints every label with the same number of decimals
// (so 600, 900, 1200 rather than 600, 900, 1.2e+03).
type niceTicks struct{}

func (niceTicks) Ticks(min, max float64) []plot.Tick {
	if !(max > min) || math.IsInf(max-min, 0) {
		return plot.DefaultTicks{}.Ticks(min, max)
	}
	raw := (max - min) / 8
	mag := math.Pow(10, math.Floor(math.Log10(raw)))
	step := 10 * mag
	for _, m := range []float64{1, 2, 5} {
		if m*mag >= raw {
			step = m * mag
			break
		}
	}
	minor := step / 5
	if math.Round(step/mag) == 2 {
		minor = step / 4
	}
	dec := max0(-int(math.Floor(math.Log10(step) + 1e-9)))
	var ticks []plot.Tick
	for i := math.Ceil(min / minor); i*minor <= max+minor*1e-9; i++ {
		v := i * minor
		if math.Abs(v) < minor*1e-9 {
			v = 0
		}
		t := plot.Tick{Value: v}
		if r := math.Remainder(v, step); math.Abs(r) < minor*1e-6 {
			t.Label = strconv.FormatFloat(v, 'f', dec, 64)
		}
		ticks = append(ticks, t)
	}
	return ticks
}

func max0(n int) int { return max(n, 0) }

// timeLogTicks marks a logarithmic axis whose values are seconds at
// 1, 2 and 5 × 10^k, labelled in the time unit that suits each tick
// (500 ns, 1 µs, 2 µs, …); with many decades only the powers of ten carry
// labels, with less than a decade every integer mantissa does.
type timeLogTicks struct{}

func (timeLogTicks) Ticks(min, max float64) []plot.Tick {
	if !(min > 0) || !(max > min) {
		return plot.DefaultTicks{}.Ticks(min, max)
	}
	decades := math.Log10(max / min)
	labelled := func(m int) bool { return m == 1 || m == 2 || m == 5 }
	switch {
	case decades > 4:
		labelled = func(m int) bool { return m == 1 }
	case decades < 0.7:
		labelled = func(int) bool { return true }
	}
	var ticks []plot.Tick
	for e := math.Floor(math.Log10(min)); e <= math.Ceil(math.Log10(max)); e++ {
		for m := 1; m <= 9; m++ {
			v := float64(m) * math.Pow(10, e)
			if v < min*(1-1e-9) || v > max*(1+1e-9) {
				continue
			}
			t := plot.Tick{Value: v}
			if labelled(m) {
				t.Label = fmtTime(v)
			}
			ticks = append(ticks, t)
		}
	}
	return ticks
}

// fmtTime renders seconds in the unit anUnit picks, with up to three
// significant digits and no trailing zeros: 500 ns, 1 µs, 2.5 ms.
func fmtTime(v float64) string {
	unit, sc := anUnit(v)
	x := v * sc
	s := strconv.FormatFloat(x, 'g', 3, 64)
	if strings.ContainsAny(s, "e") {
		s = strconv.FormatFloat(x, 'f', 0, 64)
	}
	return s + " " + unit
}

// logMode is the value of plot --log.
type logMode string

func parseLogMode(s string) (logMode, error) {
	switch s {
	case "auto", "on", "off":
		return logMode(s), nil
	}
	return "", fmt.Errorf("%w: --log must be auto, on or off, not %q", errUsage, s)
}

// logAutoRatio is the spread of the plotted medians (max/min) above which
// --log auto switches the run-time axis to a log scale.
const logAutoRatio = 10

// useLog decides whether a run-time axis is logarithmic: always with on,
// never with off, and with auto when max/min of the medians exceeds
// logAutoRatio. A log axis needs every plotted value > 0 (minPlotted); auto
// then falls back to linear, on fails.
func useLog(mode logMode, medians []float64, minPlotted float64) (bool, error) {
	switch mode {
	case "off":
		return false, nil
	case "on":
		if !(minPlotted > 0) {
			return false, fmt.Errorf("--log on: a run time ≤ 0 cannot be shown on a log axis")
		}
		return true, nil
	}
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, m := range medians {
		if m > 0 {
			lo, hi = math.Min(lo, m), math.Max(hi, m)
		}
	}
	return minPlotted > 0 && hi/lo > logAutoRatio, nil
}

// groupPlotHeight is the default figure height in inches for a plot with
// one row per group (rows bars or boxes stacked vertically), so that
// labels and boxes never have to share space: about a third of an inch per
// row (more when labels wrap to lines lines) plus room for the title and
// the x axis.
func groupPlotHeight(rows, lines, titleLines int) float64 {
	row := 0.3 + 0.17*float64(max(lines, 1)-1)
	return math.Max(3, 0.9+0.2*float64(titleLines)+row*float64(rows))
}

// labelLines is the largest number of lines of the group labels for keys.
func labelLines(keys []analysis.GroupKey) int {
	names, _ := groupLabels(keys, labelWrap)
	n := 1
	for _, s := range names {
		n = max(n, 1+strings.Count(s, "\n"))
	}
	return n
}

// labelWrap is the line length at which group labels wrap.
const labelWrap = 34

// rowSpace is the vertical space per group row in points, for sizing boxes
// and bars (which gonum/plot measures in points, not data units).
func rowSpace(height vg.Length, rows, titleLines int) vg.Length {
	data := height - 2*plotMargin - vg.Length(14*titleLines+6) - 40
	return max(data/vg.Length(max(rows, 1)), 6)
}

// warnCrowded tells the user when an explicit --height leaves less than a
// line of label text per group row.
func warnCrowded(w io.Writer, height vg.Length, rows, titleLines int) {
	if row := rowSpace(height, rows, titleLines); row < 13 {
		fmt.Fprintf(w, "plot: %.1f in leaves %.0f pt per group; labels may overlap (omit --height to fit %d groups)\n",
			float64(height/vg.Inch), float64(row), rows)
	}
}
