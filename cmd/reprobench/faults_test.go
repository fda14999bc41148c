package main

// Tests of issue #21: bad input and adversarial data end in a result or a
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
}

// crashed reports a panic, a Go runtime fatal error or the heap limit.
func (r boundedResult) crashed() bool {
	return r.code == 97 || strings.Contains(r.stderr, "panic:") || strings.Contains(r.stderr, "fatal error:")
}

func (r boundedResult) String() string {
	return fmt.Sprintf("exit %d (timed out: %v)\nstdout: %s\nstderr: %s", r.code, r.timedOut, r.stdout, r.stderr)
}

// runBounded runs "reprobench args..." in a child process with a time limit
// and faultHeapLimit.
func runBounded(t *testing.T, limit time.Duration, args ...string) boundedResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	defer cancel()
	cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^TestFaultChild$")
	cmd.Env = append(os.Environ(), "RB_FAULT_ARGS="+strings.Join(args, "\x1f"))
	var so, se bytes.Buffer
	cmd.Stdout, cmd.Stderr = &so, &se
	err := cmd.Run()
	r := boundedResult{stdout: so.String(), stderr: se.String(), timedOut: ctx.Err() != nil}
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
// exhaust memory (issue #21 rows 2 and 3), and their neighbours.
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

// TestPlotAdversarialData is issue #21 rows 2 and 3: every one-group plot
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
