package main

// Bad input and adversarial data end in a result or a
// clear error, never in a hang, a crash or silent garbage. Commands that used
// to hang or exhaust memory run in a child process (this test binary) under
// a time limit and a heap limit, so that a regression fails the test instead
// of taking the machine down.

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/metrics"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/reprobench/reprobench/internal/mpirun"
)

// faultHeapLimit is the live heap above which the child gives up (the
// plots of these tests need a few MB).
const faultHeapLimit = 1 << 30

// TestFaultChild is not a test: runBounded runs this binary with
// RB_FAULT_ARGS set, and this function then runs reprobench with those
// arguments, exiting 97 if the heap passes faultHeapLimit.
func TestFaultChild(t *testing.T) {
	argv := os.Getenv("RB_FAULT_ARGS")
	if argv == "" {
		t.Skip("helper process for runBounded")
	}
	go func() {
		s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
		for {
			metrics.Read(s)
			if s[0].Value.Uint64() > faultHeapLimit {
				fmt.Fprintln(os.Stderr, "fault child: heap above", faultHeapLimit, "bytes")
				os.Exit(97)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}()
	var so, se bytes.Buffer
	err := run(&so, &se, strings.Split(argv, "\x1f"))
	os.Stdout.Write(so.Bytes())
	os.Stderr.Write(se.Bytes())
	switch {
	case err == nil:
		os.Exit(0)
	case errors.Is(err, errUsage):
		fmt.Fprintln(os.Stderr, "reprobench:", err)
		os.Exit(2)
	}
	fmt.Fprintln(os.Stderr, "reprobench:", err)
	os.Exit(1)
}

// boundedResult is how a child run of reprobench ended.
type boundedResult struct {
	code           int // exit status; -1 when killed at the time limit
	stdout, stderr string
	timedOut       bool
	cpu            time.Duration // the child's CPU time, user and system
}

// crashed reports a panic, a Go runtime fatal error or the heap limit.
func (r boundedResult) crashed() bool {
	return r.code == 97 || strings.Contains(r.stderr, "panic:") || strings.Contains(r.stderr, "fatal error:")
}

func (r boundedResult) String() string {
	return fmt.Sprintf("exit %d (timed out: %v)\nstdout: %s\nstderr: %s", r.code, r.timedOut, r.stdout, r.stderr)
}

// runBounded runs "reprobench args..." in a child process with a time limit
// (a deadline against a hang, stretched by the machine's load:
// mpirun.Deadline) and faultHeapLimit.
func runBounded(t *testing.T, limit time.Duration, args ...string) boundedResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), mpirun.Deadline(limit))
	defer cancel()
	cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^TestFaultChild$")
	cmd.Env = append(os.Environ(), "RB_FAULT_ARGS="+strings.Join(args, "\x1f"))
	var so, se bytes.Buffer
	cmd.Stdout, cmd.Stderr = &so, &se
	err := cmd.Run()
	r := boundedResult{stdout: so.String(), stderr: se.String(), timedOut: ctx.Err() != nil}
	if ps := cmd.ProcessState; ps != nil {
		r.cpu = ps.UserTime() + ps.SystemTime()
	}
	var ee *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &ee):
		r.code = ee.ExitCode()
	default:
		t.Fatalf("starting the child: %v", err)
	}
	return r
}

