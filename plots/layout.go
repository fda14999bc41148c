package plots

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"

	"github.com/reprobench/reprobench/analysis"
)

// Layout helpers shared by the plot kinds: readable group labels, tick
// markers in time units, automatic log axes and a margin around the figure.

// Margin is left free around the whole figure so that neither the title
// nor the outermost tick labels touch the edge of the image.
const Margin = vg.Length(8)

// Figure size bounds: each side between minFigureInches and
// maxFigureInches, and a PNG at most maxPNGPixels (the raster is held in
// memory, 4 bytes per pixel), so that --width 1e6 is refused with a message
// instead of exhausting memory.
const (
	minFigureInches = 1
	maxFigureInches = 100
	maxPNGPixels    = 40 << 20
)

// pngDPI is the resolution gonum/plot renders PNGs at (vgimg.DefaultDPI).
const pngDPI = 96

// CheckSize checks a figure of w×h inches (h 0: chosen from the number of
// groups) in the format of file extension ext (".png", ".svg", ".pdf"):
// each side between 1 and 100 inches, a PNG at most 40 Mpixel.
func CheckSize(w, h float64, ext string) error {
	side := func(name string, v float64) error {
		if !(v >= minFigureInches && v <= maxFigureInches) {
			return fmt.Errorf("--%s %g: must be between %d and %d inches", name, v, minFigureInches, maxFigureInches)
		}
		return nil
	}
	if err := side("width", w); err != nil {
		return err
	}
	if h != 0 {
		if err := side("height", h); err != nil {
			return err
		}
	}
	if px := w * max(h, 5) * pngDPI * pngDPI; strings.EqualFold(ext, ".png") && px > maxPNGPixels {
		return fmt.Errorf("%g × %g in at %d dpi is %.0f Mpixel; a PNG may have at most %d (use .svg or .pdf, or a smaller size)",
			w, max(h, 5), pngDPI, px/(1<<20), maxPNGPixels>>20)
	}
	return nil
}

// HumanBytes renders a message size in bytes with binary prefixes, the way
// MPI users speak of them: 8 B, 1 KiB, 32 KiB, 1.5 MiB.
func HumanBytes(n int) string {
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
	parts := []string{strings.TrimPrefix(k.Call, "MPI_"), HumanBytes(k.MsizeBytes), "np=" + strconv.Itoa(k.Np)}
	if k.Datatype != "" {
		parts = append(parts, k.Datatype)
	}
	if k.Labels != "" {
		parts = append(parts, strings.Split(k.Labels, ",")...)
	}
	return parts
}

// GroupLabels returns, for several groups, the parts of their names that
// differ (as tick labels, wrapped to at most wrap characters per line) and
// the parts all groups share (for the title), so that each label stays
// short enough to be read in full.
func GroupLabels(keys []analysis.GroupKey, wrap int) (names []string, common string) {
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

// maxTicks bounds the number of ticks a marker returns for any range, so
// that no data can make the layout loop or allocate without bound (a float64
// counter above 2^53 stops advancing, and an unbounded tick list would grow
// without end).
const maxTicks = 200

// niceTicks labels three to eight ticks at 1, 2 or 5 × 10^k steps, with minor
// ticks in between, and prints every label with the same number of decimals
// (so 600, 900, 1200 rather than 600, 900, 1.2e+03). A range too narrow for
// such steps to be distinct floats (values a few ulps apart) or not finite
// gets edgeTicks.
type niceTicks struct{}

func (niceTicks) Ticks(min, max float64) []plot.Tick {
	if !finite(min) || !finite(max) || !(max > min) {
		return edgeTicks(min, max, fmtShortest)
	}
	raw := max/8 - min/8 // (max−min)/8 without overflow at ±MaxFloat64
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
	// The ticks are i·minor for the integers i in [i0, i1]; beyond 2^52
	// consecutive integers are no longer distinct float64s.
	i0 := math.Ceil(min / minor)
	i1 := math.Floor(max/minor + 1e-9)
	if !(minor > 0) || !finite(step) || !(i1 >= i0) || math.Abs(i0) > 1<<52 || math.Abs(i1) > 1<<52 || i1-i0 > maxTicks {
		return edgeTicks(min, max, fmtShortest)
	}
	format := tickFormat(math.Max(math.Abs(min), math.Abs(max)), step)
	perStep := math.Round(step / minor) // 4 or 5 minor ticks per labelled one
	var ticks []plot.Tick
	for k := 0; k <= int(i1-i0); k++ {
		i := i0 + float64(k) // an exact integer (|i| ≤ 2^52)
		v := i * minor
		if i == 0 {
			v = 0
		}
		t := plot.Tick{Value: v}
		// Whether i·minor is a multiple of step, in integers: far from
		// 0, v itself carries rounding errors larger than any tolerance.
		if math.Mod(i, perStep) == 0 {
			t.Label = format(v)
		}
		ticks = append(ticks, t)
	}
	return ticks
}

func max0(n int) int { return max(n, 0) }

func finite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }

// tickFormat returns the label format for ticks step apart on an axis
// whose values reach maxAbs: a fixed number of decimals when that stays
// short, else exponent notation with as many digits as the step needs.
func tickFormat(maxAbs, step float64) func(float64) string {
	dec := -int(math.Floor(math.Log10(step) + 1e-9))
	if dec <= 9 && maxAbs < 1e15 {
		return func(v float64) string { return strconv.FormatFloat(v, 'f', max0(dec), 64) }
	}
	digits := 1
	if maxAbs > 0 {
		digits = min(max(int(math.Floor(math.Log10(maxAbs)))+dec+1, 1), 17)
	}
	return func(v float64) string { return strconv.FormatFloat(v, 'g', digits, 64) }
}

