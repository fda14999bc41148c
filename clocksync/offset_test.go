package clocksync_test

import (
	"math"
	"testing"
	"time"

	"github.com/reprobench/reprobench/clocksync"
	"github.com/reprobench/reprobench/mpi/mpitest"
	"github.com/reprobench/reprobench/timing"
)

// measureOnce runs m once on the link 1 → 0 of a two-rank world and returns
// the client's sample, the reference's sample and the true offset of rank 1
// to rank 0 at the client's sample time.
func measureOnce(t *testing.T, cfg mpitest.Config, m clocksync.OffsetMeasurer) (client, ref clocksync.Sample, truth float64) {
	t.Helper()
	cfg.Ranks = 2
	w, err := mpitest.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	var tc float64
	err = w.Run(func(r *mpitest.Rank) error {
		clk := r.Clock()
		l := &clocksync.Link{Comm: r.Comm(), Ref: 0, Client: 1, Now: func() float64 { return clk.Freq().Seconds(clk.Now()) }}
		if err := m.Prepare(l); err != nil {
			return err
		}
		s, err := m.MeasureOffset(l)
		if r.ID() == 1 {
			client = s
			tc = w.TrueTime(1, timing.Ticks(math.Round(s.Local*1e9)))
		} else {
			ref = s
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return client, ref, w.TrueOffset(1, tc)
}

// On a network without jitter and with symmetric latency every offset
// measurement is exact up to the clock read overhead (20 ns); with an
// asymmetry a between the directions no round-trip method can do better
// than a/2, and all of them err by about that much.
func TestOffsetMeasurers(t *testing.T) {
	clean := mpitest.Latency{Jitter: mpitest.Off, SpikeProb: mpitest.Off}
	asym := clean
	asym.Asymmetry = 2 * time.Microsecond
	fixed := mpitest.ClockDist{DriftPPM: mpitest.Off} // offsets only
	for _, c := range []struct {
		name string
		m    clocksync.OffsetMeasurer
	}{
		{"skampi", &clocksync.SKaMPIPingPong{MinPingPongs: 20, MaxPingPongs: 20}},
		{"skampi-stop", &clocksync.SKaMPIPingPong{MinPingPongs: 2, MaxPingPongs: 50, Stop: 1.5}},
		{"jk", &clocksync.JKPingPong{Exchanges: 21}},
		{"netgauge", &clocksync.NetgaugePingPong{Patience: 10, MaxPingPongs: 100}},
	} {
		s, ref, truth := measureOnce(t, mpitest.Config{Seed: 2, Clock: fixed, Latency: clean}, c.m)
		if d := math.Abs(s.Offset - truth); d > 50e-9 {
			t.Errorf("%s: offset %.9f s, true %.9f s (error %.3g ns)", c.name, s.Offset, truth, d*1e9)
		}
		if _, isJK := c.m.(*clocksync.JKPingPong); !isJK && ref.Offset != s.Offset {
			t.Errorf("%s: reference got %v, client %v", c.name, ref.Offset, s.Offset)
		}
		s, _, truth = measureOnce(t, mpitest.Config{Seed: 2, Clock: fixed, Latency: asym}, c.m)
		if d := math.Abs(s.Offset - truth); math.Abs(d-1e-6) > 50e-9 {
			t.Errorf("%s with 2 µs asymmetry: error %.3g ns, want about 1000 ns", c.name, d*1e9)
		}
	}
}

// A regression over drifting clocks on a clean network recovers the drift:
// with local1 = (1+d)·t + o1 and local0 = t + o0, the offset local1 − local0
// as a function of local1 has slope d/(1+d).
func TestRegressionLearnsDrift(t *testing.T) {
	const d = 30e-6
	w, err := mpitest.New(mpitest.Config{
		Ranks:   2,
		Clocks:  []mpitest.ClockParams{{OffsetS: -0.25}, {OffsetS: 0.5, DriftPPM: d * 1e6}},
		Latency: mpitest.Latency{Jitter: mpitest.Off, SpikeProb: mpitest.Off},
	})
	if err != nil {
		t.Fatal(err)
	}
	// 200 × 50 exchanges span about 20 ms: the 1 ns resolution of the
	// clocks then limits the slope to about 1e-8.
	L := &clocksync.Regression{FitPoints: 200, Offset: &clocksync.JKPingPong{Exchanges: 50}}
	var m clocksync.Model
	var st clocksync.FitStats
	err = w.Run(func(r *mpitest.Rank) error {
		clk := r.Clock()
		l := &clocksync.Link{Comm: r.Comm(), Ref: 0, Client: 1, Now: func() float64 { return clk.Freq().Seconds(clk.Now()) }}
		lm, fs, err := clocksync.LearnModel(l, L)
		if r.ID() == 1 {
			m, st = lm, fs
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if want := d / (1 + d); math.Abs(m.Slope-want) > 3e-8 {
		t.Errorf("slope %.12g, want %.12g", m.Slope, want)
	}
	// At local1 = 0.5 (t = 0) the offset is 0.75 s.
	if math.Abs(m.Offset(0.5)-0.75) > 50e-9 {
		t.Errorf("offset at t=0: %.9f s, want 0.75", m.Offset(0.5))
	}
	if st.Points != 200 || st.ResidualRMS > 10e-9 {
		t.Errorf("fit stats %+v", st)
	}
}
