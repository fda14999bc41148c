package timing

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"runtime"
	"slices"
	"sync"
	"time"

	"github.com/reprobench/reprobench/internal/order"
	"github.com/reprobench/reprobench/timing/internal/cspin"
)

// Detour is an interruption of a spinning thread: two consecutive readings
// of the clock LengthNs apart instead of the usual few tens of nanoseconds.
// While it lasts the thread does not run (an interrupt, the scheduler, the
// hypervisor, another process).
type Detour struct {
	StartNs  int64 `json:"start_ns"`  // clock reading before the gap, CLOCK_MONOTONIC nanoseconds since the probe began
	LengthNs int64 `json:"length_ns"` // gap between the two readings
}

// EndNs is the clock reading after the detour.
func (d Detour) EndNs() int64 { return d.StartNs + d.LengthNs }

// NoiseConfig configures MeasureNoise. Zero fields take the defaults noted.
type NoiseConfig struct {
	// Duration is how long every CPU spins; default 1 s.
	Duration time.Duration
	// Threshold is the shortest gap between two clock readings that counts
	// as a detour; default 1 µs (a reading takes 20-70 ns).
	Threshold time.Duration
	// CPUs are the CPUs to spin on, one thread pinned to each, all at the
	// same time; default every CPU this process may run on. Pinning needs
	// Linux; elsewhere CPUs must be empty and one unpinned thread spins.
	CPUs []int
	// MaxDetours bounds the detours kept per CPU (the rest are counted in
	// CPUNoise.Dropped and left out of the shares); default 100 000, and
	// never more than 50 000 per second of Duration. Each costs 16 bytes
	// of memory per CPU, allocated up front.
	MaxDetours int
}

// CPUNoise is what one spinning CPU saw.
type CPUNoise struct {
	CPU      int      `json:"cpu"`                 // the CPU spun on; -1 when not pinned
	FirstNs  int64    `json:"first_ns"`            // first clock reading, ns since the probe's start (> 0 when the thread began late)
	LastNs   int64    `json:"last_ns"`             // last clock reading, ns since the probe's start
	SpunNs   int64    `json:"spun_ns"`             // time spun, detours included, yields excluded
	Reads    int64    `json:"reads"`               // clock readings taken
	Detours  []Detour `json:"detours"`             // in time order
	Dropped  int      `json:"dropped,omitempty"`   // detours seen beyond NoiseConfig.MaxDetours
	PinError string   `json:"pin_error,omitempty"` // why pinning to CPU failed
}

// NoiseProbe is the outcome of MeasureNoise: every CPU's detours on one
// time axis (nanoseconds since the probe's start, CLOCK_MONOTONIC), the
// selfish-detour benchmark of Beckman et al. (2006) run on all CPUs at once.
type NoiseProbe struct {
	Threshold time.Duration `json:"threshold_ns"`
	Duration  time.Duration `json:"duration_ns"`
	CPUs      []CPUNoise    `json:"cpus"`
	// EpochNs is CLOCK_MONOTONIC (MonotonicNs) at the probe's time zero:
	// the detours' absolute times, which periodic noise locked to the
	// kernel's tick keeps its phase against.
	EpochNs int64 `json:"epoch_ns"`
}