// fmtShortest is the shortest decimal that reads back as v: distinct values
// get distinct labels, however close.
func fmtShortest(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }

// edgeTicks marks only the ends of a range that cannot carry regular ticks
// (values a few ulps apart, a single value, or not finite), labelled with
// format; non-finite ends get no tick.
func edgeTicks(min, max float64, format func(float64) string) []plot.Tick {
	var ticks []plot.Tick
	for i, v := range []float64{min, max} {
		if finite(v) && (i == 0 || v != min) {
			ticks = append(ticks, plot.Tick{Value: v, Label: format(v)})
		}
	}
	return ticks
}

// timeLogTicks marks a logarithmic axis whose values are seconds at
// 1, 2 and 5 × 10^k, labelled in the time unit that suits each tick
// (500 ns, 1 µs, 2 µs, …); with many decades only the powers of ten carry
// labels, with less than a decade every integer mantissa does. Over more
// than 20 decades only powers of ten are marked, at most maxTicks of them.
type timeLogTicks struct{}

func (timeLogTicks) Ticks(min, max float64) []plot.Tick { return logTicks(min, max, fmtTime) }

// ratioLogTicks marks a logarithmic axis of ratios as timeLogTicks marks
// one of seconds, the labels plain numbers (0.5, 1, 2).
type ratioLogTicks struct{}

func (ratioLogTicks) Ticks(min, max float64) []plot.Tick {
	return logTicks(min, max, func(v float64) string { return strconv.FormatFloat(v, 'g', 3, 64) })
}

// logTicks are the ticks of timeLogTicks, labelled with format.
func logTicks(min, max float64, format func(float64) string) []plot.Tick {
	if !(min > 0) || !finite(max) || !(max > min) {
		return edgeTicks(min, max, format)
	}
	decades := math.Log10(max / min)
	labelled := func(m int) bool { return m == 1 || m == 2 || m == 5 }
	mantissas := 9
	switch {
	case decades > 20:
		mantissas = 1
		fallthrough
	case decades > 4:
		labelled = func(m int) bool { return m == 1 }
	case decades < 0.7:
		labelled = func(int) bool { return true }
	}
	e0, e1 := math.Floor(math.Log10(min)), math.Ceil(math.Log10(max))
	stride := math.Max(1, math.Ceil((e1-e0+1)/maxTicks))
	var ticks []plot.Tick
	for e := e0; e <= e1; e += stride {
		for m := 1; m <= mantissas; m++ {
			v := float64(m) * math.Pow(10, e)
			// Inside [min, max] up to the rounding of m·10^e; as ratios,
			// since max·(1+ε) overflows near MaxFloat64.
			if !finite(v) || v/min < 1-1e-15 || v/max > 1+1e-15 {
				continue
			}
			t := plot.Tick{Value: v}
			if labelled(m) {
				t.Label = format(v)
			}
			ticks = append(ticks, t)
		}
	}
	if len(ticks) == 0 {
		return edgeTicks(min, max, format)
	}
	return ticks
}

// fmtTime renders seconds in the unit analysis.TimeUnit picks, with up to three
// significant digits and no trailing zeros: 500 ns, 1 µs, 2.5 ms; beyond
// 10^6 of a unit in exponent notation (1e+300 s).
func fmtTime(v float64) string {
	unit, sc := analysis.TimeUnit(v)
	x := v * sc
	s := strconv.FormatFloat(x, 'g', 3, 64)
	if strings.ContainsAny(s, "e") && math.Abs(x) < 1e6 && math.Abs(x) >= 1 {
		s = strconv.FormatFloat(x, 'f', 0, 64)
	}
	return s + " " + unit
}

// LogMode says whether the run-time axis of Distributions is logarithmic:
// LogAuto, LogOn or LogOff.
type LogMode string

// The values of LogMode.
const (
	// LogAuto: logarithmic when the largest median exceeds the smallest
	// by more than 10× (and every run time is > 0).
	LogAuto LogMode = "auto"
	LogOn   LogMode = "on"
	LogOff  LogMode = "off"
)

// ParseLogMode parses "auto", "on" or "off".
func ParseLogMode(s string) (LogMode, error) {
	switch LogMode(s) {
	case LogAuto, LogOn, LogOff:
		return LogMode(s), nil
	}
	return "", fmt.Errorf("log scale must be auto, on or off, not %q", s)
}

// logAutoRatio is the spread of the plotted medians (max/min) above which
// --log auto switches the run-time axis to a log scale.
const logAutoRatio = 10

// useLog decides whether a run-time axis is logarithmic: always with on,
// never with off, and with auto when max/min of the medians exceeds
// logAutoRatio. A log axis needs every plotted value > 0 (minPlotted); auto
// then falls back to linear, on fails.
func useLog(mode LogMode, medians []float64, minPlotted float64) (bool, error) {
	switch mode {
	case "off":
		return false, nil
	case "on":
		if !(minPlotted > 0) {
			return false, fmt.Errorf("%w: a run time ≤ 0 cannot be shown on a log axis", ErrLogAxis)
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
	names, _ := GroupLabels(keys, labelWrap)
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
	data := height - 2*Margin - vg.Length(14*titleLines+6) - 40
	return max(data/vg.Length(max(rows, 1)), 6)
}

// crowded is the warning for an explicit height that leaves less than a
// line of label text per group row ("" when there is room).
func crowded(height vg.Length, rows, titleLines int) string {
	if row := rowSpace(height, rows, titleLines); row < 13 {
		return fmt.Sprintf("%.1f in leaves %.0f pt per group; labels may overlap (leave the height automatic to fit %d groups)",
			float64(height/vg.Inch), float64(row), rows)
	}
	return ""
}
