package design

// Sizes a user controls are checked before memory is committed,
// and errors quote what the user wrote.

import (
	"math"
	"strings"
	"syscall"
	"testing"
	"time"
)

// cpuTime is the CPU time (user and system) this process has used: unlike
// the wall-clock time, it does not grow when other processes load the
// machine, so a bound on it catches work done, not a busy machine.
func cpuTime(t *testing.T) time.Duration {
	t.Helper()
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		t.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// TestParseSizesQuotesTheField checks the message: "--msizes 1K..4K" said
// `"1K..4" is not a positive number of bytes`, quoting text the user never
// wrote.
func TestParseSizesQuotesTheField(t *testing.T) {
	for _, c := range []struct{ spec, want, notWant string }{
		{"1K..4K", `message sizes "1K..4K": a range needs its kind: pow2:1K..4K or logu:1K..4K:COUNT`, `"1K..4"`},
		{"8,2M..4M", `"2M..4M": a range needs its kind`, `"2M..4"`},
		{"1.5K", `"1.5K" is not a positive number of bytes`, `"1.5"`},
		{"99999G", `"99999G" is too large`, "99999×"},
		{"pow2:1K..4X", `"4X" is not a positive number of bytes`, ""},
	} {
		_, err := ParseSizes(c.spec, 1)
		if err == nil || !strings.Contains(err.Error(), c.want) || c.notWant != "" && strings.Contains(err.Error(), c.notWant) {
			t.Errorf("ParseSizes(%q): err = %v; want %q, not %q", c.spec, err, c.want, c.notWant)
		}
	}
}

// TestSizesBoundedBeforeDrawing checks the design: a log-uniform
// spec of a million sizes took seconds and 100+ MB to draw before the row
// cap applied. CountSizes counts without drawing and ParseSizes refuses
// more than MaxRows sizes at once.
func TestSizesBoundedBeforeDrawing(t *testing.T) {
	for _, c := range []struct {
		spec string
		n    int
	}{{"8,64,1K", 3}, {"pow2:1..1M", 21}, {"logu:8..1G:1000000", 1000000}, {"logu:8..1M:20:8", 20}} {
		start := cpuTime(t)
		if n, err := CountSizes(c.spec); err != nil || n != c.n {
			t.Errorf("CountSizes(%q) = %d, %v; want %d", c.spec, n, err, c.n)
		}
		if d := cpuTime(t) - start; d > 100*time.Millisecond {
			t.Errorf("CountSizes(%q) took %v of CPU: it must not draw", c.spec, d)
		}
	}
	for _, spec := range []string{"logu:8..1G:1000001", "logu:1..9223372036854775807:5"} {
		start := cpuTime(t)
		if _, err := ParseSizes(spec, 1); err == nil {
			t.Errorf("ParseSizes(%q) accepted", spec)
		}
		if d := cpuTime(t) - start; d > 100*time.Millisecond {
			t.Errorf("ParseSizes(%q) refused only after %v of CPU", spec, d)
		}
	}
	if _, err := CountSizes("1K..4K"); err == nil {
		t.Errorf("CountSizes accepted a bad spec")
	}
}

// TestGenerateRowsBounded checks that Generate refuses plans beyond MaxRows
// before allocating, including plans whose row count overflows an int
// (which used to wrap around and pass the check).
func TestGenerateRowsBounded(t *testing.T) {
	many := make([]int, 4096)
	for i := range many {
		many[i] = i + 1
	}
	for _, p := range []Plan{
		{Mpiruns: math.MaxInt, Replicates: math.MaxInt},
		{Mpiruns: 1 << 32, Replicates: 1 << 32}, // 2^64 wraps to 0 in an int
		{Mpiruns: MaxRows + 1},
		{Mpiruns: 2, Factors: Factors{MsizesBytes: many, Nreps: many}}, // 2·4096² rows
	} {
		start := time.Now()
		if _, err := Generate(p); err == nil || !strings.Contains(err.Error(), "rows") {
			t.Errorf("Generate(%d mpiruns × %d replicates × %d points): err = %v, want a row-count error", p.Mpiruns, p.Replicates, p.Factors.Points(), err)
		}
		if d := time.Since(start); d > time.Second {
			t.Errorf("refused after %v", d)
		}
	}
	if n, ok := (Plan{Mpiruns: 10, Factors: Factors{MsizesBytes: many}}).Rows(); n != 40960 || !ok {
		t.Errorf("Rows() = %d, %v; want 40960, true", n, ok)
	}
	d, err := Generate(Plan{Mpiruns: 1, Factors: Factors{MsizesBytes: many[:100]}, Replicates: MaxRows / 100})
	if err != nil || len(d.Experiments) != MaxRows {
		t.Errorf("a plan of exactly MaxRows rows: %v", err)
	}
}
