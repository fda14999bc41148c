package mpitest

import (
	"cmp"
	"math"
	"slices"
	"sync"
	"time"

	"github.com/reprobench/reprobench/timing"
)

// Off disables a model component when assigned to a field of ClockDist or
// Latency, whose zero values select the defaults: Latency{Jitter: Off} has
// no jitter, ClockDist{Offset: Off, DriftPPM: Off} gives perfect clocks.
// Any negative value has the same effect.
const Off = -1

// ClockParams are the parameters of one rank's simulated clock. At true
// (virtual) time t seconds the clock reads
//
//	local(t) = t + OffsetS + DriftPPM·1e-6·t + wander(t) + slew(t)   (seconds)
//
// quantized down to a multiple of Resolution and expressed in nanosecond
// ticks (negative before the clock's epoch, when OffsetS < 0). wander(t) is the integral of a random walk of the frequency: during
// the k-th interval of length Config.WanderStep the frequency error is
// DriftPPM + w_k ppm, with w_0 = 0 and w_k − w_{k−1} normal with standard
// deviation WanderPPM. slew(t) is the sum over Slews of
// PPM·1e-6·max(0, t − AtS): each slew steps the frequency error by its PPM
// from its time on. Each read of the clock advances the rank's true time by
// Overhead (at least 1 ns, so that busy-wait loops terminate).
type ClockParams struct {
	OffsetS    float64       // offset from true time at t = 0, seconds
	DriftPPM   float64       // frequency error at t = 0, parts per million
	WanderPPM  float64       // standard deviation of the frequency's random-walk step, ppm per WanderStep; 0 = no wander
	Overhead   time.Duration // true time one read costs (at least 1 ns)
	Resolution time.Duration // readings are multiples of this (at least 1 ns)
	// Slews are steps of the clock's rate, in any order; nil for none.
	Slews []Slew
}

// Slew is a step of a clock's rate, as a time daemon (NTP, PTP) makes when
// it starts or stops slewing CLOCK_MONOTONIC: from true time AtS seconds on,
// the clock's frequency error is PPM parts per million higher (lower when
// negative) than before. The clock stays continuous; only its rate changes.
type Slew struct {
	AtS float64 `json:"at_s"` // true time of the step, seconds
	PPM float64 `json:"ppm"`  // change of the frequency error, parts per million
}

// MaxSlewPPM is the largest rate step ClockDist.SlewPPM may ask for: the
// kernel's limit on the frequency adjustment a time daemon may make
// (adjtimex(2): ±500 ppm).
const MaxSlewPPM = 500.0

// ClockDist is the distribution from which New draws each rank's
// ClockParams. A zero field selects its default; Off (any negative value)
// sets the component to zero (Overhead and Resolution then become 1 ns, their
// minimum).
type ClockDist struct {
	Offset     time.Duration // offsets uniform in [−Offset, Offset); default 1 s
	DriftPPM   float64       // drifts uniform in [−DriftPPM, DriftPPM); default 50 ppm
	WanderPPM  float64       // WanderPPM of every rank; default 0 (no wander)
	Overhead   time.Duration // read overhead of every rank; default 20 ns
	Resolution time.Duration // resolution of every rank; default 1 ns
	// Slews is the number of rate steps of every clock; 0 (the default)
	// for none. Each step's time is uniform in [0, SlewWithin) of true time
	// and its size uniform in [−SlewPPM, SlewPPM) ppm, drawn per clock from
	// the world's seed; World.Params reports the draws.
	Slews      int
	SlewPPM    float64       // largest step, ppm, at most MaxSlewPPM; default MaxSlewPPM
	SlewWithin time.Duration // the steps fall in [0, SlewWithin); default defaultSlewWithin
}

// Defaults of ClockDist (and of Config.WanderStep).
const (
	DefaultOffset     = time.Second
	DefaultDriftPPM   = 50.0
	DefaultOverhead   = 20 * time.Nanosecond
	defaultResolution = time.Nanosecond
	defaultWanderStep = time.Second
	defaultSlewWithin = 20 * time.Second
)

func orF(v, def float64) float64 {
	switch {
	case v == 0:
		return def
	case v < 0:
		return 0
	}
	return v
}

