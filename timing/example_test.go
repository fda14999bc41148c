package timing_test

import (
	"errors"
	"fmt"
	"log"
	"time"

	"github.com/reprobench/reprobench/timing"
)

// Timing an interval with the monotonic clock: read, work, read, convert.
func ExampleNewMonotonic() {
	clk := timing.NewMonotonic()
	t0 := clk.Now()
	time.Sleep(time.Millisecond)
	t1 := clk.Now()
	fmt.Println(clk.Freq().Duration(t1-t0) >= time.Millisecond, clk.Name(), clk.Source().Kind)
	// Output: true monotonic monotonic
}

// A TSC clock with a calibrated frequency, handling each of NewTSC's
// errors: RDTSCP hidden by a hypervisor (read with LFENCE instead), no
// TSC, a TSC that is not invariant, an absurd frequency or a failed
// calibration (fall back to the monotonic clock). NewBestClock does all of
// this in one call. The calibration takes one second.
func ExampleNewTSC() {
	var clk timing.Clock
	tsc, err := timing.NewTSC(timing.TSCConfig{})
	if errors.Is(err, timing.ErrNoRDTSCP) {
		tsc, err = timing.NewTSC(timing.TSCConfig{Fenced: true})
	}
	switch {
	case err == nil:
		fmt.Println("TSC at", tsc.Frequency())
		clk = tsc
	case errors.Is(err, timing.ErrNoTSC), errors.Is(err, timing.ErrNotInvariant),
		errors.Is(err, timing.ErrAbsurdFrequency), errors.Is(err, timing.ErrNoRDTSCP):
		fmt.Println("TSC unusable:", err)
		clk = timing.NewMonotonic()
	default: // the calibration failed
		fmt.Println("TSC calibration failed:", err)
		clk = timing.NewMonotonic()
	}
	t0 := clk.Now()
	t1 := clk.Now()
	fmt.Println("two reads apart:", clk.Freq().Duration(t1-t0))
}

// The best clock of the machine, whatever NewTSC says about it.
func ExampleNewBestClock() {
	ch := timing.NewBestClock(timing.TSCConfig{})
	fmt.Println("timing with", ch.Clock.Name())
	for _, s := range ch.Skipped {
		fmt.Println("passed over", s)
	}
}

// A kernel timed in one process: 10 untimed calls, then 1000 timed ones
// on the best clock (BestClock: calibrated once, a second), with the
// warnings that apply to them.
func ExampleTimeFunc() {
	x := make([]float64, 4096)
	var sum float64
	s, err := timing.TimeFunc(nil, 10, 1000, func() {
		for i := range x {
			sum += x[i] * 1.5
		}
	})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(len(s.Seconds), "durations; median", s.Median() > 0, "sum", sum)
	for _, w := range s.Warnings {
		fmt.Println("warning:", w)
	}
	// Output: 1000 durations; median true sum 0
}

// The nominal frequency of the counter, identical on every rank, is what
// Hunold & Carpen-Amarie 2016, §4.2.1, recommends when clocks are
// synchronized by offset only.
func ExampleNewTSC_fixed() {
	tsc, err := timing.NewTSC(timing.TSCConfig{Fenced: true, Hz: 2.1e9})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(tsc.Name(), tsc.Frequency(), tsc.Source().Kind)
}

// A frequency given in MHz instead of Hz is refused.
func ExampleErrAbsurdFrequency() {
	_, err := timing.NewTSC(timing.TSCConfig{Fenced: true, Hz: 2100, AllowNonInvariant: true})
	fmt.Println(errors.Is(err, timing.ErrAbsurdFrequency) || errors.Is(err, timing.ErrNoTSC))
	// Output: true
}

// What the processor and the kernel say about the TSC.
func ExampleDetectTSC() {
	f := timing.DetectTSC()
	fmt.Printf("arch %s, invariant %v (CPUID %v, constant_tsc %v, nonstop_tsc %v), RDTSCP advertised %v\n",
		f.Arch, f.Invariant(), f.CPUIDInvariant, f.ConstantTSC, f.NonstopTSC, f.CPUIDRDTSCP)
}

