package timing

import (
	"math"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"github.com/reprobench/reprobench/timing/internal/cspin"
)

// scripted is a clock that returns the given readings in turn.
type scripted struct {
	t []int64
	i int
}

func (s *scripted) now() int64 {
	v := s.t[min(s.i, len(s.t)-1)]
	s.i++
	return v
}

func TestSpinDetoursFindsExactlyTheGaps(t *testing.T) {
	// Readings every 50 ns with gaps of 2 µs after 1000, 30 µs after 5000
	// and 900 ns (below the 1 µs threshold) after 38000, until 40000.
	var r []int64
	seg := func(from, to int64) {
		for t := from; t <= to; t += 50 {
			r = append(r, t)
		}
	}
	seg(0, 1000)
	seg(3000, 5000)
	seg(35000, 38000)
	seg(38900, 40000)
	clk := &scripted{t: r}
	var c CPUNoise
	spinDetours(clk.now, 0, 40000, 1000, 10, 1<<62, func() { t.Fatal("yield before yieldEvery") }, &c)
	want := []Detour{{1000, 2000}, {5000, 30000}}
	if len(c.Detours) != len(want) || c.Detours[0] != want[0] || c.Detours[1] != want[1] {
		t.Fatalf("detours %v, want %v", c.Detours, want)
	}
	if c.SpunNs != 40000 {
		t.Errorf("spun %d ns, want 40000", c.SpunNs)
	}
	if c.Reads != int64(len(r)-1) {
		t.Errorf("reads %d, want %d", c.Reads, len(r)-1)
	}
}

func TestSpinDetoursYieldIsNotADetour(t *testing.T) {
	// A reading every 100 ns; every yield makes the clock jump 5 µs.
	var now int64
	tick := func() int64 { now += 100; return now }
	yields := 0
	yield := func() { yields++; now += 5000 }
	var c CPUNoise
	spinDetours(tick, 0, 1_000_000, 1000, 100, 10_000, yield, &c)
	if yields < 50 {
		t.Fatalf("%d yields, want about 1e6/(1e4+5e3)", yields)
	}
	if len(c.Detours) != 0 {
		t.Fatalf("yields counted as detours: %v", c.Detours[:min(3, len(c.Detours))])
	}
	// The spun time excludes the yields.
	if want := int64(1_000_000) - int64(yields)*5000; math.Abs(float64(c.SpunNs-want)) > 200*float64(yields+1) {
		t.Errorf("spun %d ns, want about %d", c.SpunNs, want)
	}
}

func TestSpinDetoursCapsAndCounts(t *testing.T) {
	var now int64
	gap := func() int64 { now += 2000; return now }
	var c CPUNoise
	spinDetours(gap, 0, 100_000, 1000, 7, 1<<62, func() {}, &c)
	// The first reading (2000) starts the spin; the 49 after it are gaps.
	if len(c.Detours) != 7 || c.Dropped != 49-7 {
		t.Fatalf("kept %d dropped %d, want 7 and 42", len(c.Detours), c.Dropped)
	}
	s := (&NoiseProbe{Duration: 100 * time.Microsecond, CPUs: []CPUNoise{c}}).Summaries()[0]
	if s.Count != 49 || math.Abs(s.PerSecond-49/(98000e-9)) > 1 {
		t.Errorf("summary %+v: want 49 detours in 98 µs spun", s)
	}
}

func probe(dur time.Duration, cpus ...[]Detour) *NoiseProbe {
	p := &NoiseProbe{Duration: dur, Threshold: time.Microsecond}
	for i, ds := range cpus {
		p.CPUs = append(p.CPUs, CPUNoise{CPU: i, SpunNs: dur.Nanoseconds(), Detours: ds})
	}
	return p
}