// MeasureNoise spins on the configured CPUs at once, reading the monotonic
// clock as fast as it can, and records every gap between readings of at
// least cfg.Threshold. It takes cfg.Duration of wall-clock time and keeps
// the CPUs busy meanwhile, so run it when nothing else is measured. It
// raises GOMAXPROCS to one more than the number of CPUs while it runs.
//
// With cgo on Linux each thread spins in one C call, which the Go runtime
// does not interrupt. Elsewhere the spinning goroutines yield to the Go
// scheduler every millisecond and the time until they run again is left
// out (SpunNs says how much was covered): the runtime would otherwise
// preempt them every 10 ms, and that detour would be Go's, not the
// machine's.
func MeasureNoise(cfg NoiseConfig) (*NoiseProbe, error) {
	if cfg.Duration <= 0 {
		cfg.Duration = time.Second
	}
	if cfg.Threshold <= 0 {
		cfg.Threshold = time.Microsecond
	}
	if cfg.MaxDetours <= 0 {
		cfg.MaxDetours = 100_000
	}
	cpus := cfg.CPUs
	if len(cpus) == 0 {
		var err error
		if cpus, err = AllowedCPUs(); err != nil {
			cpus = []int{-1}
		}
	}
	if slices.ContainsFunc(cpus, func(c int) bool { return c < -1 }) {
		return nil, fmt.Errorf("timing: negative CPU in %v", cpus)
	}
	if prev := runtime.GOMAXPROCS(0); prev < len(cpus)+1 {
		runtime.GOMAXPROCS(len(cpus) + 1)
		defer runtime.GOMAXPROCS(prev)
	}
	p := &NoiseProbe{Threshold: cfg.Threshold, Duration: cfg.Duration, CPUs: make([]CPUNoise, len(cpus))}
	epoch := nanotime()
	start := epoch + int64(50*time.Millisecond) // every thread pinned and spinning before it
	p.EpochNs = start
	end := start + cfg.Duration.Nanoseconds()
	var wg sync.WaitGroup
	for i, cpu := range cpus {
		wg.Add(1)
		go func() {
			defer wg.Done()
			// Never unlocked: the goroutine's end then ends the thread, whose
			// affinity pinThread changed, instead of handing it to others.
			runtime.LockOSThread()
			c := &p.CPUs[i]
			c.CPU = cpu
			if cpu >= 0 {
				if err := pinThread(cpu); err != nil {
					c.PinError = err.Error()
					return
				}
			}
			// Room for 50 000 detours per second of probe (a 1 µs threshold
			// sees a few thousand on a noisy VM), within MaxDetours.
			room := min(cfg.MaxDetours, int(cfg.Duration.Seconds()*50_000)+1000)
			if cspin.Available {
				starts, lens := make([]int64, room), make([]int64, room)
				n, dropped, reads, first, last := cspin.Spin(start, end, cfg.Threshold.Nanoseconds(), starts, lens)
				c.Detours = make([]Detour, n)
				for k := range c.Detours {
					c.Detours[k] = Detour{StartNs: starts[k], LengthNs: lens[k]}
				}
				c.Dropped, c.Reads, c.SpunNs, c.FirstNs, c.LastNs = dropped, reads, last-first, first, last
			} else {
				c.Detours = make([]Detour, 0, min(room, 4096))
				for nanotime() < start {
				}
				spinDetours(nanotime, start, end, cfg.Threshold.Nanoseconds(), room, time.Millisecond.Nanoseconds(), runtime.Gosched, c)
			}
			for k := range c.Detours {
				c.Detours[k].StartNs -= start
			}
			c.FirstNs -= start
			c.LastNs -= start
		}()
	}
	wg.Wait()
	var errs []error
	for _, c := range p.CPUs {
		if c.PinError != "" {
			errs = append(errs, fmt.Errorf("CPU %d: %s", c.CPU, c.PinError))
		}
	}
	if len(errs) > 0 {
		return nil, fmt.Errorf("timing: pinning the noise probe: %w", errors.Join(errs...))
	}
	return p, nil
}

// spinDetours reads now until it reaches end, appending every gap of at
// least threshold between consecutive readings to c.Detours (at most maxDetours;
// later ones are counted in c.Dropped). Every yieldEvery ns it calls yield
// and starts afresh after it, so the yield is not taken for a detour.
func spinDetours(now func() int64, start, end, threshold int64, maxDetours int, yieldEvery int64, yield func(), c *CPUNoise) {
	prev := now()
	if prev < start {
		prev = start
	}
	nextYield := prev + yieldEvery
	var reads, spun int64
	segStart := prev
	c.FirstNs = prev
	for {
		t := now()
		reads++
		if t-prev >= threshold {
			if len(c.Detours) < maxDetours {
				c.Detours = append(c.Detours, Detour{StartNs: prev, LengthNs: t - prev})
			} else {
				c.Dropped++
			}
		}
		prev = t
		if t >= end {
			break
		}
		if t >= nextYield {
			spun += t - segStart
			yield()
			prev = now()
			segStart = prev
			nextYield = prev + yieldEvery
		}
	}
	spun += prev - segStart
	c.SpunNs, c.Reads, c.LastNs = spun, reads, prev
}

