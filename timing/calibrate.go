package timing

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"time"

	"golang.org/x/sys/unix"
)

// Frequency methods recorded in Frequency.Method.
const (
	MethodFixed        = "fixed"         // given by the user
	MethodLeastSquares = "least_squares" // calibrated by Calibrate
)

// Frequency is a counter frequency and how it was obtained, for metadata.
type Frequency struct {
	Hz     float64 `json:"frequency_hz"`
	Method string  `json:"frequency_method"` // MethodFixed or MethodLeastSquares
	// UncertaintyPPM is the standard error of the fitted slope relative to
	// the slope, in parts per million. It is 0 for a fixed frequency, whose
	// uncertainty this package cannot know. It assumes independent errors
	// and cannot see the reference's own slow wander, so treat it as a lower
	// bound: on a KVM guest, five successive one-second calibrations each
	// stated 0.003–0.006 ppm and spread with a standard deviation of about
	// 0.013 ppm (still far below the ~4 ppm of a single timed sleep).
	UncertaintyPPM float64 `json:"uncertainty_ppm"`
	// The calibration's figures (zero for a fixed frequency).
	Reference     string  `json:"reference,omitempty"`       // the clock calibrated against
	Samples       int     `json:"samples,omitempty"`         // points in the fit
	Rejected      int     `json:"rejected,omitempty"`        // points dropped as disturbed
	SpanS         float64 `json:"span_s,omitempty"`          // reference time covered by the fit
	ResidualRMSNs float64 `json:"residual_rms_ns,omitempty"` // scatter of the points around the line
}

// String formats the frequency for people, e.g.
// "2.096005 GHz ± 0.021 ppm (least squares vs CLOCK_MONOTONIC_RAW, 101 points over 1.00 s)".
func (f Frequency) String() string {
	if f.Method == MethodFixed {
		return fmt.Sprintf("%.6f GHz (fixed)", f.Hz/1e9)
	}
	return fmt.Sprintf("%.6f GHz ± %.3g ppm (least squares vs %s, %d points over %.2f s)",
		f.Hz/1e9, f.UncertaintyPPM, f.Reference, f.Samples, f.SpanS)
}

// Reference is a clock in nanoseconds that a counter is calibrated against.
// Tests inject synthetic ones.
type Reference struct {
	Name  string
	Now   func() int64        // nanoseconds since an arbitrary origin
	Sleep func(time.Duration) // waits between samples
}

// MonotonicRaw is CLOCK_MONOTONIC_RAW: the kernel's clock not slewed by
// NTP, read with clock_gettime.
func MonotonicRaw() Reference {
	return Reference{
		Name: "CLOCK_MONOTONIC_RAW",
		Now: func() int64 {
			var ts unix.Timespec
			if err := unix.ClockGettime(unix.CLOCK_MONOTONIC_RAW, &ts); err != nil {
				panic("timing: clock_gettime(CLOCK_MONOTONIC_RAW): " + err.Error())
			}
			return ts.Nano()
		},
		Sleep: time.Sleep,
	}
}

// CalibrationConfig configures Calibrate. The zero value is usable.
type CalibrationConfig struct {
	// Duration is the reference time the fit covers: at least one second
	// (shorter calibrations are refused), one second if zero.
	Duration time.Duration
	// Samples is the number of points, evenly spaced; 101 if zero, at least 10.
	Samples int
	// Tries is the number of attempts per point, of which the least disturbed
	// is kept; 5 if zero.
	Tries int
	// MaxUncertaintyPPM refuses a calibration whose relative standard error
	// exceeds it; 10 ppm if zero.
	MaxUncertaintyPPM float64
}

