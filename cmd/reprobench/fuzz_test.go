package main

// Fuzz targets for the plot layout (ranges on adversarial
// data; the tick markers' targets are in package plots) and the duration list of clockcheck --after. "make fuzz"
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

	"github.com/reprobench/reprobench/internal/mpirun"
)

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
// no hang, no unbounded memory.
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
			case <-time.After(mpirun.Deadline(10 * time.Second)):
				t.Fatalf("--kind %s on %d values × %d: no result after %v", kind, n, rp, mpirun.Deadline(10*time.Second))
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
