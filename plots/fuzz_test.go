package plots

// Fuzz targets for the tick markers of the plot layout: no
// hang, no unbounded tick list, no tick outside the range on adversarial
// ranges. "make fuzz" runs each for FUZZTIME; "go test" runs the seeds below
// and the corpus in testdata/fuzz.

import (
	"math"
	"testing"
	"unicode/utf8"

	"gonum.org/v1/plot"
)

// checkTicks asserts what every tick marker must give for [min, max]:
// at most maxTicks ticks, each finite and inside the range (up to rounding),
// labels short and valid, and a labelled tick when the range is finite.
func checkTicks(t *testing.T, name string, ticks []plot.Tick, min, max float64) {
	t.Helper()
	if len(ticks) > maxTicks+10 {
		t.Fatalf("%s(%g, %g): %d ticks", name, min, max, len(ticks))
	}
	labelled := 0
	span := max - min
	if math.IsInf(span, 0) {
		span = math.MaxFloat64
	}
	slack := 1e-6*span + 1e-14*math.Max(math.Abs(min), math.Abs(max))
	for _, tk := range ticks {
		if !finite(tk.Value) {
			t.Fatalf("%s(%g, %g): tick at %g", name, min, max, tk.Value)
		}
		if finite(min) && finite(max) && max >= min && (tk.Value < min-slack || tk.Value > max+slack) {
			t.Fatalf("%s(%g, %g): tick %g outside the range", name, min, max, tk.Value)
		}
		if tk.Label != "" {
			labelled++
			if len(tk.Label) > 40 || !utf8.ValidString(tk.Label) {
				t.Fatalf("%s(%g, %g): label %q", name, min, max, tk.Label)
			}
		}
	}
	if finite(min) && finite(max) && max >= min && labelled == 0 && (name == "niceTicks" || min > 0) {
		t.Fatalf("%s(%g, %g): no labelled tick in %v", name, min, max, ticks)
	}
}

// tickSeeds are ranges on which tick loops hung, overflowed or underflowed.
var tickSeeds = [][2]float64{
	{450, 1250}, {1e-6, math.Nextafter(1e-6, 1)}, {1000, math.Nextafter(1000, 2000)}, {1, 1},
	{0, 5e-324}, {-math.MaxFloat64, math.MaxFloat64}, {0, math.MaxFloat64}, {1e300, 2e300},
	{-1, math.Inf(1)}, {math.NaN(), 1}, {2, 1}, {1e15, 1e15 + 0.5}, {-3e-320, 7e-321}, {1 << 53, 1<<53 + 2},
}

func FuzzNiceTicks(f *testing.F) {
	for _, s := range tickSeeds {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, min, max float64) {
		checkTicks(t, "niceTicks", niceTicks{}.Ticks(min, max), min, max)
	})
}

func FuzzTimeLogTicks(f *testing.F) {
	for _, s := range tickSeeds {
		f.Add(s[0], s[1])
	}
	f.Add(4.2e-7, 2.7e-5)
	f.Add(5e-324, math.MaxFloat64)
	f.Fuzz(func(t *testing.T, min, max float64) {
		checkTicks(t, "timeLogTicks", timeLogTicks{}.Ticks(min, max), min, max)
	})
}