// NoiseSummary condenses one CPU's detours.
type NoiseSummary struct {
	CPU   int `json:"cpu"`
	Count int `json:"count"`
	// Dropped of them were counted but not kept (NoiseConfig.MaxDetours):
	// the shares and lengths describe the kept ones only.
	Dropped   int     `json:"dropped,omitempty"`
	PerSecond float64 `json:"per_s"`
	// Fraction is the share of the spun time lost to detours.
	Fraction float64 `json:"fraction"`
	MedianNs float64 `json:"median_ns"`
	P99Ns    float64 `json:"p99_ns"`
	MaxNs    float64 `json:"max_ns"`
	// PeriodNs is the most common interval between the starts of detours
	// of at least 10 µs, to the nearest 10 µs (a timer tick shows up here;
	// 0 when fewer than 10 such detours were seen); PeriodShare is the
	// share of those intervals within 5% of it.
	PeriodNs    float64 `json:"period_ns"`
	PeriodShare float64 `json:"period_share"`
}

// Summaries condenses every CPU's detours.
func (p *NoiseProbe) Summaries() []NoiseSummary {
	out := make([]NoiseSummary, len(p.CPUs))
	for i, c := range p.CPUs {
		s := NoiseSummary{CPU: c.CPU, Count: len(c.Detours) + c.Dropped, Dropped: c.Dropped}
		if c.SpunNs > 0 {
			s.PerSecond = float64(s.Count) / (float64(c.SpunNs) / 1e9)
		}
		lens := make([]float64, len(c.Detours))
		var total float64
		for k, d := range c.Detours {
			lens[k] = float64(d.LengthNs)
			total += lens[k]
		}
		if c.SpunNs > 0 {
			s.Fraction = math.Min(1, total/float64(c.SpunNs)) // the spun time includes the detours
		}
		if len(lens) > 0 {
			slices.Sort(lens)
			s.MedianNs = order.Quantile(0.5, lens)
			s.P99Ns = order.Quantile(0.99, lens)
			s.MaxNs = lens[len(lens)-1]
		}
		s.PeriodNs, s.PeriodShare = period(c.Detours, 10_000)
		out[i] = s
	}
	return out
}

// period finds the most common interval between the starts of detours of
// at least minLen ns, binned to 10 µs.
func period(ds []Detour, minLen int64) (float64, float64) {
	var starts []int64
	for _, d := range ds {
		if d.LengthNs >= minLen {
			starts = append(starts, d.StartNs)
		}
	}
	if len(starts) < 10 {
		return 0, 0
	}
	bins := map[int64]int{}
	for k := 1; k < len(starts); k++ {
		bins[(starts[k]-starts[k-1]+5_000)/10_000]++
	}
	best, bestN := int64(0), 0
	for b, n := range bins {
		if n > bestN || (n == bestN && b < best) {
			best, bestN = b, n
		}
	}
	per := float64(best * 10_000)
	near := 0
	for k := 1; k < len(starts); k++ {
		if math.Abs(float64(starts[k]-starts[k-1])-per) <= 0.05*per+5_000 {
			near++
		}
	}
	return per, float64(near) / float64(len(starts)-1)
}