func TestExpectedLateAndSimultaneous(t *testing.T) {
	// CPU 0: [0,30µs) and [500,510µs); CPU 1: [10,40µs). 1 ms probed.
	p := probe(time.Millisecond,
		[]Detour{{0, 30_000}, {500_000, 10_000}},
		[]Detour{{10_000, 30_000}})
	// Tolerance 0: union [0,40) ∪ [500,510) = 50 µs of 1000.
	if got := p.ExpectedLate(0); math.Abs(got-0.05) > 1e-12 {
		t.Errorf("ExpectedLate(0) = %v, want 0.05", got)
	}
	// Tolerance 5 µs trims every detour's end: [0,25) ∪ [10,35) ∪ [500,505) = 40 µs.
	if got := p.ExpectedLate(5 * time.Microsecond); math.Abs(got-0.04) > 1e-12 {
		t.Errorf("ExpectedLate(5µs) = %v, want 0.04", got)
	}
	// Both CPUs in a detour during [10,30): 20 µs of the 50 µs union.
	if got := p.Simultaneous(); math.Abs(got-0.4) > 1e-12 {
		t.Errorf("Simultaneous = %v, want 0.4", got)
	}
	if got := probe(time.Millisecond, nil).Simultaneous(); !math.IsNaN(got) {
		t.Errorf("one CPU: Simultaneous = %v, want NaN", got)
	}
	if got := probe(time.Millisecond, nil, nil).ExpectedLate(0); got != 0 {
		t.Errorf("no detours: ExpectedLate = %v", got)
	}
}

// A CPU whose thread began late narrows the span ExpectedLate judges.
func TestExpectedLateOnTheCoveredSpan(t *testing.T) {
	p := &NoiseProbe{Duration: time.Millisecond, CPUs: []CPUNoise{
		{CPU: 0, FirstNs: 0, LastNs: 1_000_000, Detours: []Detour{{100_000, 50_000}, {600_000, 50_000}}},
		{CPU: 1, FirstNs: 500_000, LastNs: 1_000_000, Detours: []Detour{{800_000, 100_000}}},
	}}
	lo, hi, ok := p.Covered()
	if lo != 500_000 || hi != 1_000_000 || !ok {
		t.Fatalf("Covered = %d, %d, %v; want 500000, 1000000, true", lo, hi, ok)
	}
	// In [0.5, 1] ms: [0.6, 0.65) and [0.8, 0.9) ms late: 150 µs of 500.
	if got := p.ExpectedLate(0); math.Abs(got-0.3) > 1e-12 {
		t.Errorf("ExpectedLate = %v, want 0.3", got)
	}
	p.CPUs[1].FirstNs = 1_000_000
	p.CPUs[1].LastNs = 1_000_001
	p.CPUs[0].LastNs = 999_999
	if _, _, ok := p.Covered(); ok || !math.IsNaN(p.ExpectedLate(0)) {
		t.Errorf("disjoint spans: Covered ok %v, ExpectedLate %v; want false, NaN", ok, p.ExpectedLate(0))
	}
}

func TestSummariesPeriodAndQuantiles(t *testing.T) {
	// A 30 µs tick every 1 ms for 100 ms plus 2 µs blips in between.
	var ds []Detour
	for k := int64(0); k < 100; k++ {
		ds = append(ds, Detour{k * 1_000_000, 30_000}, Detour{k*1_000_000 + 400_000, 2_000})
	}
	s := probe(100*time.Millisecond, ds).Summaries()[0]
	if s.PeriodNs != 1e6 || s.PeriodShare != 1 {
		t.Errorf("period %v share %v, want 1 ms and 1", s.PeriodNs, s.PeriodShare)
	}
	if s.Count != 200 || s.PerSecond != 2000 {
		t.Errorf("count %d per second %v, want 200 and 2000", s.Count, s.PerSecond)
	}
	if math.Abs(s.Fraction-100*32e3/100e6) > 1e-12 {
		t.Errorf("fraction %v, want 0.032", s.Fraction)
	}
	if s.MedianNs != 16_000 || s.MaxNs != 30_000 {
		t.Errorf("median %v max %v, want 16000 (type 7 between 2000 and 30000) and 30000", s.MedianNs, s.MaxNs)
	}
}