// writeRaw writes a raw observation file with one group (MPI_Bcast, 8 B,
// np 2) whose runtimes are vals, spread over mpiruns round-robin.
func writeRaw(t *testing.T, dir, name string, mpiruns int, vals []float64) string {
	t.Helper()
	var b strings.Builder
	b.WriteString("run_id,mpirun,exp,call,msize_bytes,count,datatype,np,rep,runtime_s,errorcode\n")
	for i, v := range vals {
		fmt.Fprintf(&b, "r,%d,0,MPI_Bcast,8,8,MPI_BYTE,2,%d,%s,0\n", i%mpiruns, i/mpiruns, strconv.FormatFloat(v, 'g', -1, 64))
	}
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// adversarialSets are data sets on which plot layouts used to hang, panic or
// exhaust memory, and their neighbours.
func adversarialSets(t *testing.T, dir string) map[string]string {
	rep := func(n int, f func(i int) float64) []float64 {
		v := make([]float64, n)
		for i := range v {
			v[i] = f(i)
		}
		return v
	}
	ulp := math.Nextafter(1e-6, 1)
	return map[string]string{
		"constant":   writeRaw(t, dir, "constant.csv", 3, rep(90, func(int) float64 { return 1e-6 })),
		"1ulp":       writeRaw(t, dir, "ulp.csv", 3, rep(90, func(i int) float64 { return []float64{1e-6, ulp}[i%2] })),
		"zero":       writeRaw(t, dir, "zero.csv", 3, rep(90, func(int) float64 { return 0 })),
		"one row":    writeRaw(t, dir, "one.csv", 1, []float64{1e-6}),
		"two rows":   writeRaw(t, dir, "two.csv", 2, []float64{1e-6, 2e-6}),
		"huge":       writeRaw(t, dir, "huge.csv", 3, rep(90, func(i int) float64 { return 1e300 * float64(1+i%3) })),
		"max":        writeRaw(t, dir, "max.csv", 3, rep(90, func(i int) float64 { return []float64{0, math.MaxFloat64}[i%2] })),
		"subnormal":  writeRaw(t, dir, "subnormal.csv", 3, rep(90, func(i int) float64 { return 5e-324 * float64(i%3) })),
		"1e15 range": writeRaw(t, dir, "wide.csv", 3, rep(90, func(i int) float64 { return math.Pow(10, float64(i%16-9)) })),
	}
}

// TestPlotAdversarialData checks adversarial data: every one-group plot
// kind on constant data, values 1 ulp apart, zeros, one or two rows and
// extreme magnitudes ends within seconds with a figure or a clear error,
// never a hang, a panic or unbounded memory.
func TestPlotAdversarialData(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a child process per plot")
	}
	dir := t.TempDir()
	for name, file := range adversarialSets(t, dir) {
		for _, kind := range []string{"box", "violin", "hist", "qq", "acf", "drift"} {
			out := filepath.Join(dir, strings.ReplaceAll(name, " ", "_")+"-"+kind+".svg")
			r := runBounded(t, 30*time.Second, "plot", "--kind", kind, "-o", out, file)
			switch {
			case r.timedOut || r.crashed():
				t.Errorf("%s, --kind %s: %v", name, kind, r)
			case r.code == 0:
				if st, err := os.Stat(out); err != nil || st.Size() < 1000 {
					t.Errorf("%s, --kind %s: exit 0 but no figure (%v)", name, kind, err)
				}
			case !strings.Contains(r.stderr, "reprobench: "):
				t.Errorf("%s, --kind %s: failed without a message: %v", name, kind, r)
			}
		}
	}
}

// TestPlotSizeBounded checks the size bound: --width 1e6 died with "fatal
// error: runtime: out of memory"; sizes are now checked before any canvas
// exists.
func TestPlotSizeBounded(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a child process per plot")
	}
	dir := t.TempDir()
	for _, c := range [][]string{
		{"--width", "1e6", "-o", filepath.Join(dir, "x.png")},
		{"--width", "1e6", "-o", filepath.Join(dir, "x.svg")},
		{"--width", "+Inf", "-o", filepath.Join(dir, "x.png")},
		{"--width", "NaN", "-o", filepath.Join(dir, "x.png")},
		{"--height", "NaN", "-o", filepath.Join(dir, "x.png")},
		{"--height", "1e6", "-o", filepath.Join(dir, "x.pdf")},
		{"--width", "0.01", "-o", filepath.Join(dir, "x.png")},
		{"--width", "100", "--height", "100", "-o", filepath.Join(dir, "x.png")},
	} {
		r := runBounded(t, 30*time.Second, append(append([]string{"plot"}, c...), anA)...)
		if r.timedOut || r.crashed() || r.code != 2 || !strings.Contains(r.stderr, "usage error: --") && !strings.Contains(r.stderr, "Mpixel") {
			t.Errorf("%v: want a usage error about the size; got %v", c, r)
		}
	}
	var so, se bytes.Buffer
	if err := run(&so, &se, []string{"plot", "--width", "100", "--height", "20", "-o", filepath.Join(dir, "wide.svg"), anA}); err != nil {
		t.Errorf("a 100 × 20 in SVG is within bounds: %v", err)
	}
}

