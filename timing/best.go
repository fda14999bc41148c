package timing

import (
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/reprobench/reprobench/internal/order"
)

// ClockChoice is what NewBestClock chose, and why it passed over the clocks
// it prefers.
type ClockChoice struct {
	Clock Clock
	// Skipped lists each better clock that could not be used, as "name:
	// error" (the errors of NewTSC, which say what is wrong with the
	// machine).
	Skipped []string
}

// NewBestClock returns the best clock this machine offers for timing on one
// process, and never fails. In order of preference:
//
//  1. the TSC read with RDTSCP (cfg as given, cfg.Fenced ignored): the
//     cheapest read that waits for the work before it;
//  2. the TSC read with LFENCE; RDTSC, when RDTSCP is not advertised
//     (ErrNoRDTSCP; some hypervisors hide it);
//  3. CLOCK_MONOTONIC (NewMonotonic), when the TSC is missing (ErrNoTSC),
//     not invariant (ErrNotInvariant), its frequency absurd
//     (ErrAbsurdFrequency) or its calibration failed.
//
// Unless cfg.Hz is set the TSC's frequency is calibrated, which takes
// cfg.Calibration.Duration (one second by default). Every error of NewTSC is
// handled: the choice records it in Skipped, and the program goes on with
// the next clock.
func NewBestClock(cfg TSCConfig) ClockChoice { return bestClock(cfg, NewTSC) }

// bestClock is NewBestClock with NewTSC injected, for tests.
func bestClock(cfg TSCConfig, newTSC func(TSCConfig) (*TSC, error)) ClockChoice {
	var ch ClockChoice
	for _, fenced := range []bool{false, true} {
		cfg.Fenced = fenced
		name := "tsc"
		if fenced {
			name = "tsc_lfence"
		}
		c, err := newTSC(cfg)
		if err == nil {
			ch.Clock = c
			return ch
		}
		ch.Skipped = append(ch.Skipped, name+": "+err.Error())
		if !errors.Is(err, ErrNoRDTSCP) {
			break // no TSC, not invariant, absurd or uncalibrated: the same for LFENCE
		}
	}
	ch.Clock = NewMonotonic()
	return ch
}

var (
	bestOnce   sync.Once
	bestChoice ClockChoice
)

// bestClockDefault is NewBestClock(TSCConfig{}) made once per process (the first
// call calibrates the TSC for a second) and shared by every later call.
func bestClockDefault() ClockChoice {
	bestOnce.Do(func() { bestChoice = NewBestClock(TSCConfig{}) })
	return bestChoice
}

// Samples are the durations TimeFunc measured.
type Samples struct {
	// Clock is the clock's Measurement: its name, resolution and read
	// overhead.
	Clock Measurement `json:"clock"`
	// Skipped says which better clocks NewBestClock passed over (nil when
	// the caller gave the clock).
	Skipped []string `json:"skipped_clocks,omitempty"`
	Warmup  int      `json:"warmup"` // untimed calls before the first timed one
	// Seconds holds each timed call's duration in call order, seconds.
	// analysis.Summarize, analysis.MedianCI and the tests of package
	// analysis take it as it is.
	Seconds []float64 `json:"seconds"`
	// Warnings say what makes the durations doubtful: calls too short for
	// the clock's overhead or resolution (Measurement.Warnings of the
	// median: time several calls in f), a TSC that is not invariant.
	Warnings []string `json:"warnings"`
}

// Median returns the median duration.
func (s *Samples) Median() time.Duration {
	if len(s.Seconds) == 0 {
		return 0
	}
	return time.Duration(order.Median(s.Seconds)*1e9 + 0.5)
}

// TimeFunc calls f warmup times untimed, then n times, each call timed on
// its own on clk (t0 = Now(); f(); t1 = Now()), and returns the durations
// with the clock's resolution and overhead and the warnings that apply. A
// nil clk is the clock NewBestClock(TSCConfig{}) chooses, chosen once per
// process. It times a kernel inside one process, without MPI
// (kernel.Bracket brackets one across ranks).
//
// The durations include one clock read; reading the clock costs more than
// 5 % of calls shorter than 20 times the overhead, and Warnings says so
// (Hoefler & Belli 2015, §4.2.1). Make f's result observable (store it somewhere)
// so that the compiler cannot remove the work.
func TimeFunc(clk Clock, warmup, n int, f func()) (*Samples, error) {
	switch {
	case f == nil:
		return nil, errors.New("timing: TimeFunc: nil function")
	case n < 1 || warmup < 0:
		return nil, fmt.Errorf("timing: TimeFunc: need n ≥ 1 and warmup ≥ 0, have %d and %d", n, warmup)
	}
	s := &Samples{Warmup: warmup, Seconds: make([]float64, n)}
	if clk == nil {
		ch := bestClockDefault()
		clk, s.Skipped = ch.Clock, ch.Skipped
	}
	m, err := Measure(clk)
	if err != nil {
		return nil, err
	}
	s.Clock = m
	for range warmup {
		f()
	}
	ticks := make([]Ticks, n)
	for i := range ticks {
		t0 := clk.Now()
		f()
		ticks[i] = clk.Now() - t0
	}
	for i, t := range ticks {
		s.Seconds[i] = clk.Freq().Seconds(t)
	}
	s.Warnings = m.Warnings(s.Median())
	if t, ok := clk.(*TSC); ok && !t.Invariant() {
		s.Warnings = append(s.Warnings, "the TSC is not invariant (built with AllowNonInvariant): its ticks are not time when the core changes frequency or sleeps")
	}
	if s.Warnings == nil {
		s.Warnings = []string{}
	}
	return s, nil
}
