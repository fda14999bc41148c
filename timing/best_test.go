package timing

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// TestNewBestClockHandlesEveryError feeds each error NewTSC can return to
// NewBestClock: RDTSCP missing falls back to LFENCE; every other error,
// and LFENCE failing too, to the monotonic clock; each passed-over clock is
// recorded with its error.
func TestNewBestClockHandlesEveryError(t *testing.T) {
	fenced := &TSC{rate: NewFreq(2e9), fenced: true}
	calib := fmt.Errorf("timing: calibration: reference did not advance")
	for _, c := range []struct {
		name    string
		errs    []error // what NewTSC returns for RDTSCP, then LFENCE
		want    string  // the chosen clock's Name
		skipped int
	}{
		{"no TSC", []error{ErrNoTSC}, "monotonic", 1},
		{"not invariant", []error{ErrNotInvariant}, "monotonic", 1},
		{"absurd frequency", []error{ErrAbsurdFrequency}, "monotonic", 1},
		{"calibration failed", []error{calib}, "monotonic", 1},
		{"RDTSCP hidden", []error{ErrNoRDTSCP, nil}, "tsc_lfence", 1},
		{"RDTSCP hidden, LFENCE calibration failed", []error{ErrNoRDTSCP, calib}, "monotonic", 2},
		{"usable", []error{nil}, "tsc", 0},
	} {
		calls := 0
		ch := bestClock(TSCConfig{}, func(cfg TSCConfig) (*TSC, error) {
			err := c.errs[calls]
			calls++
			if err != nil {
				return nil, fmt.Errorf("%w: detail", err)
			}
			if cfg.Fenced {
				return fenced, nil
			}
			return &TSC{rate: NewFreq(2e9)}, nil
		})
		if calls != len(c.errs) || ch.Clock.Name() != c.want || len(ch.Skipped) != c.skipped {
			t.Errorf("%s: %d NewTSC calls, chose %s, skipped %q; want %d calls, %s, %d skipped", c.name, calls, ch.Clock.Name(), ch.Skipped, len(c.errs), c.want, c.skipped)
		}
		for _, s := range ch.Skipped {
			if !strings.Contains(s, "detail") {
				t.Errorf("%s: skipped entry %q does not carry the error", c.name, s)
			}
		}
	}
}

// ticker is a Clock whose every read costs one tick (1 ns) and whose
// time the timed function advances.
type ticker struct {
	rate Freq
	t    Ticks
}

func (k *ticker) Freq() Freq     { return k.rate }
func (k *ticker) Now() Ticks     { k.t++; return k.t }
func (k *ticker) Name() string   { return "ticker" }
func (k *ticker) Source() Source { return Source{Hz: 1e9} }

func TestTimeFunc(t *testing.T) {
	clk := &ticker{rate: NewFreq(1e9)}
	calls := 0
	work := Ticks(1000)
	f := func() { calls++; clk.t += work }
	s, err := TimeFunc(clk, 3, 50, f)
	if err != nil {
		t.Fatal(err)
	}
	if calls != 53 || len(s.Seconds) != 50 || s.Warmup != 3 {
		t.Fatalf("%d calls, %d samples, warm-up %d", calls, len(s.Seconds), s.Warmup)
	}
	for _, v := range s.Seconds {
		if v != 1001e-9 { // the work and one read
			t.Fatalf("duration %v, want 1001 ns", v)
		}
	}
	if s.Median() != 1001*time.Nanosecond || len(s.Warnings) != 0 || s.Clock.Name != "ticker" || s.Clock.OverheadNs != 1 {
		t.Errorf("median %v, warnings %q, clock %+v", s.Median(), s.Warnings, s.Clock)
	}
	// Calls of 11 ns are too short for a clock whose read costs 1 ns.
	work = 10
	if s, err = TimeFunc(clk, 0, 5, f); err != nil || len(s.Warnings) != 1 || !strings.Contains(s.Warnings[0], "read overhead") {
		t.Errorf("short calls: warnings %q, err %v", s.Warnings, err)
	}
	for _, bad := range []struct {
		n, warmup int
		f         func()
	}{{0, 0, f}, {1, -1, f}, {1, 0, nil}} {
		if _, err := TimeFunc(clk, bad.warmup, bad.n, bad.f); err == nil {
			t.Errorf("TimeFunc(n=%d, warmup=%d, f nil %v) accepted", bad.n, bad.warmup, bad.f == nil)
		}
	}
}

// virtual is a simulated clock: a Sleeper.
type virtual struct {
	ticker
	slept time.Duration
}

func (v *virtual) Sleep(d time.Duration) { v.slept += d; v.t += Ticks(d) }

type wrapper struct{ Clock }

func (w wrapper) Base() Clock { return w.Clock }

// TestSleepFunc: a simulated clock's Sleep is found through Skewed and
// Base() wrappers, never for a real clock, and Sleep on it takes no real
// time.
func TestSleepFunc(t *testing.T) {
	v := &virtual{ticker: ticker{rate: NewFreq(1e9)}}
	for _, c := range []Clock{v, NewSkewed(v, 0, 10), wrapper{NewSkewed(v, 0, 1)}} {
		f := SleepFunc(c)
		if f == nil {
			t.Fatalf("%T: no Sleep found", c)
		}
		before := time.Now()
		Sleep(c, time.Hour)
		if time.Since(before) > time.Minute { // far below the hour, far above a loaded machine's delays
			t.Fatal("a simulated hour took real time")
		}
	}
	if v.slept != 3*time.Hour {
		t.Errorf("slept %v, want 3h", v.slept)
	}
	var nilSkew *Skewed
	for _, c := range []Clock{NewMonotonic(), NewSkewed(NewMonotonic(), 0, 1), wrapper{NewMonotonic()}, nil, nilSkew} {
		if SleepFunc(c) != nil {
			t.Errorf("%T: a real clock has a Sleep", c)
		}
	}
}