// ExpectedLate is the share of windowed observations expected to start
// late from the machine's detours alone, whatever the window and however
// good the clock synchronization, when one rank runs on each probed CPU: an
// observation is late when, on some rank, a detour covers its deadline and
// ends more than tolerance after it. For a deadline at a random instant
// that happens with probability |⋃ over CPUs and detours of
// [start, end − tolerance)| / |span|, where span is the part of the probe
// every CPU covered (Covered; NaN when it is empty); detours on different
// CPUs at the same time (a whole virtual machine paused) count once. The
// Go fallback's yields within the span are not excluded. Noise changes from
// minute to minute on a shared machine, so probe right before or after the
// measurement it explains.
func (p *NoiseProbe) ExpectedLate(tolerance time.Duration) float64 {
	lo, hi, ok := p.Covered()
	if !ok {
		return math.NaN()
	}
	var iv [][2]int64
	for _, c := range p.CPUs {
		for _, d := range c.Detours {
			a, b := max(d.StartNs, lo), min(d.EndNs()-tolerance.Nanoseconds(), hi)
			if b > a {
				iv = append(iv, [2]int64{a, b})
			}
		}
	}
	return math.Min(1, float64(unionLength(iv))/float64(hi-lo))
}

// Covered returns the span of the probe during which every CPU was
// spinning, in ns since its start: from the latest first reading to the
// earliest last one. A thread that began late (a loaded machine) narrows
// it. A CPU without readings recorded (LastNs = 0, e.g. built by hand)
// counts as covering [0, Duration]. ok is false when the span is empty.
func (p *NoiseProbe) Covered() (lo, hi int64, ok bool) {
	lo, hi = 0, p.Duration.Nanoseconds()
	for _, c := range p.CPUs {
		if c.LastNs > c.FirstNs {
			lo, hi = max(lo, c.FirstNs), min(hi, c.LastNs)
		}
	}
	return lo, hi, hi > lo
}

// Simultaneous is the share of the detour time of the CPUs' union during
// which every probed CPU was in a detour at once: near 1 when the machine
// as a whole stops (a hypervisor, ticks aligned across CPUs), near 0 when
// each CPU is disturbed on its own. NaN without detours or with one CPU.
func (p *NoiseProbe) Simultaneous() float64 {
	if len(p.CPUs) < 2 {
		return math.NaN()
	}
	per := make([][][2]int64, len(p.CPUs))
	var all [][2]int64
	for i, c := range p.CPUs {
		for _, d := range c.Detours {
			per[i] = append(per[i], [2]int64{d.StartNs, d.EndNs()})
		}
		all = append(all, per[i]...)
	}
	u := unionLength(all)
	if u == 0 {
		return math.NaN()
	}
	inter := normalize(per[0])
	for _, next := range per[1:] {
		inter = intersect(inter, normalize(next))
	}
	var n int64
	for _, x := range inter {
		n += x[1] - x[0]
	}
	return float64(n) / float64(u)
}

// normalize sorts intervals and merges overlapping ones.
func normalize(iv [][2]int64) [][2]int64 {
	iv = slices.Clone(iv)
	slices.SortFunc(iv, func(a, b [2]int64) int { return cmp.Compare(a[0], b[0]) })
	var out [][2]int64
	for _, x := range iv {
		if n := len(out); n > 0 && x[0] <= out[n-1][1] {
			out[n-1][1] = max(out[n-1][1], x[1])
			continue
		}
		out = append(out, x)
	}
	return out
}

func unionLength(iv [][2]int64) int64 {
	var n int64
	for _, x := range normalize(iv) {
		n += x[1] - x[0]
	}
	return n
}

// intersect intersects two normalized interval lists.
func intersect(a, b [][2]int64) [][2]int64 {
	var out [][2]int64
	for i, j := 0, 0; i < len(a) && j < len(b); {
		lo, hi := max(a[i][0], b[j][0]), min(a[i][1], b[j][1])
		if lo < hi {
			out = append(out, [2]int64{lo, hi})
		}
		if a[i][1] < b[j][1] {
			i++
		} else {
			j++
		}
	}
	return out
}