// TestDesignBoundedBeforeDrawing checks the design bound: "design
// --sizes logu:8..1G:1000000" spent > 10 s and 1.3 GB before its row cap
// applied; the cap is now checked before the sizes are drawn.
func TestDesignBoundedBeforeDrawing(t *testing.T) {
	if testing.Short() {
		t.Skip("starts child processes")
	}
	out := filepath.Join(t.TempDir(), "d.csv")
	for _, c := range [][]string{
		{"--sizes", "logu:8..1G:1000000"},
		{"--sizes", "logu:8..1G:200000", "--mpiruns", "10"},
		{"--sizes", "8,16", "--mpiruns", "9223372036854775807", "--replicates", "9223372036854775807"},
		{"--mpiruns", "100000000"},
	} {
		r := runBounded(t, 20*time.Second, append([]string{"design", "--seed", "1", "--calls", "MPI_Bcast", "-o", out}, c...)...)
		if r.timedOut || r.crashed() || r.code != 2 || !strings.Contains(r.stderr, "rows") {
			t.Errorf("%v: want a usage error about the rows; got %v", c, r)
		}
		// CPU time, not wall-clock time: a busy machine stretches the
		// latter, while drawing the rows costs seconds of the former.
		if r.cpu > 5*time.Second {
			t.Errorf("%v: refused after %v of CPU; want before any work", c, r.cpu)
		}
	}
	if _, err := os.Stat(out); err == nil {
		t.Errorf("a refused design was written")
	}
}

