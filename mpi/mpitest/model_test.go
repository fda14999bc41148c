package mpitest

import (
	"fmt"
	"math"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/reprobench/reprobench/mpi"
	"github.com/reprobench/reprobench/mpi/internal/elem"
)

// ksStat returns the Kolmogorov–Smirnov statistic of sample x against the
// continuous CDF cdf.
func ksStat(x []float64, cdf func(float64) float64) float64 {
	s := slices.Clone(x)
	slices.Sort(s)
	n := float64(len(s))
	d := 0.0
	for i, v := range s {
		f := cdf(v)
		d = math.Max(d, math.Max(f-float64(i)/n, float64(i+1)/n-f))
	}
	return d
}

// ksCrit is the asymptotic critical value of the one-sample KS statistic at
// level 0.001 (c(α) = sqrt(−ln(α/2)/2) = 1.949).
func ksCrit(n int) float64 { return 1.949 / math.Sqrt(float64(n)) }

func meanVar(x []float64) (m, v float64) {
	for _, a := range x {
		m += a
	}
	m /= float64(len(x))
	for _, a := range x {
		v += (a - m) * (a - m)
	}
	return m, v / float64(len(x)-1)
}

func TestClockDistribution(t *testing.T) {
	const n = 4000
	w, err := New(Config{Ranks: n, Seed: 11})
	if err != nil {
		t.Fatal(err)
	}
	off, drift := make([]float64, n), make([]float64, n)
	for i := range n {
		p := w.Params(i)
		off[i], drift[i] = p.OffsetS, p.DriftPPM
		if p.Overhead != 20*time.Nanosecond || p.Resolution != time.Nanosecond || p.WanderPPM != 0 {
			t.Fatalf("rank %d: defaults not applied: %+v", i, p)
		}
	}
	// Offsets U(−1, 1) s, drifts U(−50, 50) ppm.
	for _, c := range []struct {
		name string
		x    []float64
		a    float64
	}{{"offset", off, 1}, {"drift", drift, 50}} {
		d := ksStat(c.x, func(v float64) float64 { return math.Min(1, math.Max(0, (v+c.a)/(2*c.a))) })
		if d > ksCrit(n) {
			t.Errorf("%s: KS D = %.4f > %.4f against U(±%v)", c.name, d, ksCrit(n), c.a)
		}
		m, v := meanVar(c.x)
		// U(−a, a): mean 0, variance a²/3; tolerance 5 standard errors.
		if se := c.a / math.Sqrt(3*n); math.Abs(m) > 5*se {
			t.Errorf("%s: mean %v, want 0 ± %v", c.name, m, 5*se)
		}
		if want := c.a * c.a / 3; math.Abs(v-want) > 0.1*want {
			t.Errorf("%s: variance %v, want %v", c.name, v, want)
		}
	}
	// Distinct seeds give distinct clocks; the same seed the same ones.
	w2, _ := New(Config{Ranks: n, Seed: 11})
	w3, _ := New(Config{Ranks: n, Seed: 12})
	if !reflect.DeepEqual(w2.Params(7), w.Params(7)) || reflect.DeepEqual(w3.Params(7), w.Params(7)) {
		t.Error("clock parameters do not follow the seed")
	}
}