// Calibrate against an injected reference: here a synthetic counter ticking
// at exactly 2.5 GHz on a virtual timeline, which Sleep advances.
func ExampleCalibrate() {
	var vt int64 // virtual nanoseconds
	counter := func() int64 { vt += 10; return vt * 5 / 2 }
	ref := timing.Reference{
		Name:  "virtual",
		Now:   func() int64 { vt += 20; return vt },
		Sleep: func(d time.Duration) { vt += int64(d) },
	}
	f, err := timing.Calibrate(counter, ref, timing.CalibrationConfig{})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%.6f GHz, method %s, %d points over %.2f s\n", f.Hz/1e9, f.Method, f.Samples, f.SpanS)
	// Output: 2.500000 GHz, method least_squares, 101 points over 1.00 s
}

// Frequency formats itself for people.
func ExampleFrequency_String() {
	fmt.Println(timing.Frequency{Hz: 2.1e9, Method: timing.MethodFixed})
	fmt.Println(timing.Frequency{Hz: 2096005018, Method: timing.MethodLeastSquares, UncertaintyPPM: 0.0042,
		Reference: "CLOCK_MONOTONIC_RAW", Samples: 101, SpanS: 1.0001})
	// Output:
	// 2.100000 GHz (fixed)
	// 2.096005 GHz ± 0.0042 ppm (least squares vs CLOCK_MONOTONIC_RAW, 101 points over 1.00 s)
}

// Measure a clock, then ask whether an interval can be timed with it.
func ExampleMeasure() {
	clk := timing.NewMonotonic()
	m, err := timing.Measure(clk)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%s: resolution %.0f ns, overhead %.0f ns, intervals from %v\n",
		m.Name, m.ResolutionNs, m.OverheadNs, m.MinInterval())
	for _, w := range m.Warnings(100 * time.Nanosecond) {
		fmt.Println("warning:", w)
	}
}

func ExampleMeasurement_Warnings() {
	m := timing.Measurement{Name: "mpi_wtime", OverheadNs: 60, ResolutionNs: 1000}
	for _, d := range []time.Duration{time.Microsecond, 5 * time.Microsecond, 20 * time.Microsecond} {
		fmt.Println(d, m.Warnings(d))
	}
	fmt.Println("shortest interval:", m.MinInterval())
	// Output:
	// 1µs [mpi_wtime: interval 1µs is shorter than 20× the read overhead (60 ns): reading the clock costs 6% of it mpi_wtime: interval 1µs is shorter than 10× the resolution (1000 ns)]
	// 5µs [mpi_wtime: interval 5µs is shorter than 10× the resolution (1000 ns)]
	// 20µs []
	// shortest interval: 10µs
}

// Inject a known skew: 3 ms ahead and 250 ppm fast.
func ExampleNewSkewed() {
	base := timing.NewMonotonic()
	s := timing.NewSkewed(base, 3*time.Millisecond, 250)
	fmt.Println(s.Skew(0), s.Skew(1e9), s.Unskew(1_003_250_000))
	fmt.Println(s.Name(), s.Source().Kind)
	// Output:
	// 3000000 1003250000 1000000000
	// monotonic+skew none
}

// Conversions between ticks, seconds and durations.
func ExampleFreq() {
	f := timing.NewFreq(2.5e9)
	fmt.Println(f.Seconds(5e9), f.Ticks(time.Microsecond), f.Duration(2500))
	// Output: 2 2500 1µs
}

// C code reads a Clock's ticks as: raw counter of Source().Kind minus Source().Epoch.
func ExampleSource() {
	clk := timing.NewMonotonic()
	src := clk.Source()
	fmt.Println(src.Kind, src.Hz, src.Epoch > 0)
	// Output: monotonic 1e+09 true
}

// The frequency metadata of a TSC clock, and the facts it was built on.
func ExampleTSC_Frequency() {
	tsc, err := timing.NewTSC(timing.TSCConfig{Fenced: true})
	if err != nil {
		log.Fatal(err)
	}
	f := tsc.Frequency()
	fmt.Printf("frequency_hz=%.0f frequency_method=%s uncertainty_ppm=%.3g invariant=%v\n",
		f.Hz, f.Method, f.UncertaintyPPM, tsc.Invariant())
}