func orD(v, def time.Duration) time.Duration {
	switch {
	case v == 0:
		return def
	case v < 0:
		return 0
	}
	return v
}

// resolved returns the distribution with defaults applied.
func (d ClockDist) resolved() ClockDist {
	return ClockDist{
		Offset:     orD(d.Offset, DefaultOffset),
		DriftPPM:   orF(d.DriftPPM, DefaultDriftPPM),
		WanderPPM:  orF(d.WanderPPM, 0),
		Overhead:   orD(d.Overhead, DefaultOverhead),
		Resolution: orD(d.Resolution, defaultResolution),
		Slews:      max(d.Slews, 0),
		SlewPPM:    orF(d.SlewPPM, MaxSlewPPM),
		SlewWithin: orD(d.SlewWithin, defaultSlewWithin),
	}
}

// draw returns the parameters of clock i (a rank, or a node when clocks are
// shared per node).
func (d ClockDist) draw(seed uint64, i int) ClockParams {
	u1 := unit(hash4(seed, domClock, uint64(i), 0))
	u2 := unit(hash4(seed, domClock, uint64(i), 1))
	p := ClockParams{
		OffsetS:    d.Offset.Seconds() * (2*u1 - 1),
		DriftPPM:   d.DriftPPM * (2*u2 - 1),
		WanderPPM:  d.WanderPPM,
		Overhead:   d.Overhead,
		Resolution: d.Resolution,
	}
	for k := range d.Slews {
		ut := unit(hash4(seed, domSlew, uint64(i), uint64(2*k)))
		up := unit(hash4(seed, domSlew, uint64(i), uint64(2*k+1)))
		p.Slews = append(p.Slews, Slew{AtS: d.SlewWithin.Seconds() * ut, PPM: d.SlewPPM * (2*up - 1)})
	}
	return p
}

// domSlew is the stream of the slews' draws.
const domSlew uint64 = 0x736c6577 // "slew"

// clockModel evaluates one rank's clock; it is immutable except for the
// lazily extended wander table, which is guarded by mu.
type clockModel struct {
	p        ClockParams
	drift    float64 // DriftPPM·1e-6
	ovS      float64 // read overhead, seconds
	resNs    float64 // resolution, ns
	seed     uint64  // wander stream
	stepS    float64 // wander interval, seconds
	mu       sync.Mutex
	freq     []float64 // freq[k]: frequency error (fraction) during interval k
	phase    []float64 // phase[k]: accumulated extra seconds at the start of interval k
	wanderOn bool
	slews    []Slew // p.Slews sorted by AtS, PPM as a fraction
}

func newClockModel(p ClockParams, seed uint64, step time.Duration) *clockModel {
	if p.Overhead < time.Nanosecond {
		p.Overhead = time.Nanosecond
	}
	if p.Resolution < time.Nanosecond {
		p.Resolution = time.Nanosecond
	}
	m := &clockModel{
		p:        p,
		drift:    p.DriftPPM * 1e-6,
		ovS:      p.Overhead.Seconds(),
		resNs:    float64(p.Resolution.Nanoseconds()),
		seed:     seed,
		stepS:    step.Seconds(),
		wanderOn: p.WanderPPM > 0,
	}
	if m.wanderOn {
		m.freq = []float64{m.drift}
		m.phase = []float64{0}
	}
	for _, s := range p.Slews {
		m.slews = append(m.slews, Slew{AtS: s.AtS, PPM: s.PPM * 1e-6})
	}
	slices.SortStableFunc(m.slews, func(a, b Slew) int { return cmp.Compare(a.AtS, b.AtS) })
	return m
}

// slew returns the seconds the clock has gained by true time t through its
// slews, and the frequency error they add then.
func (m *clockModel) slew(t float64) (sec, freq float64) {
	for _, s := range m.slews {
		if t <= s.AtS {
			break
		}
		sec += s.PPM * (t - s.AtS)
		freq += s.PPM
	}
	return sec, freq
}