func TestMeasureNoiseOnThisMachine(t *testing.T) {
	p, err := MeasureNoise(NoiseConfig{Duration: 30 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if want, err := AllowedCPUs(); runtime.GOOS == "linux" && (err != nil || len(p.CPUs) != len(want)) {
		t.Fatalf("probed %d CPUs, allowed %v (%v)", len(p.CPUs), want, err)
	}
	for _, c := range p.CPUs {
		// A loaded machine may start a thread late (CI: 10 ms of 30), and
		// the Go fallback leaves out the time it yields: the span is what
		// the readings say, and it ends at the end.
		if c.FirstNs < 0 || c.LastNs < int64(30*time.Millisecond) || c.LastNs > int64(time.Second) ||
			c.SpunNs <= 0 || c.SpunNs > c.LastNs-c.FirstNs {
			t.Errorf("CPU %d: first %d ns, last %d ns, spun %d ns", c.CPU, c.FirstNs, c.LastNs, c.SpunNs)
		}
		if cspin.Available && c.SpunNs != c.LastNs-c.FirstNs {
			t.Errorf("CPU %d: the C loop spun %d ns between readings %d apart", c.CPU, c.SpunNs, c.LastNs-c.FirstNs)
		}
		// Reads happen while the thread runs, which on a loaded machine
		// may be little of the 30 ms (seen: 1 read at load 27 on 2 vCPUs,
		// the rest one long detour): judge the time it ran.
		ran := c.LastNs - c.FirstNs
		for _, d := range c.Detours {
			ran -= d.LengthNs
		}
		if cspin.Available && ran >= int64(5*time.Millisecond) && c.Reads < 1000 {
			t.Errorf("CPU %d: only %d clock reads in %v of running", c.CPU, c.Reads, time.Duration(ran))
		}
		prev := c.FirstNs
		for _, d := range c.Detours {
			if d.LengthNs < int64(time.Microsecond) || d.StartNs < prev || d.EndNs() > c.LastNs {
				t.Fatalf("CPU %d: detour %+v after %d breaks the contract", c.CPU, d, prev)
			}
			prev = d.EndNs()
		}
	}
	for _, s := range p.Summaries() {
		if s.Fraction < 0 || s.Fraction > 1 {
			t.Errorf("fraction %v", s.Fraction)
		}
	}
	// NaN only when no span was covered by every CPU at once (a thread
	// started after another ended: a loaded machine).
	_, _, covered := p.Covered()
	if e := p.ExpectedLate(time.Microsecond); covered != !math.IsNaN(e) || (covered && !(e >= 0 && e <= 1)) {
		t.Errorf("ExpectedLate %v (covered %v)", e, covered)
	}
	if _, err := MeasureNoise(NoiseConfig{Duration: time.Millisecond, CPUs: []int{-2}}); err == nil {
		t.Error("CPU -2 accepted")
	}
}

// A thread competing for the probed CPU takes it away for scheduler time
// slices: the probe must see a large share of the time lost, in long
// detours. (The native spin loop only: the Go fallback leaves out the
// time it yields, which is when the competitor runs.)
func TestMeasureNoiseSeesACompetingThread(t *testing.T) {
	if !cspin.Available {
		t.Skip("the C spin loop needs cgo on Linux")
	}
	cpus, err := AllowedCPUs()
	if err != nil || len(cpus) == 0 {
		t.Skip("no CPU list:", err)
	}
	cpu := cpus[0]
	var stop atomic.Bool
	ready := make(chan error)
	go func() {
		runtime.LockOSThread() // never unlocked: the pinned thread ends with the goroutine
		if err := pinThread(cpu); err != nil {
			ready <- err
			return
		}
		ready <- nil
		for !stop.Load() { // busy: compete for the CPU
		}
	}()
	if err := <-ready; err != nil {
		t.Skip("cannot pin:", err)
	}
	p, err := MeasureNoise(NoiseConfig{Duration: 200 * time.Millisecond, CPUs: []int{cpu}})
	stop.Store(true)
	if err != nil {
		t.Fatal(err)
	}
	s := p.Summaries()[0]
	t.Logf("CPU %d shared with a busy thread: %.1f%% lost, %d detours, longest %.2f ms", cpu, 100*s.Fraction, s.Count, s.MaxNs/1e6)
	if s.Fraction < 0.2 || s.MaxNs < 200e3 {
		t.Errorf("a competing thread on CPU %d took only %.1f%% (longest detour %.3f ms); want ≥ 20%% in time slices ≥ 0.2 ms",
			cpu, 100*s.Fraction, s.MaxNs/1e6)
	}
	if p.ExpectedLate(time.Microsecond) < 0.2 {
		t.Errorf("ExpectedLate %.3f with the CPU shared half the time", p.ExpectedLate(time.Microsecond))
	}
}
