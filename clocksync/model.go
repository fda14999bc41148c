package clocksync

import (
	"fmt"
	"math"
)

// Model is a linear model of a clock relative to a reference clock, in the
// form of Algorithm 16 of Hunold & Carpen-Amarie 2016 (Get_Normalized_Time):
//
//	reference = local − (Slope·local + Intercept)
//
// Times are seconds on the respective clocks (ticks since the process's epoch
// divided by the clock's frequency). Slope is the relative drift (1e-6 is
// 1 ppm: the local clock gains 1 µs per second on the reference) and
// Intercept the offset local − reference at local time 0. The zero Model is
// the identity.
type Model struct {
	Slope     float64 `json:"slope"`
	Intercept float64 `json:"intercept_s"`
}

// Identity is the model of a clock against itself.
var Identity = Model{}

// Global maps a local time to reference time (Alg. 16):
// local − (Slope·local + Intercept).
func (m Model) Global(local float64) float64 {
	return local - (m.Slope*local + m.Intercept)
}

// Local is the inverse of Global: the local time at which the modelled clock
// reads reference time global, (global + Intercept)/(1 − Slope). The window
// engine uses it to turn a deadline in global time into local ticks. It
// returns ±Inf or NaN when Slope is 1 (a model that maps every local time to
// the same reference time cannot be inverted).
func (m Model) Local(global float64) float64 {
	return (global + m.Intercept) / (1 - m.Slope)
}

// Offset returns local − reference at local time local: Slope·local + Intercept.
func (m Model) Offset(local float64) float64 { return m.Slope*local + m.Intercept }

// Inverse returns the model of the reference clock relative to the modelled
// clock, so that m.Inverse().Global(m.Global(t)) == t up to rounding.
func (m Model) Inverse() Model {
	// local = (ref + i)/(1−s) = ref − (s'·ref + i') with 1−s' = 1/(1−s),
	// i' = −i/(1−s).
	d := 1 - m.Slope
	return Model{Slope: 1 - 1/d, Intercept: -m.Intercept / d}
}

// IsIdentity reports whether m maps every time to itself.
func (m Model) IsIdentity() bool { return m.Slope == 0 && m.Intercept == 0 }

// Valid reports whether m can be applied and inverted: finite numbers and a
// slope below 1 (a slope of 1 or more would make global time stand still or
// run backwards).
func (m Model) Valid() bool {
	return !math.IsNaN(m.Slope) && !math.IsInf(m.Slope, 0) &&
		!math.IsNaN(m.Intercept) && !math.IsInf(m.Intercept, 0) && m.Slope < 1
}

// String formats the model with the drift in ppm and the intercept in seconds.
func (m Model) String() string {
	return fmt.Sprintf("slope=%+.4fppm intercept=%+.9fs", m.Slope*1e6, m.Intercept)
}

// MergeLMs combines two models along a chain of clocks (Merge_LMs of
// Hunold & Carpen-Amarie 2016, Alg. 4, line 33): lm1 maps clock 2 to clock
// 1 (the reference's model to the root) and lm2 maps clock 3 to clock 2
// (the client's model to the reference). The result maps clock 3 straight
// to clock 1 and equals applying lm2 first, then lm1:
//
//	slope     = s1 + s2 − s1·s2
//	intercept = i1 + i2 − s1·i2
//
// This departs from the paper's Eq. 1, which derives the merge for models
// written as functions of the reference's time and so gets i1 + i2 − s2·i1;
// these models are functions of the local time (Alg. 16), for which Alg. 4's
// form is exact (docs/papers.md).
func MergeLMs(lm1, lm2 Model) Model {
	return Model{
		Slope:     lm1.Slope + lm2.Slope - lm1.Slope*lm2.Slope,
		Intercept: lm1.Intercept + lm2.Intercept - lm1.Slope*lm2.Intercept,
	}
}

// Chain merges models given inner first (the model of the local clock to the
// next clock, then that clock's model, and so on) into one model from the
// innermost clock to the outermost. Chain() is the identity.
func Chain(inner ...Model) Model {
	m := Identity
	for _, next := range inner {
		m = MergeLMs(next, m)
	}
	return m
}

// LinearFit fits y = slope·x + intercept by ordinary least squares
// (Linear_Fit of Algorithms 4 and 15). The sums are taken on centred x and y,
// so timestamps far from zero lose no precision (a fit on raw x subtracts
// nearly equal large numbers). rms is the root mean square of the residuals.
//
// With one point the slope is 0 and the intercept is y[0]; with all x equal
// the slope is 0 and the intercept is the mean of y. LinearFit panics if x
// and y differ in length or are empty.
func LinearFit(x, y []float64) (slope, intercept, rms float64) {
	if len(x) != len(y) {
		panic(fmt.Sprintf("clocksync: LinearFit: len(x)=%d != len(y)=%d", len(x), len(y)))
	}
	n := len(x)
	if n == 0 {
		panic("clocksync: LinearFit: no points")
	}
	// Centre on the first point first, so that the means themselves are
	// computed on small numbers, then on the means.
	x0, y0 := x[0], y[0]
	var mx, my float64
	for i := range x {
		mx += x[i] - x0
		my += y[i] - y0
	}
	mx /= float64(n)
	my /= float64(n)
	var sxx, sxy float64
	for i := range x {
		dx := (x[i] - x0) - mx
		dy := (y[i] - y0) - my
		sxx += dx * dx
		sxy += dx * dy
	}
	if sxx > 0 {
		slope = sxy / sxx
	}
	xbar, ybar := x0+mx, y0+my
	intercept = ybar - slope*xbar
	var ss float64
	for i := range x {
		r := (y[i] - y0) - my - slope*((x[i]-x0)-mx)
		ss += r * r
	}
	rms = math.Sqrt(ss / float64(n))
	return slope, intercept, rms
}