// extra returns the seconds the clock has gained over true time through its
// frequency error by time t (drift, wander and slews, without the offset),
// and the instantaneous frequency error.
func (m *clockModel) extra(t float64) (sec, freq float64) {
	ss, sf := m.slew(t)
	sec, freq = m.wanderExtra(t)
	return sec + ss, freq + sf
}

// wanderExtra is extra without the slews.
func (m *clockModel) wanderExtra(t float64) (sec, freq float64) {
	if !m.wanderOn || t <= 0 {
		return m.drift * t, m.drift
	}
	k := int(t / m.stepS)
	m.mu.Lock()
	for len(m.freq) <= k {
		n := len(m.freq)
		z := normal(m.seed, uint64(n))
		f := m.freq[n-1] + m.p.WanderPPM*1e-6*z
		m.phase = append(m.phase, m.phase[n-1]+m.freq[n-1]*m.stepS)
		m.freq = append(m.freq, f)
	}
	sec = m.phase[k] + m.freq[k]*(t-float64(k)*m.stepS)
	freq = m.freq[k]
	m.mu.Unlock()
	return sec, freq
}

// local returns the unquantized local clock in seconds at true time t.
func (m *clockModel) local(t float64) float64 {
	e, _ := m.extra(t)
	return t + m.p.OffsetS + e
}

// ticks returns the reading of the clock at true time t. The local time is
// first rounded to 1/1024 ns, so that models whose parameters are whole
// nanoseconds read whole nanoseconds despite rounding errors of float64
// seconds (a change of at most 0.5 ps).
func (m *clockModel) ticks(t float64) timing.Ticks {
	q := math.Round(m.local(t)*1e9*1024) / 1024
	if m.resNs == 1 {
		return timing.Ticks(math.Floor(q))
	}
	return timing.Ticks(math.Floor(q/m.resNs) * m.resNs)
}

// trueTime returns the earliest true time at which the clock reads at least
// ticks (up to floating-point rounding of about 1e-15 relative).
func (m *clockModel) trueTime(ticks timing.Ticks) float64 {
	target := float64(ticks) * 1e-9
	// local is strictly increasing (frequency errors are tiny), so
	// bisect after a linear first guess.
	t := (target - m.p.OffsetS) / (1 + m.drift)
	if !m.wanderOn && len(m.slews) == 0 {
		return t
	}
	lo, hi := t-1e-3-1e-3*math.Abs(t), t+1e-3+1e-3*math.Abs(t)
	for m.local(lo) > target {
		lo -= 2 * (hi - lo)
	}
	for m.local(hi) < target {
		hi += 2 * (hi - lo)
	}
	for i := 0; i < 200 && hi-lo > 1e-15*math.Max(1, math.Abs(hi)); i++ {
		mid := (lo + hi) / 2
		if m.local(mid) < target {
			lo = mid
		} else {
			hi = mid
		}
	}
	return hi
}

// simClock is the timing.Clock of one rank: reading it advances the rank's
// true time by the read overhead.
type simClock struct {
	r *Rank
}

var _ timing.Clock = (*simClock)(nil)

// Now returns the reading of the rank's clock at its current true time (or,
// when the node's periodic noise holds the rank then, at the detour's end)
// and advances that time by the read overhead.
func (c *simClock) Now() timing.Ticks {
	r := c.r
	t := r.noise.after(r.now) // held by the node's periodic noise
	r.now = t + r.clk.ovS
	return r.clk.ticks(t)
}

// Freq returns 1 GHz: the simulated clock ticks in nanoseconds.
func (c *simClock) Freq() timing.Freq { return timing.NewFreq(1e9) }

// Name returns "mpitest".
func (c *simClock) Name() string { return "mpitest" }

// Source reports SourceNone: the clock exists only in the simulation.
func (c *simClock) Source() timing.Source { return timing.Source{Kind: timing.SourceNone, Hz: 1e9} }

// Sleep advances the rank's true time by d (Rank.Sleep): the clock is a
// timing.Sleeper, so code that waits on it (clocksync, window, Harness)
// waits in virtual time even when no Sleep option was passed.
func (c *simClock) Sleep(d time.Duration) { c.r.Sleep(d) }

var _ timing.Sleeper = (*simClock)(nil)
