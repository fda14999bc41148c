package main

// Fuzz targets of issue #21 for the plot layout (ticks and ranges on
// adversarial data) and the duration list of clockcheck --after. "make fuzz"
// runs each for FUZZTIME; "go test" runs the seeds below and the corpus in
// testdata/fuzz.

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
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

// fuzzPlotKinds are the plot kinds FuzzPlotLayout draws.
var fuzzPlotKinds = []string{"box", "violin", "hist", "qq", "acf", "drift"}

// plotSeed encodes values for FuzzPlotLayout.
func plotSeed(vals ...float64) []byte {
	b := make([]byte, 8*len(vals))
	for i, v := range vals {
		binary.LittleEndian.PutUint64(b[8*i:], math.Float64bits(v))
	}
	return b
}

// FuzzPlotLayout draws every one-group plot kind of run times decoded from
// the input (8 bytes per float64, up to 200, so NaN, ±Inf, subnormals,
// values 1 ulp apart and MaxFloat64 all occur), spread over mpiruns
// round-robin, optionally repeated so that a group has many equal values.
// The command must end within seconds with a figure or an error: no panic,
// no hang, no unbounded memory (issue #21 rows 2 and 3).
func FuzzPlotLayout(f *testing.F) {
	u := math.Nextafter(1e-6, 1)
	for _, s := range []struct {
		vals          []float64
		mpiruns, reps uint8
	}{
		{[]float64{1e-6}, 1, 1},
		{[]float64{1e-6}, 3, 30},
		{[]float64{1e-6, u}, 3, 15},
		{[]float64{0}, 3, 10},
		{[]float64{1e300, 2e300, 3e300}, 3, 5},
		{[]float64{0, math.MaxFloat64}, 2, 5},
		{[]float64{5e-324, 1e-323, 0}, 3, 5},
		{[]float64{math.NaN(), math.Inf(1), 1e-6, -1}, 2, 3},
		{[]float64{1e-9, 1e-3, 1, 1e6}, 2, 4},
	} {
		f.Add(plotSeed(s.vals...), s.mpiruns, s.reps)
	}
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, data []byte, mpiruns, reps uint8) {
		n := min(len(data)/8, 200)
		if n == 0 {
			return
		}
		mp, rp := int(mpiruns%8)+1, int(reps%40)+1
		var b strings.Builder
		b.WriteString("run_id,mpirun,exp,call,msize_bytes,count,datatype,np,rep,runtime_s,errorcode\n")
		row := 0
		for r := 0; r < rp; r++ {
			for i := range n {
				v := math.Float64frombits(binary.LittleEndian.Uint64(data[8*i:]))
				fmt.Fprintf(&b, "f,%d,0,MPI_Bcast,8,8,MPI_BYTE,2,%d,%s,0\n", row%mp, row/mp, strconv.FormatFloat(v, 'g', -1, 64))
				row++
			}
		}
		in := filepath.Join(dir, "in.csv")
		if err := os.WriteFile(in, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		for _, kind := range fuzzPlotKinds {
			done := make(chan error, 1)
			var so, se bytes.Buffer
			go func() {
				done <- run(&so, &se, []string{"plot", "--kind", kind, "-o", filepath.Join(dir, "out.svg"), in})
			}()
			select {
			case err := <-done:
				if err != nil && (strings.TrimSpace(err.Error()) == "" || strings.Contains(err.Error(), "NaN data point")) {
					t.Fatalf("--kind %s: unhelpful error %q", kind, err)
				}
			case <-time.After(10 * time.Second):
				t.Fatalf("--kind %s on %d values × %d: no result after 10 s", kind, n, rp)
			}
		}
	})
}

// FuzzParseAfter checks clockcheck --after: no panic, and every accepted
// list holds non-negative ascending durations — no overflow turns a huge
// number of seconds into a negative or wrapped duration.
func FuzzParseAfter(f *testing.F) {
	for _, s := range []string{"0,1,5,10s", "1ms,2ms", "1e300", "9.3e9", "NaN", "Inf", "-0", "1h,0", "2562047h", "9223372036.854775807", ",,", "0x1p4"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		ds, err := parseAfter(s)
		if err != nil {
			if strings.Contains(err.Error(), "negative") && !strings.Contains(s, "-") {
				t.Fatalf("parseAfter(%q): %v, but no value is negative", s, err)
			}
			return
		}
		if len(ds) == 0 {
			t.Fatalf("parseAfter(%q): no delays and no error", s)
		}
		for i, d := range ds {
			if d < 0 || i > 0 && d < ds[i-1] {
				t.Fatalf("parseAfter(%q) = %v", s, ds)
			}
		}
		for _, f := range strings.Split(s, ",") {
			if v, err := strconv.ParseFloat(strings.TrimSpace(f), 64); err == nil && (v > float64(math.MaxInt64)/1e9 || math.IsNaN(v)) {
				t.Fatalf("parseAfter(%q) accepted %q seconds, beyond a time.Duration", s, f)
			}
		}
	})
}
