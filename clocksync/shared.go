package clocksync

import (
	"math"
	"slices"
)

// SharedClock learns the offset of a rank's raw clock to its node leader's
// when both read one hardware clock (the ranks of one node: TwoLevel's
// intra-node step, spec key intra=shared). It learns no drift, because
// one clock has none against itself; TwoLevel checks that assumption at
// run time (see TwoLevel).
//
// An offset is Exchanges ping-pongs: each gives the midpoint of the
// client's send and receive times against the reference's reply
// (Cristian), and the offset is the mean of those whose RTT is near the
// smallest (rttLimit, as Spread's fit points). Its bound is BoundZ
// standard errors of that mean, widened by Student's t for few exchanges,
// plus the clock reads (readStep, as Spread) and, unless IdealLinks, the
// asymmetry share of the smallest RTT (asymmetryShare); its slope is 0.
type SharedClock struct {
	// Exchanges per offset (default 256; 64 where TwoLevel has proven a
	// shared counter, see provenExchanges).
	Exchanges int
	// IdealLinks leaves the asymmetry share out of the bound (see
	// Spread.IdealLinks).
	IdealLinks bool
	// Asserted states that the ranks of a node share the leader's clock
	// whatever the facts (spec intra=asserted): TwoLevel measures each
	// rank's offset once and no check undoes it (IntraAsserted).
	Asserted bool
}

// provenExchanges is the default number of exchanges of TwoLevel's one
// offset where the node's ranks provably share a counter (sharedCounter):
// the offset only has to agree with the exact one within its own bound,
// which widens as the exchanges get fewer, so fewer cost no accuracy, only
// the power to see a clock that is not the one it was proven to be (such a
// clock reads off by far more than a few standard errors of 64 exchanges).
const provenExchanges = 64

// Points returns 1: one offset.
func (s *SharedClock) Points() int { return 1 }

// Measurer returns nil: SharedClock measures its own offset (TwoLevel
// calls it directly).
func (s *SharedClock) Measurer() OffsetMeasurer { return nil }

// Fit returns the model of the mean offset of points, slope 0, with the
// largest of their bounds at the sync.
func (s *SharedClock) Fit(points []Sample) (Model, FitStats) {
	var sum, b, at float64
	for _, p := range points {
		sum += p.Offset
		b = max(b, p.Bound)
		at = max(at, p.Local)
	}
	return Model{Intercept: sum / float64(len(points))}, FitStats{Points: len(points), Bound: Bound{AtSync: b}, BoundAt: at}
}

// measure measures one offset on link l; both ranks call it. The client
// gets the sample (Bound: the offset's bound), its statistics and the
// standard error of the mean (widened by Student's t; +Inf with fewer than
// three undisturbed exchanges).
func (s *SharedClock) measure(l *Link) (Sample, FitStats, float64, error) {
	c := l.Comm
	if l.IsRef() {
		if err := c.SendFloat64(readStep(l.Now), l.Client, tagReply); err != nil {
			return Sample{}, FitStats{}, 0, err
		}
		for {
			v, err := c.RecvFloat64(l.Client, tagExchange)
			if err != nil {
				return Sample{}, FitStats{}, 0, err
			}
			if v == 0 {
				return Sample{}, FitStats{}, 0, nil
			}
			if err := c.SendFloat64(l.Now(), l.Client, tagReply); err != nil {
				return Sample{}, FitStats{}, 0, err
			}
		}
	}
	// The client's clock read step is measured while the reference
	// measures its own.
	step := readStep(l.Now)
	refStep, err := c.RecvFloat64(l.Ref, tagReply)
	if err != nil {
		return Sample{}, FitStats{}, 0, err
	}
	clockRead := (refStep + step) / 2
	n := s.Exchanges
	if n <= 0 {
		n = 256
	}
	rtts := make([]float64, n)
	offs := make([]float64, n)
	var last float64
	for i := range n {
		c1 := l.Now()
		if err := c.SendFloat64(1, l.Ref, tagExchange); err != nil {
			return Sample{}, FitStats{}, 0, err
		}
		tr, err := c.RecvFloat64(l.Ref, tagReply)
		if err != nil {
			return Sample{}, FitStats{}, 0, err
		}
		c2 := l.Now()
		rtts[i], offs[i], last = c2-c1, (c1+c2)/2-tr, c2
	}
	if err := c.SendFloat64(0, l.Ref, tagExchange); err != nil {
		return Sample{}, FitStats{}, 0, err
	}
	sorted := slices.Clone(rtts)
	slices.Sort(sorted)
	lo, med := sorted[0], sorted[(n-1)/2]
	limit := rttLimit(lo, med)
	var kept []float64
	var worst float64 // the largest RTT kept
	for i := range n {
		if rtts[i] <= limit {
			kept = append(kept, offs[i])
			worst = max(worst, rtts[i])
		}
	}
	var mean float64
	for _, v := range kept {
		mean += v
	}
	k := len(kept)
	mean /= float64(k)
	// One offset: one fit point (the exchanges left out are Rejected).
	st := FitStats{Points: 1, Rejected: n - k, MinRTT: lo, ClockRead: clockRead, BoundAt: last}
	if k < 3 {
		// Too few undisturbed exchanges: the fastest one's causality
		// interval, half its RTT.
		i := slices.Index(rtts, lo)
		st.Bound = Bound{AtSync: lo/2 + clockRead}
		st.Causal = st.Bound
		return Sample{Local: last, Offset: offs[i], Bound: st.Bound.AtSync, RTT: lo}, st, math.Inf(1), nil
	}
	var ss float64
	for _, v := range kept {
		ss += (v - mean) * (v - mean)
	}
	sd := math.Sqrt(ss / float64(k-1))
	st.ResidualRMS = sd
	se := sd / math.Sqrt(float64(k)) * tQuantile(k-1) / BoundZ
	b := BoundZ*se + clockRead
	if !s.IdealLinks {
		b += asymmetryShare * lo
	}
	st.Bound = Bound{AtSync: b}
	// Each kept offset errs by at most half its RTT (causality), and so
	// does their mean by at most half the largest; slope 0 (one clock).
	st.Causal = Bound{AtSync: worst/2 + clockRead}
	return Sample{Local: last, Offset: mean, Bound: b, RTT: lo}, st, se, nil
}

// sharedOffsets runs SharedClock.measure from every rank of node to its
// rank 0, one rank after the other; rank 0 gets the zero Sample.
func (s *SharedClock) sharedOffsets(e *Env) (Sample, FitStats, float64, error) {
	c := e.Comm
	if c.Rank() == 0 {
		for r := 1; r < c.Size(); r++ {
			l := Link{Comm: c, Ref: 0, Client: r, Now: e.Now}
			if _, _, _, err := s.measure(&l); err != nil {
				return Sample{}, FitStats{}, 0, err
			}
		}
		return Sample{}, FitStats{}, 0, nil
	}
	l := Link{Comm: c, Ref: 0, Client: c.Rank(), Now: e.Now}
	return s.measure(&l)
}