// Detect a migration between cores in the middle of a measurement.
func ExampleTSC_NowCPU() {
	tsc, err := timing.NewTSC(timing.TSCConfig{Hz: 2.1e9})
	if err != nil {
		log.Fatal(err)
	}
	t0, cpu0 := tsc.NowCPU()
	// ... the timed operation ...
	t1, cpu1 := tsc.NowCPU()
	if cpu0 != cpu1 && tsc.Facts().CPUIDRDTSCP {
		fmt.Println("migrated: discard this observation")
	}
	fmt.Println(tsc.Freq().Duration(t1 - t0))
}

// Unskew recovers the base reading of a skewed one.
func ExampleSkewed_Unskew() {
	s := timing.NewSkewed(timing.NewMonotonic(), -time.Microsecond, -20)
	r := s.Skew(5_000_000_000) // 5 s on the base clock
	fmt.Println(r, s.Unskew(r))
	// Output: 4999899000 5000000000
}

// The shortest interval a clock measures well.
func ExampleMeasurement_MinInterval() {
	m := timing.Measurement{OverheadNs: 20, ResolutionNs: 20}
	fmt.Println(m.MinInterval())
	// Output: 400ns
}

// Read the calibration reference directly.
func ExampleMonotonicRaw() {
	ref := timing.MonotonicRaw()
	a := ref.Now()
	ref.Sleep(time.Millisecond)
	fmt.Println(ref.Name, ref.Now()-a >= 1e6)
	// Output: CLOCK_MONOTONIC_RAW true
}

// The invariance decision: CPUID, confirmed by the kernel when it can be asked.
func ExampleTSCFacts_Invariant() {
	f := timing.TSCFacts{Supported: true, CPUIDInvariant: true, CPUInfoRead: true, ConstantTSC: true}
	fmt.Println(f.Invariant()) // the kernel lacks nonstop_tsc
	f.NonstopTSC = true
	fmt.Println(f.Invariant())
	// Output:
	// false
	// true
}

func ExampleSourceKind_String() {
	fmt.Println(timing.SourceTSC, timing.SourceTSCFenced, timing.SourceWtime)
	// Output: tsc_rdtscp tsc_lfence mpi_wtime
}

// A machine whose two CPUs both stop for 30 µs at every 1 ms timer tick
// makes 2.9 % of windowed observations start late (more than the 1 µs
// tolerance) whatever the window: a deadline falls into [tick, tick + 29 µs)
// that often. MeasureNoise finds such detours on a real machine.
func ExampleNoiseProbe_ExpectedLate() {
	var ticks []timing.Detour
	for k := range int64(1000) {
		ticks = append(ticks, timing.Detour{StartNs: k * 1_000_000, LengthNs: 30_000})
	}
	p := &timing.NoiseProbe{Duration: time.Second, CPUs: []timing.CPUNoise{
		{CPU: 0, SpunNs: 1e9, Detours: ticks},
		{CPU: 1, SpunNs: 1e9, Detours: ticks},
	}}
	s := p.Summaries()[0]
	fmt.Printf("CPU 0: %.0f detours/s, %.1f%% lost, period %.0f µs\n", s.PerSecond, 100*s.Fraction, s.PeriodNs/1e3)
	fmt.Printf("both CPUs stopped at once: %.0f%% of the detour time\n", 100*p.Simultaneous())
	fmt.Printf("expected late starts: %.1f%%\n", 100*p.ExpectedLate(time.Microsecond))
	// Output:
	// CPU 0: 1000 detours/s, 3.0% lost, period 1000 µs
	// both CPUs stopped at once: 100% of the detour time
	// expected late starts: 2.9%
}

// The default clock, which "reprobench run" uses unless --clock says
// otherwise: CLOCK_MONOTONIC_RAW, which no time daemon slews.
func ExampleNewDefault() {
	clk := timing.NewDefault()
	fmt.Println(clk.Name() == timing.DefaultClockName, timing.DefaultClockName, clk.Source().Kind)
	// Output: true monotonic_raw monotonic_raw
}