func TestClockReadings(t *testing.T) {
	params := []ClockParams{
		{OffsetS: -0.25, DriftPPM: 30, Overhead: 25 * time.Nanosecond, Resolution: time.Nanosecond},
		{OffsetS: 0.5, DriftPPM: -20, Overhead: 10 * time.Nanosecond, Resolution: time.Microsecond},
	}
	w, err := New(Config{Ranks: 2, Clocks: params})
	if err != nil {
		t.Fatal(err)
	}
	err = w.Run(func(r *Rank) error {
		clk := r.Clock()
		if clk.Freq().Hz() != 1e9 || clk.Source().Kind != 0 || clk.Name() != "mpitest" {
			return fmt.Errorf("clock identity %v %v %v", clk.Freq().Hz(), clk.Source(), clk.Name())
		}
		p := params[r.ID()]
		r.Sleep(3 * time.Second)
		for range 100 {
			t0 := r.TrueNow()
			got := clk.Now()
			if want := w.ClockAt(r.ID(), t0); got != want {
				return fmt.Errorf("read %d, ClockAt %d", got, want)
			}
			// local(t) = t + offset + drift·t, floored to the resolution.
			exact := (t0 + p.OffsetS + p.DriftPPM*1e-6*t0) * 1e9
			res := float64(p.Resolution)
			if want := math.Floor(exact/res) * res; math.Abs(float64(got)-want) > 1e-3 {
				return fmt.Errorf("read %d, formula %v", got, want)
			}
			if d := r.TrueNow() - t0; !near(d, p.Overhead.Seconds(), 1e-15) {
				return fmt.Errorf("read cost %v s, want %v", d, p.Overhead)
			}
			r.Sleep(time.Duration(r.ID()*37+11) * time.Nanosecond)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []float64{0, 1, 100.5} {
		want := (0.5 - 20e-6*tt) - (-0.25 + 30e-6*tt)
		if got := w.TrueOffset(1, tt); !near(got, want, 1e-12) {
			t.Errorf("TrueOffset(1, %v) = %v, want %v", tt, got, want)
		}
		if got := w.TrueDriftPPM(0, tt); !near(got, 30, 1e-9) {
			t.Errorf("TrueDriftPPM = %v", got)
		}
		for r := range 2 {
			ticks := w.ClockAt(r, tt)
			back := w.TrueTime(r, ticks)
			if back > tt+1e-12 || w.ClockSecondsAt(r, back) < float64(ticks)*1e-9-1e-12 {
				t.Errorf("TrueTime(%d, %d) = %v, not consistent with t = %v", r, ticks, back, tt)
			}
		}
	}
}

func TestWander(t *testing.T) {
	const n, sigma, steps = 2000, 0.2, 25
	w, err := New(Config{Ranks: n, Seed: 5, Clock: ClockDist{WanderPPM: sigma}})
	if err != nil {
		t.Fatal(err)
	}
	// After k steps the frequency has moved by N(0, k·σ²).
	dev := make([]float64, n)
	for i := range n {
		dev[i] = w.TrueDriftPPM(i, steps+0.5) - w.Params(i).DriftPPM
	}
	m, v := meanVar(dev)
	want := steps * sigma * sigma
	if math.Abs(m) > 5*math.Sqrt(want/n) || math.Abs(v-want) > 0.15*want {
		t.Errorf("frequency change after %d steps: mean %v var %v, want 0 and %v", steps, m, v, want)
	}
	// The phase is the integral of the frequency: continuous, and the
	// local clock advances by (1 + f_k) per second within step k.
	for i := range 10 {
		for k := 0.0; k < 5; k++ {
			f := w.TrueDriftPPM(i, k+0.5) * 1e-6
			got := w.ClockSecondsAt(i, k+0.75) - w.ClockSecondsAt(i, k+0.25)
			if !near(got, 0.5*(1+f), 1e-12) {
				t.Errorf("rank %d step %v: advance %v, want %v", i, k, got, 0.5*(1+f))
			}
			if d := w.ClockSecondsAt(i, k+1+1e-9) - w.ClockSecondsAt(i, k+1-1e-9); math.Abs(d-2e-9) > 1e-12 {
				t.Errorf("phase jumps at %v by %v", k+1, d)
			}
		}
		ticks := w.ClockAt(i, 3.3)
		if tt := w.TrueTime(i, ticks); math.Abs(tt-3.3) > 2e-9 {
			t.Errorf("TrueTime with wander: %v, want ≈ 3.3", tt)
		}
	}
}

// latencies measures n one-way latencies src→dst: the sender sends its true
// time, spaced 1 ms apart, so the receiver is always waiting.
func latencies(t *testing.T, cfg Config, src, dst, n, size int) []float64 {
	t.Helper()
	w, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	out := make([]float64, n)
	err = w.Run(func(r *Rank) error {
		c := r.Comm()
		buf := make([]byte, max(size, 8))
		for i := range n {
			switch r.ID() {
			case src:
				r.Sleep(time.Millisecond)
				elem.Put(mpi.Float64, buf, 0, r.TrueNow())
				if err := c.Send(buf, dst, 0); err != nil {
					return err
				}
			case dst:
				if err := c.Recv(buf, src, 0); err != nil {
					return err
				}
				out[i] = r.TrueNow() - elem.Get(mpi.Float64, buf, 0)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func TestLatencyDistribution(t *testing.T) {
	const n = 20000
	lat := latencies(t, Config{Ranks: 2, Seed: 9, Latency: Latency{BytesPerSecond: Off}}, 0, 1, n, 8)
	// Defaults: 1 µs + Exp(mean 0.1 µs) + 20 µs with probability 0.01.
	var jit []float64
	spikes := 0
	for _, l := range lat {
		x := l - 1e-6
		if x < 0 {
			t.Fatalf("latency %v below base", l)
		}
		if x >= 20e-6 {
			spikes++
			x -= 20e-6
		}
		jit = append(jit, x)
	}
	// Spikes: binomial(n, 0.01), sd = sqrt(n·0.01·0.99) ≈ 14; allow 5 sd.
	if math.Abs(float64(spikes)-0.01*n) > 5*math.Sqrt(n*0.01*0.99) {
		t.Errorf("%d spikes in %d messages, want ≈ %v", spikes, n, 0.01*n)
	}
	// (A jitter above 20 µs would be counted as a spike; P = e^-200.)
	if d := ksStat(jit, func(x float64) float64 { return 1 - math.Exp(-x/1e-7) }); d > ksCrit(n) {
		t.Errorf("jitter: KS D = %.4f > %.4f against Exp(mean 100 ns)", d, ksCrit(n))
	}
	if m, _ := meanVar(jit); math.Abs(m-1e-7) > 5*1e-7/math.Sqrt(n) {
		t.Errorf("jitter mean %v, want 1e-7", m)
	}
}

func TestLatencyLinks(t *testing.T) {
	exact := Latency{Base: time.Microsecond, Jitter: Off, SpikeProb: Off, Asymmetry: 400 * time.Nanosecond,
		BytesPerSecond: 1e9, InterNode: &Latency{Base: 5 * time.Microsecond, Jitter: Off, SpikeProb: Off, BytesPerSecond: Off}}
	cfg := Config{Ranks: 4, RanksPerNode: 2, Latency: exact}
	cases := []struct {
		src, dst, size int
		want           float64
	}{
		{0, 1, 8, 1.2e-6 + 8e-9},    // intra-node, upwards: +Asymmetry/2, 8 bytes at 1 GB/s in flight
		{1, 0, 8, 0.8e-6 + 8e-9},    // downwards: −Asymmetry/2
		{1, 0, 1000, 0.8e-6 + 1e-6}, // 1000 bytes
		{0, 2, 8, 5e-6},             // inter-node model
		{3, 1, 8, 5e-6},
	}
	for _, c := range cases {
		lat := latencies(t, cfg, c.src, c.dst, 3, c.size)
		for _, l := range lat {
			if !near(l, c.want, 1e-12) {
				t.Errorf("%d→%d (%d bytes): latency %v, want %v", c.src, c.dst, c.size, l, c.want)
			}
		}
	}
	// PerLink overrides everything.
	cfg.Latency.PerLink = func(src, dst int) Latency {
		return Latency{Base: time.Duration(src+dst+1) * time.Microsecond, Jitter: Off, SpikeProb: Off, BytesPerSecond: Off}
	}
	if l := latencies(t, cfg, 2, 3, 1, 8)[0]; !near(l, 6e-6, 1e-12) {
		t.Errorf("PerLink latency %v, want 6e-6", l)
	}
}

func TestConfigErrors(t *testing.T) {
	for _, cfg := range []Config{
		{},
		{Ranks: -1},
		{Ranks: 2, Clocks: make([]ClockParams, 1)},
		{Ranks: 2, RanksPerNode: -1},
		{Ranks: 2, Latency: Latency{SpikeProb: 2}},
		{Ranks: 2, WanderStep: -time.Second},
	} {
		if _, err := New(cfg); err == nil {
			t.Errorf("New(%+v) succeeded", cfg)
		}
	}
}

func TestNodeClocks(t *testing.T) {
	w, err := New(Config{Ranks: 6, RanksPerNode: 3, NodeClocks: true, Seed: 2})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(w.Params(0), w.Params(2)) || !reflect.DeepEqual(w.Params(3), w.Params(5)) || reflect.DeepEqual(w.Params(0), w.Params(3)) {
		t.Errorf("node clocks not shared per node: %+v %+v %+v", w.Params(0), w.Params(2), w.Params(3))
	}
	if w.TrueOffset(2, 10) != 0 || w.Node(4) != 1 {
		t.Error("ranks of node 0 disagree")
	}
}
