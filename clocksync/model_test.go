package clocksync

import (
	"math"
	"testing"

	"github.com/reprobench/reprobench/timing"
)

func near(a, b, tol float64) bool {
	return math.Abs(a-b) <= tol*math.Max(1, math.Max(math.Abs(a), math.Abs(b)))
}

func TestModelGlobalLocalInverse(t *testing.T) {
	for _, m := range []Model{
		{},
		{Slope: 50e-6, Intercept: 0.75},
		{Slope: -37e-6, Intercept: -1.25},
		{Slope: 0.5, Intercept: 3}, // far from 1: still exact algebra
	} {
		for _, local := range []float64{0, 1e-6, 12.5, 3600, -2} {
			g := m.Global(local)
			if back := m.Local(g); !near(back, local, 1e-15) {
				t.Errorf("%v: Local(Global(%v)) = %v", m, local, back)
			}
			if inv := m.Inverse().Global(g); !near(inv, local, 1e-15) {
				t.Errorf("%v: Inverse().Global(Global(%v)) = %v", m, local, inv)
			}
			if off := local - g; math.Abs(off-m.Offset(local)) > 1e-15*math.Max(1, math.Abs(local)) {
				t.Errorf("%v: Offset(%v) = %v, want %v", m, local, m.Offset(local), off)
			}
		}
	}
}

// Three clocks with known linear relations: clock 2 runs 1+a fast against
// clock 1 and starts b ahead, and clock 3 likewise against clock 2. The model
// of each pair is exact, so MergeLMs (Alg. 4) must map clock 3 to clock 1.
func TestMergeLMsEquation1(t *testing.T) {
	// t1 = (1−s21)·t2 − i21 and t2 = (1−s32)·t3 − i32.
	m21 := Model{Slope: 40e-6, Intercept: 0.3}
	m32 := Model{Slope: -25e-6, Intercept: -1.7}
	m31 := MergeLMs(m21, m32)
	// Expected from the paper's formulas.
	wantS := m21.Slope + m32.Slope - m21.Slope*m32.Slope
	wantI := m21.Intercept + m32.Intercept - m32.Intercept*m21.Slope
	if m31.Slope != wantS || m31.Intercept != wantI {
		t.Fatalf("MergeLMs = %+v, want slope %v intercept %v", m31, wantS, wantI)
	}
	for _, t3 := range []float64{0, 1, 100, 1e4} {
		direct := m21.Global(m32.Global(t3))
		if got := m31.Global(t3); !near(got, direct, 1e-15) {
			t.Errorf("merged(%v) = %.15g, chained = %.15g", t3, got, direct)
		}
		if got := Chain(m32, m21).Global(t3); !near(got, direct, 1e-15) {
			t.Errorf("Chain(%v) = %.15g, chained = %.15g", t3, got, direct)
		}
	}
	// Offset-only models merge by summing offsets (Netgauge, Alg. 11).
	if got := MergeLMs(Model{Intercept: 2}, Model{Intercept: 3}); got != (Model{Intercept: 5}) {
		t.Errorf("offset merge = %+v", got)
	}
	if !Chain().IsIdentity() {
		t.Errorf("Chain() is not the identity")
	}
}

func TestModelValid(t *testing.T) {
	for _, c := range []struct {
		m    Model
		want bool
	}{
		{Model{}, true},
		{Model{Slope: 1e-4, Intercept: -3}, true},
		{Model{Slope: 1}, false},
		{Model{Slope: math.NaN()}, false},
		{Model{Intercept: math.Inf(1)}, false},
	} {
		if got := c.m.Valid(); got != c.want {
			t.Errorf("%+v.Valid() = %v", c.m, got)
		}
	}
}

func TestLinearFit(t *testing.T) {
	// An exact line far from zero: raw-x normal equations lose the slope
	// here (x ≈ 1e9 s, x² ≈ 1e18), centred sums do not.
	const s, i = 37.5e-6, -0.25
	var x, y []float64
	for k := 0; k < 1000; k++ {
		xv := 1e9 + float64(k)*1e-3
		x = append(x, xv)
		y = append(y, s*xv+i)
	}
	gs, gi, rms := LinearFit(x, y)
	if !near(gs, s, 1e-6) {
		t.Errorf("slope %v, want %v", gs, s)
	}
	// The intercept at x = 0 is an extrapolation over 1e9 s; check the line
	// at the data instead.
	if got := gs*x[500] + gi; math.Abs(got-y[500]) > 1e-9 {
		t.Errorf("line at x[500] = %v, want %v", got, y[500])
	}
	if rms > 1e-9 {
		t.Errorf("rms %v for an exact line", rms)
	}

	// Small data set; reference values from R 4.x:
	// coef(lm(c(1,3,2,5,4) ~ c(1,2,3,4,5))) = 0.6, 0.8;
	// sqrt(mean(resid(...)^2)) = sqrt(3.6/5).
	gs, gi, rms = LinearFit([]float64{1, 2, 3, 4, 5}, []float64{1, 3, 2, 5, 4})
	if !near(gs, 0.8, 1e-14) || !near(gi, 0.6, 1e-14) || !near(rms, math.Sqrt(3.6/5), 1e-14) {
		t.Errorf("fit = %v %v %v, want 0.8 0.6 %v", gs, gi, rms, math.Sqrt(3.6/5))
	}

	// Degenerate inputs.
	if gs, gi, _ := LinearFit([]float64{7}, []float64{2}); gs != 0 || gi != 2 {
		t.Errorf("one point: %v %v", gs, gi)
	}
	if gs, gi, _ := LinearFit([]float64{7, 7}, []float64{2, 4}); gs != 0 || gi != 3 {
		t.Errorf("equal x: %v %v", gs, gi)
	}
}

