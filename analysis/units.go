package analysis

import (
	"math"
	"strconv"
)

// TimeUnit picks the unit in which to print times near v seconds, as
// benchstat does: ns below 1 µs, µs below 1 ms, ms below 1 s, else s. It
// returns the unit's name and the factor that converts seconds to it
// (NaN gives ns).
func TimeUnit(v float64) (unit string, scale float64) {
	a := math.Abs(v)
	switch {
	case math.IsNaN(v) || a < 1e-6:
		return "ns", 1e9
	case a < 1e-3:
		return "µs", 1e6
	case a < 1:
		return "ms", 1e3
	}
	return "s", 1
}

// FormatTime formats v seconds in the unit TimeUnit(v) picks, with at
// least 3 significant digits ("1.50µs"; "-" for NaN).
func FormatTime(v float64) string {
	unit, sc := TimeUnit(v)
	return FormatTimeScaled(v, sc, unit)
}

// FormatTimeScaled formats v seconds as v·scale followed by unit, with at
// least 3 significant digits, so that the rows of a table can share the
// unit of a representative value; "-" for NaN.
func FormatTimeScaled(v, scale float64, unit string) string {
	if math.IsNaN(v) {
		return "-"
	}
	x := v * scale
	dec := 0
	switch a := math.Abs(x); {
	case a == 0:
		dec = 0
	case a < 1:
		dec = 3
	case a < 10:
		dec = 2
	case a < 100:
		dec = 1
	}
	return strconv.FormatFloat(x, 'f', dec, 64) + unit
}

// FormatTimeSigned formats a difference of times as FormatTimeScaled
// does, with a "+" before a positive one ("+1.20µs", "-300ns").
func FormatTimeSigned(v, scale float64, unit string) string {
	s := FormatTimeScaled(v, scale, unit)
	if v > 0 {
		s = "+" + s
	}
	return s
}

// FormatTimeScaledPair formats the bounds of an interval as
// FormatTimeScaled does, "lo, hi", adding decimals (up to 6) until bounds
// that differ print differently.
func FormatTimeScaledPair(lo, hi, scale float64, unit string) string {
	a, b := FormatTimeScaled(lo, scale, unit), FormatTimeScaled(hi, scale, unit)
	for dec := 1; a == b && lo != hi && dec <= 6; dec++ {
		a = strconv.FormatFloat(lo*scale, 'f', dec, 64) + unit
		b = strconv.FormatFloat(hi*scale, 'f', dec, 64) + unit
	}
	return a + ", " + b
}

// FormatRatio formats a ratio with three significant digits ("0.891",
// "12.3"); "-" for NaN or infinity.
func FormatRatio(r float64) string {
	switch {
	case math.IsNaN(r) || math.IsInf(r, 0):
		return "-"
	case r == 0:
		return "0"
	}
	return strconv.FormatFloat(r, 'f', max(0, 2-int(math.Floor(math.Log10(math.Abs(r))))), 64)
}
