package clocksync

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// Bound is a predicted bound on the error of a global clock: at h seconds
// after the end of the synchronization, |global time of this rank − global
// time of rank 0| ≤ AtSync + Slope·h, with the coverage of the statistical
// parts stated where the bound is computed (BoundZ standard errors).
//
// AtSync holds the intercept's uncertainty, Slope the drift's (relative
// rate, 1e-6 is 1 µs per second). A Bound that is not Known (offset-only
// algorithms learn no drift, so their error grows without a bound they could
// state) reports NaN.
type Bound struct {
	AtSync float64 `json:"bound_at_sync_s"`
	Slope  float64 `json:"bound_slope"`
	// Unknown is set when the algorithm cannot state a bound; Why says
	// why (one of the Why… constants).
	Unknown bool   `json:"bound_unknown,omitempty"`
	Why     string `json:"bound_unknown_why,omitempty"`
}

// The reasons a Bound is unknown (Bound.Why).
const (
	// WhyOffsetOnly: SKaMPI, Netgauge and HCA3O learn one offset per link
	// and no drift; their error grows with the clocks' relative drift,
	// which nothing measured.
	WhyOffsetOnly = "offset-only algorithm: no drift is learned, so the error grows with the clocks' unmeasured relative drift"
	// whyTooFewPoints: fewer than three (undisturbed) fit points, too few
	// for a standard error.
	whyTooFewPoints = "too few (undisturbed) fit points for an error estimate"
	// whyContradictory: the ping-pongs that re-measured an intercept gave
	// contradictory causality bounds.
	whyContradictory = "the intercept's ping-pongs gave contradictory bounds"
	// WhyDescheduled: ranks waited for a CPU during much of the
	// synchronization (DeschedulingRule; Result.Descheduled says which
	// and how long).
	WhyDescheduled = "ranks were descheduled during the synchronization: a rank that waits for a CPU delays one direction of the exchanges by up to a time slice, which no round-trip filter sees"
	// whyNoCausal: a link's worst-case bound (FitStats.Causal) cannot be
	// stated, because a fit point has no causality interval.
	whyNoCausal = "a fit point has no causality interval, so no worst-case bound"
)

var whyCodes = []string{"", WhyOffsetOnly, whyTooFewPoints, whyContradictory, WhyDescheduled, whyNoCausal}

// unknownCode encodes b's Unknown and Why as one number for the records
// the ranks exchange (0: known).
func (b Bound) unknownCode() float64 {
	if !b.Unknown {
		return 0
	}
	for i, w := range whyCodes {
		if i > 0 && w == b.Why {
			return float64(i)
		}
	}
	return float64(len(whyCodes)) // unknown for a reason not listed
}

// boundFrom decodes a Bound sent as AtSync, Slope, unknownCode.
func boundFrom(at, slope, code float64) Bound {
	b := Bound{AtSync: at, Slope: slope}
	if code != 0 {
		b.Unknown = true
		if i := int(code); i > 0 && i < len(whyCodes) {
			b.Why = whyCodes[i]
		}
	}
	return b
}

// unknown returns an unknown Bound for the reason why.
func unknown(why string) Bound { return Bound{Unknown: true, Why: why} }

// BoundZ is the number of standard errors in the statistical parts of a
// predicted bound. With normal errors 3 covers 99.7 %; the coverage measured
// against ground truth is in the package documentation.
const BoundZ = 3

// At returns the predicted bound h seconds after the synchronization; NaN
// for an unknown bound.
func (b Bound) At(h float64) float64 {
	if b.Unknown {
		return math.NaN()
	}
	return b.AtSync + b.Slope*math.Abs(h)
}

// String formats the bound at 0 and its growth per second.
func (b Bound) String() string {
	if b.Unknown {
		if b.Why != "" {
			return "unknown (" + b.Why + ")"
		}
		return "unknown"
	}
	return fmt.Sprintf("±%s at sync + %.4g ppm", fmtDur(b.AtSync), b.Slope*1e6)
}

