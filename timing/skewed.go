package timing

import (
	"math"
	"time"
)

// Skewed is a Clock that reads another clock and adds a known offset and a
// linear drift: for a base reading b (in base ticks),
//
//	Now() = b + Offset + round(b · DriftPPM·10⁻⁶)
//
// with Offset in base ticks. Freq is the base clock's: like a real drifting clock, a Skewed clock believes it ticks at its
// nominal rate. Use it in tests, and on a real machine to inject a known skew
// that clock synchronization must then find.
//
// C code cannot apply the skew, so Source reports SourceNone: the critical path
// is then driven through the Clock methods.
type Skewed struct {
	Base     Clock
	Offset   Ticks   // base ticks added to every reading
	DriftPPM float64 // rate error in parts per million; positive runs fast
}

var _ Clock = (*Skewed)(nil)

// NewSkewed returns base shifted by offset and drifting by driftPPM parts
// per million.
func NewSkewed(base Clock, offset time.Duration, driftPPM float64) *Skewed {
	return &Skewed{Base: base, Offset: base.Freq().Ticks(offset), DriftPPM: driftPPM}
}

// Now returns the skewed reading of the base clock.
func (s *Skewed) Now() Ticks { return s.Skew(s.Base.Now()) }

// Skew maps a base reading to the skewed reading.
func (s *Skewed) Skew(base Ticks) Ticks {
	return base + s.Offset + Ticks(math.Round(float64(base)*s.DriftPPM*1e-6))
}

// Unskew maps a skewed reading back to the base reading, rounded to the
// nearest tick: the inverse of Skew up to rounding.
func (s *Skewed) Unskew(skewed Ticks) Ticks {
	d := float64(skewed - s.Offset)
	return Ticks(math.Round(d / (1 + s.DriftPPM*1e-6)))
}

// Freq returns the base clock's frequency.
func (s *Skewed) Freq() Freq { return s.Base.Freq() }

// Name returns the base clock's name followed by "+skew".
func (s *Skewed) Name() string { return s.Base.Name() + "+skew" }

// Source returns SourceNone: C code cannot apply the skew. Hz is the base
// clock's.
func (s *Skewed) Source() Source { return Source{Kind: SourceNone, Hz: s.Base.Freq().Hz()} }