func TestLinearFitPanics(t *testing.T) {
	for _, c := range []struct{ x, y []float64 }{{nil, nil}, {[]float64{1}, []float64{1, 2}}} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("LinearFit(%v, %v) did not panic", c.x, c.y)
				}
			}()
			LinearFit(c.x, c.y)
		}()
	}
}

func TestTrimmedMean(t *testing.T) {
	// Q1 = 2.25, Q3 = 4.75 (type 7), fences −1.5 and 8.5: 100 is removed.
	x := []float64{1, 2, 3, 4, 5, 100}
	if got := trimmedMean(x); got != 3 {
		t.Errorf("trimmedMean = %v, want 3", got)
	}
	if x[5] != 100 {
		t.Errorf("trimmedMean modified its input")
	}
	if got := trimmedMean([]float64{2}); got != 2 {
		t.Errorf("trimmedMean(2) = %v", got)
	}
	if !math.IsNaN(trimmedMean(nil)) {
		t.Errorf("trimmedMean(nil) not NaN")
	}
}

// fixedClock is a timing.Clock whose reading the test sets.
type fixedClock struct {
	rate timing.Freq
	now  timing.Ticks
}

func (c *fixedClock) Freq() timing.Freq { return c.rate }
func (c *fixedClock) Now() timing.Ticks { return c.now }
func (c *fixedClock) Name() string      { return "fixed" }
func (c *fixedClock) Source() timing.Source {
	return timing.Source{Kind: timing.SourceNone, Hz: c.rate.Hz()}
}

func TestGlobalClock(t *testing.T) {
	base := &fixedClock{rate: timing.NewFreq(2.5e9), now: 25e9} // 10 s
	g := NewGlobalClock(base)
	if g.Now() != base.now || g.NowSeconds() != 10 {
		t.Fatalf("identity global clock reads %d (%v s)", g.Now(), g.NowSeconds())
	}
	if g.Source().Kind != timing.SourceNone || g.Freq().Hz() != 2.5e9 || g.Name() != "global(fixed)" {
		t.Errorf("Source %v Hz %v Name %q", g.Source(), g.Freq().Hz(), g.Name())
	}
	inner := Model{Intercept: 0.5}                  // rank → leader: 0.5 s ahead
	outer := Model{Slope: 20e-6, Intercept: -0.125} // leader → root
	g.Set(inner, outer)
	want := outer.Global(inner.Global(10))
	if got := g.NowSeconds(); !near(got, want, 1e-15) {
		t.Errorf("NowSeconds = %.12f, want %.12f", got, want)
	}
	if got := g.Now(); got != timing.Ticks(math.Round(want*2.5e9)) {
		t.Errorf("Now = %d, want %d", got, int64(math.Round(want*2.5e9)))
	}
	// Round trips between local and global ticks.
	for _, local := range []timing.Ticks{0, 1, 25e9, 1 << 40} {
		if back := g.LocalTicks(g.GlobalTicks(local)); back != local {
			t.Errorf("LocalTicks(GlobalTicks(%d)) = %d", local, back)
		}
		if back := g.ToLocal(g.ToGlobal(local)); back != local {
			t.Errorf("ToLocal(ToGlobal(%d)) = %d", local, back)
		}
	}
	if ms := g.Models(); len(ms) != 2 || ms[0] != inner || ms[1] != outer {
		t.Errorf("Models = %v", ms)
	}
	g.Set()
	if !g.Model().IsIdentity() {
		t.Errorf("Set() did not reset to the identity")
	}
}

// A burst of disturbed fit points tilts plain least squares; Trim refits
// without them.
func TestRegressionTrim(t *testing.T) {
	const slope, icpt = 2e-6, 0.3
	var pts []Sample
	for k := 0; k < 200; k++ {
		x := 1 + float64(k)*1e-3
		y := slope*x + icpt + 1e-9*float64(k%5-2) // ±2 ns of noise
		if k >= 190 {
			y += 5e-6 // the last 10 points 5 µs off
		}
		pts = append(pts, Sample{Local: x, Offset: y})
	}
	plain, _ := (&Regression{}).Fit(pts)
	trimmed, st := (&Regression{Trim: 3}).Fit(pts)
	if math.Abs(plain.Slope-slope) < 1e-6 {
		t.Fatalf("plain fit not disturbed: slope %g", plain.Slope)
	}
	if math.Abs(trimmed.Slope-slope) > 1e-8 || st.Points != 190 {
		t.Errorf("trimmed fit: slope %g (want %g), %d points", trimmed.Slope, slope, st.Points)
	}
}