// dupData is a small raw file with invalid rows in one group.
func dupData(t *testing.T, dir, name string) string {
	var b strings.Builder
	b.WriteString("run_id,mpirun,exp,call,msize_bytes,count,datatype,np,rep,runtime_s,errorcode\n")
	for mp := range 4 {
		for rep := range 10 {
			ec, rt := 0, strconv.FormatFloat(1e-6*(1+float64((mp*7+rep*3)%10)/100), 'g', -1, 64)
			switch {
			case rep == 9:
				ec = 2 // window expired
			case rep == 8 && mp == 0:
				rt = "NaN"
			}
			fmt.Fprintf(&b, "r,%d,0,MPI_Bcast,8,8,MPI_BYTE,2,%d,%s,%d\n", mp, rep, rt, ec)
		}
	}
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestDuplicateObservationsRefused checks duplicates at the command line:
// "analyze G.csv G.csv" doubled n; every reader now refuses, naming both
// places, unless --keep-duplicates.
func TestDuplicateObservationsRefused(t *testing.T) {
	dir := t.TempDir()
	g := dupData(t, dir, "G.csv")
	out := filepath.Join(dir, "p.svg")
	for _, args := range [][]string{
		{"analyze", g, g},
		{"compare", g, g, "--", g},
		{"compare", "--by", "x", g, g},
		{"plot", "-o", out, g, g},
	} {
		var so, se bytes.Buffer
		err := run(&so, &se, args)
		if err == nil || !strings.Contains(err.Error(), g+":2: observation run_id=r mpirun=0 exp=0 rep=0") || !strings.Contains(err.Error(), "already read at "+g+":2") {
			t.Errorf("%v: err = %v, want a duplicate error naming %s:2 twice", args, err, g)
		}
	}
	var so, se bytes.Buffer
	if err := run(&so, &se, []string{"analyze", "--keep-duplicates", g, g}); err != nil {
		t.Fatalf("--keep-duplicates: %v", err)
	}
	if !strings.Contains(se.String(), "40 observations were read more than once") {
		t.Errorf("--keep-duplicates: stderr %q does not report the 40 duplicates", se.String())
	}
}

// TestDroppedRowsReported checks dropped rows: compare and plot left out
// invalid and NaN rows without a word (analyze shows them in columns).
func TestDroppedRowsReported(t *testing.T) {
	dir := t.TempDir()
	g := dupData(t, dir, "G.csv")
	h := dupData(t, dir, "H.csv")
	for _, c := range []struct {
		args []string
		want []string
	}{
		{[]string{"compare", g, "--", h}, []string{"compare: A: MPI_Bcast/msize=8/np=2/MPI_BYTE: left out 4 invalid (errorcode ≠ 0) and 1 bad (runtime NaN, ±Inf or < 0) of 40 observations", "compare: B: "}},
		{[]string{"plot", "--kind", "box", "-o", filepath.Join(dir, "b.svg"), g}, []string{"plot: MPI_Bcast/msize=8/np=2/MPI_BYTE: left out 4 invalid (errorcode ≠ 0) and 1 bad"}},
		{[]string{"plot", "--kind", "hist", "-o", filepath.Join(dir, "h.svg"), g}, []string{"plot: MPI_Bcast/msize=8/np=2/MPI_BYTE: left out 4 invalid"}},
		{[]string{"plot", "--kind", "compare", "-o", filepath.Join(dir, "c.svg"), g, "--", h}, []string{"plot: A: MPI_Bcast", "plot: B: MPI_Bcast"}},
	} {
		var so, se bytes.Buffer
		if err := run(&so, &se, c.args); err != nil {
			t.Errorf("%v: %v", c.args, err)
			continue
		}
		for _, w := range c.want {
			if !strings.Contains(se.String(), w) {
				t.Errorf("%v: stderr %q does not say %q", c.args, se.String(), w)
			}
		}
	}
}

// TestTruncatedFileRefused checks truncation at the command line:
// "head -c -3 G.csv > t.csv; analyze t.csv" made a fake group.
func TestTruncatedFileRefused(t *testing.T) {
	dir := t.TempDir()
	full, err := os.ReadFile(anA) // its last label is libB
	if err != nil {
		t.Fatal(err)
	}
	cut := filepath.Join(dir, "t.csv")
	if err := os.WriteFile(cut, full[:len(full)-3], 0o644); err != nil {
		t.Fatal(err)
	}
	lines := bytes.Count(full, []byte("\n"))
	for _, args := range [][]string{{"analyze", cut}, {"compare", "--by", "mpi_lib", cut}, {"plot", "-o", filepath.Join(dir, "x.svg"), cut}} {
		var so, se bytes.Buffer
		err := run(&so, &se, args)
		if err == nil || !strings.Contains(err.Error(), fmt.Sprintf("%s:%d: last line has no line end", cut, lines)) {
			t.Errorf("%v: err = %v, want the truncated line %d named", args, err, lines)
		}
	}
}

// TestFlagsAfterFiles checks flag order: "analyze G.csv --format csv"
// failed with "open --format: no such file".
func TestFlagsAfterFiles(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		args []string
		want string // in stdout
	}{
		{[]string{"analyze", anA, "--format", "csv"}, "call,msize_bytes,np,"},
		{[]string{"analyze", anA, "--format=json", "--tukey", "0"}, `"groups"`},
		{[]string{"compare", anA, "--", anB, "--format", "csv"}, "call,msize_bytes,np,datatype,labels,a,b,"},
		{[]string{"compare", anA, "--alpha", "0.1", "--", anB, "--format", "json"}, `"alpha": 0.1`},
		{[]string{"compare", anA, "--by", "mpi_lib", "--format", "csv"}, "libA,libB"},
	} {
		var so, se bytes.Buffer
		if err := run(&so, &se, c.args); err != nil || !strings.Contains(so.String(), c.want) {
			t.Errorf("%v: err %v, stdout %.200q; want %q", c.args, err, so.String(), c.want)
		}
	}
	var so, se bytes.Buffer
	out := filepath.Join(dir, "x.svg")
	if err := run(&so, &se, []string{"plot", anA, "-o", out, "--kind", "qq"}); err != nil {
		t.Errorf("plot FILE -o OUT --kind qq: %v", err)
	} else if _, err := os.Stat(out); err != nil {
		t.Errorf("plot with flags after the file wrote nothing: %v", err)
	}
	err := run(&so, &se, []string{"analyze", anA, "--nosuch"})
	if !errors.Is(err, errUsage) || !strings.Contains(err.Error(), "flag provided but not defined: -nosuch") {
		t.Errorf("unknown flag after a file: err = %v, want a usage error naming it", err)
	}
}
