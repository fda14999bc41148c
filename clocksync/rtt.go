package clocksync

import (
	"fmt"
	"math"
	"slices"

	"github.com/reprobench/reprobench/internal/order"
)

// RTTEstimator estimates the round-trip time of a link. Both ranks call it;
// both get the estimate in seconds.
type RTTEstimator interface {
	EstimateRTT(l *Link) (float64, error)
}

// TrimmedRTT is Compute_Rtt (Algorithm 17 of Hunold & Carpen-Amarie 2016): Warmup dummy
// ping-pongs, then PingPongs timed ones on the client; round-trip times
// outside Tukey's fences [Q1 − 1.5·IQR, Q3 + 1.5·IQR] are removed
// (Remove_Outliers) and the rest averaged. The client sends the estimate to
// the reference, so both know it.
type TrimmedRTT struct {
	Warmup    int
	PingPongs int
}

// DefaultRTT is the RTT estimator used where none is given: 10 warm-up and
// 100 timed ping-pongs.
var DefaultRTT = &TrimmedRTT{Warmup: 10, PingPongs: 100}

// EstimateRTT runs the ping-pongs; see the type's documentation.
func (e *TrimmedRTT) EstimateRTT(l *Link) (float64, error) {
	if err := l.check(); err != nil {
		return 0, err
	}
	n := max(e.PingPongs, 1)
	total := max(e.Warmup, 0) + n
	c := l.Comm
	if l.IsRef() {
		for i := 0; i < total; i++ {
			if _, err := c.RecvFloat64(l.Client, tagExchange); err != nil {
				return 0, err
			}
			if err := c.SendFloat64(l.Now(), l.Client, tagReply); err != nil {
				return 0, err
			}
		}
		return c.RecvFloat64(l.Client, tagRTT)
	}
	rtts := make([]float64, 0, n)
	for i := 0; i < total; i++ {
		s := l.Now()
		if err := c.SendFloat64(s, l.Ref, tagExchange); err != nil {
			return 0, err
		}
		if _, err := c.RecvFloat64(l.Ref, tagReply); err != nil {
			return 0, err
		}
		e := l.Now()
		if i >= total-n {
			rtts = append(rtts, e-s)
		}
	}
	rtt := trimmedMean(rtts)
	if err := c.SendFloat64(rtt, l.Ref, tagRTT); err != nil {
		return 0, err
	}
	return rtt, nil
}

// trimmedMean returns the mean of the values of x inside Tukey's fences
// [Q1 − 1.5·IQR, Q3 + 1.5·IQR], quartiles by linear interpolation (R's
// type 7). It does not modify x. It returns NaN for an empty x.
func trimmedMean(x []float64) float64 {
	if len(x) == 0 {
		return math.NaN()
	}
	s := slices.Clone(x)
	slices.Sort(s)
	q1, q3 := order.Quantile(0.25, s), order.Quantile(0.75, s)
	lo, hi := q1-1.5*(q3-q1), q3+1.5*(q3-q1)
	var sum float64
	var n int
	for _, v := range s {
		if v >= lo && v <= hi {
			sum += v
			n++
		}
	}
	return sum / float64(n)
}

// estimateRTT sets l.RTT with e (DefaultRTT if nil).
func estimateRTT(e RTTEstimator, l *Link) error {
	if e == nil {
		e = DefaultRTT
	}
	rtt, err := e.EstimateRTT(l)
	if err != nil {
		return err
	}
	if !(rtt >= 0) || math.IsInf(rtt, 0) {
		return fmt.Errorf("clocksync: link %d→%d: invalid RTT estimate %v s", l.Client, l.Ref, rtt)
	}
	l.RTT = rtt
	return nil
}
