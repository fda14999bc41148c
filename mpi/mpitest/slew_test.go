package mpitest

import (
	"math"
	"math/big"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/reprobench/reprobench/timing"
)

// exactLocal integrates a clock's rate segment by segment in exact rational
// arithmetic: between consecutive slew times the rate is 1 + (DriftPPM + the
// PPM of every slew already passed)·1e-6, and local(t) = OffsetS + the
// integral of the rate over [0, t]. It shares no code with the model.
func exactLocal(p ClockParams, t float64) *big.Rat {
	rat := func(x float64) *big.Rat { return new(big.Rat).SetFloat64(x) }
	ppm := func(x float64) *big.Rat { return new(big.Rat).Mul(rat(x), big.NewRat(1, 1_000_000)) }
	var times []float64
	for _, s := range p.Slews {
		if s.AtS > 0 && s.AtS < t {
			times = append(times, s.AtS)
		}
	}
	slices.Sort(times)
	times = append(times, t)
	acc := rat(p.OffsetS)
	from := 0.0
	for _, to := range times {
		rate := new(big.Rat).Add(big.NewRat(1, 1), ppm(p.DriftPPM))
		for _, s := range p.Slews {
			if s.AtS <= from { // in force during (from, to)
				rate.Add(rate, ppm(s.PPM))
			}
		}
		acc.Add(acc, new(big.Rat).Mul(rate, new(big.Rat).Sub(rat(to), rat(from))))
		from = to
	}
	return acc
}

func ratFloat(r *big.Rat) float64 { f, _ := r.Float64(); return f }

// TestSlewGroundTruthExact checks the slewed clocks' ground truth against
// the exact integral of their rates: readings, true offsets, the
// instantaneous drift and the inverse (TrueTime), for explicit slews (two
// steps, one back) and for slews drawn from ClockDist.
func TestSlewGroundTruthExact(t *testing.T) {
	explicit := []ClockParams{
		{OffsetS: 0.25, DriftPPM: 10, Overhead: time.Nanosecond, Resolution: time.Nanosecond},
		{OffsetS: -0.5, DriftPPM: -20, Overhead: time.Nanosecond, Resolution: time.Nanosecond,
			Slews: []Slew{{AtS: 7.5, PPM: -300}, {AtS: 2.25, PPM: 500}}},
	}
	w, err := New(Config{Ranks: 2, Clocks: explicit})
	if err != nil {
		t.Fatal(err)
	}
	const ns = 1e9
	for _, tt := range []float64{0.5, 2.25, 3, 7.5, 9, 12.125} {
		want := ratFloat(exactLocal(explicit[1], tt))
		if got := w.ClockSecondsAt(1, tt); math.Abs(got-want) > 1e-15*math.Abs(want)+1e-15 {
			t.Errorf("rank 1 at %v s: %.15f s, exact %.15f s", tt, got, want)
		}
		wantTicks := timing.Ticks(math.Floor(want * ns))
		if got := w.ClockAt(1, tt); got != wantTicks {
			t.Errorf("rank 1 at %v s reads %d ticks, exact %d", tt, got, wantTicks)
		}
		off := ratFloat(new(big.Rat).Sub(exactLocal(explicit[1], tt), exactLocal(explicit[0], tt)))
		if got := w.TrueOffset(1, tt); math.Abs(got-off) > 1e-14 {
			t.Errorf("true offset at %v s: %.15f s, exact %.15f s", tt, got, off)
		}
		// The inverse lands on the reading.
		if back := w.TrueTime(1, wantTicks); w.ClockAt(1, back) != wantTicks || math.Abs(back-tt) > 2e-9 {
			t.Errorf("TrueTime(%d) = %.12f s, want ≈ %v s reading the same ticks", wantTicks, back, tt)
		}
	}
	for _, c := range []struct{ at, ppm float64 }{{1, -20}, {3, 480}, {8, 180}} {
		if got := w.TrueDriftPPM(1, c.at); math.Abs(got-c.ppm) > 1e-9 {
			t.Errorf("drift at %v s: %v ppm, want %v", c.at, got, c.ppm)
		}
	}
	// A simulated rank reading its clock sees the same ticks.
	err = w.Run(func(r *Rank) error {
		if r.ID() == 1 {
			r.Sleep(9 * time.Second)
			at := r.TrueNow()
			if got, want := r.Clock().Now(), w.ClockAt(1, at); got != want {
				t.Errorf("rank 1 read %d at %v s, ground truth %d", got, at, want)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}

	// Drawn: the draws are in Params, within the distribution, seeded.
	cfg := Config{Ranks: 4, Seed: 3, Clock: ClockDist{Slews: 3, SlewPPM: 500, SlewWithin: 12 * time.Second}}
	wd, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	again, _ := New(cfg)
	for r := range 4 {
		p := wd.Params(r)
		if len(p.Slews) != 3 || !reflect.DeepEqual(p, again.Params(r)) {
			t.Fatalf("rank %d: slews %+v, not 3 reproducible draws", r, p.Slews)
		}
		for _, s := range p.Slews {
			if s.AtS < 0 || s.AtS >= 12 || math.Abs(s.PPM) > 500 {
				t.Errorf("rank %d: slew %+v outside [0, 12) s, ±500 ppm", r, s)
			}
		}
		for _, tt := range []float64{1, 6, 11.5, 20} {
			want := ratFloat(exactLocal(p, tt))
			if got := wd.ClockSecondsAt(r, tt); math.Abs(got-want) > 1e-14 {
				t.Errorf("drawn rank %d at %v s: %.15f s, exact %.15f s", r, tt, got, want)
			}
		}
	}
	if reflect.DeepEqual(wd.Params(0).Slews, wd.Params(1).Slews) {
		t.Error("ranks 0 and 1 drew the same slews")
	}
	if _, err := New(Config{Ranks: 1, Clock: ClockDist{Slews: 1, SlewPPM: 501}}); err == nil {
		t.Error("a 501 ppm slew was accepted")
	}
}