// Calibrate estimates the rate of counter, in ticks per second of ref, by
// least squares over at least one second.
//
// Each point reads counter, ref, counter back to back, keeping of cfg.Tries
// attempts the one with the narrowest bracket; the reference reading is paired
// with the bracket's midpoint, so the pairing error is at most half the
// bracket. Points whose bracket is wider than three times the median bracket
// (the thread was interrupted in every attempt) are dropped, and sampling
// goes on, on the same schedule, until the kept points span the duration (at
// most twice the duration in all). The slope of
// ticks on seconds is the frequency; its standard error
// sqrt(SSR/(n−2) / Σ(x−x̄)²), relative to the slope, is the uncertainty.
//
// Hunold & Carpen-Amarie 2016, §4.2.1 shows that Netgauge's estimate (ticks counted over one
// sleep of one second) is off by about 4 ppm, i.e. 4 µs of drift per second
// between processes; fitting a line through many bracketed points over the
// same second brings that down by one or two orders of magnitude, and the
// uncertainty is stated instead of ignored.
func Calibrate(counter func() int64, ref Reference, cfg CalibrationConfig) (Frequency, error) {
	if cfg.Duration == 0 {
		cfg.Duration = time.Second
	}
	if cfg.Duration < time.Second {
		return Frequency{}, fmt.Errorf("timing: calibration over %v refused: it must cover at least 1 s", cfg.Duration)
	}
	if cfg.Samples == 0 {
		cfg.Samples = 101
	}
	if cfg.Samples < 10 {
		return Frequency{}, fmt.Errorf("timing: calibration with %d samples refused: at least 10 are needed", cfg.Samples)
	}
	if cfg.Tries <= 0 {
		cfg.Tries = 5
	}
	if cfg.MaxUncertaintyPPM == 0 {
		cfg.MaxUncertaintyPPM = 10
	}
	if ref.Sleep == nil {
		ref.Sleep = time.Sleep
	}

	pts := make([]calPoint, 0, cfg.Samples)
	var x, y []float64 // the kept points, as undisturbed gives them
	interval := cfg.Duration / time.Duration(cfg.Samples-1)
	var start int64
	for i := 0; ; i++ {
		best := calPoint{width: math.MaxInt64}
		for range cfg.Tries {
			c0 := counter()
			r := ref.Now()
			c1 := counter()
			if w := c1 - c0; w >= 0 && w < best.width {
				best = calPoint{x: r, y: c0 + w/2, width: w}
			}
		}
		if best.width == math.MaxInt64 {
			return Frequency{}, errors.New("timing: calibration failed: the counter went backwards in every attempt")
		}
		if i == 0 {
			start = best.x
		}
		pts = append(pts, best)
		elapsed := best.x - start
		// Stop once the points that will be kept, not merely all points,
		// cover the duration: a disturbed first or last point would otherwise
		// leave the fit short of it (on a quiet 2-vCPU VM, 1 calibration in
		// a few dozen kept only 0.97–0.98 s and was refused below). The
		// extra points continue the schedule, so the spacing stays even; after
		// twice the duration the checks below say what went wrong.
		if len(pts) >= cfg.Samples && elapsed >= cfg.Duration.Nanoseconds() {
			x, y = undisturbed(pts)
			if len(x) >= 10 && x[len(x)-1]-x[0] >= cfg.Duration.Seconds() || elapsed >= 2*cfg.Duration.Nanoseconds() {
				break
			}
		}
		if len(pts) > 100*cfg.Samples {
			return Frequency{}, fmt.Errorf("timing: calibration failed: %s advanced only %v in %d samples", ref.Name, time.Duration(elapsed), len(pts))
		}
		// Sleep until the next point's due time, so oversleeping does not accumulate.
		due := start + int64(i+1)*interval.Nanoseconds()
		if d := due - ref.Now(); d > 0 {
			ref.Sleep(time.Duration(d))
		}
	}

	if len(x) < 10 {
		return Frequency{}, fmt.Errorf("timing: calibration failed: only %d of %d points undisturbed", len(x), len(pts))
	}
	slope, _, se, rms := fitLine(x, y)
	if !(slope > 0) {
		return Frequency{}, fmt.Errorf("%w: calibrated slope %g ticks/s", ErrAbsurdFrequency, slope)
	}
	f := Frequency{
		Hz:             slope,
		Method:         MethodLeastSquares,
		UncertaintyPPM: se / slope * 1e6,
		Reference:      ref.Name,
		Samples:        len(x),
		Rejected:       len(pts) - len(x),
		SpanS:          x[len(x)-1] - x[0],
		ResidualRMSNs:  rms / slope * 1e9,
	}
	if f.SpanS < 1 {
		return Frequency{}, fmt.Errorf("timing: calibration failed: the undisturbed points span only %.3f s", f.SpanS)
	}
	if f.UncertaintyPPM > cfg.MaxUncertaintyPPM {
		return f, fmt.Errorf("timing: calibration too noisy: uncertainty %.3g ppm exceeds %.3g ppm (residual rms %.0f ns); retry on a quieter machine or fix the frequency",
			f.UncertaintyPPM, cfg.MaxUncertaintyPPM, f.ResidualRMSNs)
	}
	return f, nil
}

// calPoint is one calibration point: the reference reading in ns, the
// counter at the midpoint of its bracket, and the bracket's width in ticks.
type calPoint struct{ x, y, width int64 }

// undisturbed returns the points whose bracket is at most three times the
// median bracket (the others were interrupted in every attempt), as seconds
// and ticks since the first point.
func undisturbed(pts []calPoint) (x, y []float64) {
	widths := make([]int64, len(pts))
	for i, p := range pts {
		widths[i] = p.width
	}
	slices.Sort(widths)
	limit := 3 * max(widths[len(widths)/2], 1)
	x = make([]float64, 0, len(pts))
	y = make([]float64, 0, len(pts))
	x0, y0 := pts[0].x, pts[0].y
	for _, p := range pts {
		if p.width > limit {
			continue
		}
		// Differences are exact in int64 and small enough to be exact in float64.
		x = append(x, float64(p.x-x0)*1e-9)
		y = append(y, float64(p.y-y0))
	}
	return x, y
}

// fitLine fits y = a + b·x by ordinary least squares on centred x and returns
// the slope b, the intercept a, the standard error of b and the root mean
// square of the residuals (n−2 degrees of freedom). len(x) must be ≥ 3.
func fitLine(x, y []float64) (b, a, seB, rms float64) {
	n := float64(len(x))
	var mx, my float64
	for i := range x {
		mx += x[i]
		my += y[i]
	}
	mx /= n
	my /= n
	var sxx, sxy float64
	for i := range x {
		dx := x[i] - mx
		sxx += dx * dx
		sxy += dx * (y[i] - my)
	}
	b = sxy / sxx
	a = my - b*mx
	var ssr float64
	for i := range x {
		r := y[i] - (a + b*x[i])
		ssr += r * r
	}
	s2 := ssr / (n - 2)
	return b, a, math.Sqrt(s2 / sxx), math.Sqrt(s2)
}