// combine adds two independent bounds (a parent's and a link's) as root sum
// of squares of each part; by Minkowski's inequality the result is at least
// the root sum of squares of the two bounds at every h.
func (b Bound) combine(o Bound) Bound {
	why := b.Why
	if !b.Unknown {
		why = o.Why
	}
	return Bound{AtSync: math.Hypot(b.AtSync, o.AtSync), Slope: math.Hypot(b.Slope, o.Slope), Unknown: b.Unknown || o.Unknown, Why: why}
}

// shift moves the bound's reference time by dt seconds: the error at the new
// reference time is bounded by AtSync + Slope·|dt|.
func (b Bound) shift(dt float64) Bound {
	b.AtSync += b.Slope * math.Abs(dt)
	return b
}

// Accuracy is a target for a synchronization: every rank's predicted error
// at most Error at Horizon after the synchronization. Its text form is
// "ERROR@HORIZON" with Go durations or bare seconds, e.g. "1us@10s" or
// "500ns@2s"; both are whole nanoseconds.
type Accuracy struct {
	Error   time.Duration
	Horizon time.Duration
}

// ParseAccuracy parses "ERROR@HORIZON", e.g. "1us@10s".
func ParseAccuracy(s string) (Accuracy, error) {
	e, h, ok := strings.Cut(strings.TrimSpace(s), "@")
	if !ok {
		return Accuracy{}, fmt.Errorf("clocksync: accuracy %q: want ERROR@HORIZON, e.g. 1us@10s", s)
	}
	ev, err := parseSeconds(e)
	if err != nil || !(ev >= 0.5e-9) || ev > maxAccuracySeconds {
		return Accuracy{}, fmt.Errorf("clocksync: accuracy %q: error %q must be a positive duration (1us, 500ns)", s, e)
	}
	hv, err := parseSeconds(h)
	if err != nil || !(hv >= 0) || hv > maxAccuracySeconds {
		return Accuracy{}, fmt.Errorf("clocksync: accuracy %q: horizon %q must be a duration ≥ 0 (10s)", s, h)
	}
	return Accuracy{Error: secondsDuration(ev), Horizon: secondsDuration(hv)}, nil
}

// maxAccuracySeconds bounds the parts of an Accuracy text (a year) so that
// they convert to a time.Duration.
const maxAccuracySeconds = 365 * 24 * 3600

// secondsDuration converts float seconds to a time.Duration, rounded to the
// nanosecond.
func secondsDuration(s float64) time.Duration { return time.Duration(math.Round(s * 1e9)) }

// String returns the text form, e.g. "1µs@10s".
func (a Accuracy) String() string {
	if a.Error == 0 {
		return ""
	}
	return a.Error.String() + "@" + a.Horizon.String()
}

// IsZero reports whether no target is set.
func (a Accuracy) IsZero() bool { return a.Error == 0 }

// Met reports whether bound b meets the target.
func (a Accuracy) Met(b Bound) bool {
	return !b.Unknown && b.At(a.Horizon.Seconds()) <= a.Error.Seconds()
}

func parseSeconds(s string) (float64, error) {
	s = strings.TrimSpace(s)
	if v, err := strconv.ParseFloat(s, 64); err == nil {
		return v, nil
	}
	d, err := time.ParseDuration(s)
	if err != nil {
		return 0, err
	}
	return d.Seconds(), nil
}

func fmtDur(s float64) string {
	return time.Duration(math.Round(s * 1e9)).String()
}

// CoveredRanks counts the ranks whose true error errs[r] at h seconds after
// the synchronization is within their own predicted bound (records of
// Result.PerRank), and the ranks judged (those with a known bound).
func CoveredRanks(records []RankRecord, errs []float64, h float64) (covered, judged int) {
	for _, rr := range records {
		if rr.Rank >= len(errs) || rr.Bound.Unknown {
			continue
		}
		judged++
		if math.Abs(errs[rr.Rank]) <= rr.Bound.At(h) {
			covered++
		}
	}
	return covered, judged
}
