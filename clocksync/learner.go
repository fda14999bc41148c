package clocksync

import (
	"fmt"
	"math"
)

// Learner turns offset measurements into a clock model: it says how many fit
// points a model needs, how one is measured, and how the client's points
// become a Model. Topologies drive the measurements (JK interleaves the
// fit points of all ranks; trees measure one link at a time).
// Implementations hold only parameters and may be shared by the goroutines
// of simulated ranks.
type Learner interface {
	// Points is the number of fit points per model (n_fitpts).
	Points() int
	// Measurer measures one fit point.
	Measurer() OffsetMeasurer
	// Fit computes the client's model from its fit points.
	Fit(points []Sample) (Model, FitStats)
}

// FitStats describes how a model was learned.
type FitStats struct {
	Points      int     `json:"fit_points"`
	ResidualRMS float64 `json:"fit_residual_rms_s"` // root mean square of the fit residuals, seconds
	// InterceptShift is how much re-measuring the intercept at a sync point
	// (Fig. 5 of Hunold & Carpen-Amarie 2016) moved it: new − fitted, seconds; 0 if not re-measured.
	InterceptShift float64 `json:"intercept_shift_s"`
	// SlopeSE is the standard error of the learned slope (the larger of
	// the least-squares one and a block jackknife's; see Regression).
	SlopeSE float64 `json:"slope_se"`
	// Span is the time the fit points cover, seconds on the client's clock.
	Span float64 `json:"fit_span_s"`
	// Rejected counts the fit points left out of the fit (RTT filter,
	// trimming).
	Rejected int `json:"fit_points_rejected"`
	// MinRTT is the smallest round-trip time of the exchanges kept, seconds
	// (0 when the measurer does not time its exchanges).
	MinRTT float64 `json:"min_rtt_s"`
	// ClockRead is what the bound adds for where inside their read calls
	// the link's clock readings were taken: half the sum of both ranks'
	// read steps, seconds (Spread; see readStep). 0 when not measured.
	ClockRead float64 `json:"clock_read_s,omitempty"`
	// Bound is the predicted error bound of this link alone, at client
	// (raw local) time BoundAt; the topology shifts it to the end of the
	// synchronization and adds the reference's bound.
	Bound   Bound   `json:"-"`
	BoundAt float64 `json:"-"`
	// Causal is the worst-case bound of this link alone at BoundAt, from
	// the causality intervals of its fit points (causalBound): it holds
	// however the exchanges were delayed, and is what a synchronization
	// whose ranks were descheduled states (Algorithm.SyncWith).
	Causal Bound `json:"-"`
	// BudgetExceeded is set when an accuracy target was not met within the
	// time budget (Spread).
	BudgetExceeded bool `json:"budget_exceeded,omitempty"`
	// Intra says how TwoLevel's intra-node step (intra=shared) went on a
	// rank that is not its node's leader: IntraCounter, IntraShared or
	// IntraNotShared; empty elsewhere.
	Intra string `json:"intra,omitempty"`
	// IntraCheckMiss, on a rank whose node provably reads one counter
	// (IntraCounter), is how far the offset measured to its leader was
	// from the exact one beyond the measurement's bound, seconds (measured
	// − exact; 0 when it agreed): a warning that the exchanges were
	// disturbed, which does not undo the facts.
	IntraCheckMiss float64 `json:"intra_check_miss_s,omitempty"`
}

// The outcomes of TwoLevel's check of the shared-clock assumption
// (FitStats.Intra).
const (
	// IntraCounter: the ranks of the node read one counter (same kernel,
	// clock source, frequency and skews), so the rank's offset to its
	// leader is the difference of their epochs, exact to a tick; the rank
	// takes its leader's model. A measured offset is compared with it, and
	// a disagreement is recorded (IntraCheckMiss), never acted on.
	IntraCounter = "shared counter (offset exact, checked)"
	// IntraShared: the rank's offset to its leader's clock did not move
	// between two measurements taken before and after the leaders'
	// synchronization (within their bounds); the rank takes its leader's
	// model with that offset.
	IntraShared = "shared clock (offset checked)"
	// IntraNotShared: the offset moved; the ranks of the node learned
	// their drift against the leader (Spread, or the fixed-count
	// regression) instead.
	IntraNotShared = "clock not shared: synchronized to the leader"
	// intraAsserted: the user stated that the ranks of the node share the
	// leader's clock (spec intra=asserted); the rank's offset to its
	// leader was measured once and no check can undo it.
	intraAsserted = "shared clock (asserted by the user, offset measured)"
)

func intraCode(s string) float64 {
	switch s {
	case IntraShared:
		return 1
	case IntraNotShared:
		return 2
	case IntraCounter:
		return 3
	case intraAsserted:
		return 4
	}
	return 0
}

func intraFrom(v float64) string {
	switch v {
	case 1:
		return IntraShared
	case 2:
		return IntraNotShared
	case 3:
		return IntraCounter
	case 4:
		return intraAsserted
	}
	return ""
}

// Regression learns the clock drift: FitPoints offset measurements, then an
// ordinary least-squares line through them on centred x (Linear_Fit of
// Algorithms 4 and 15). With JKPingPong it is the model of Jones and Koenig
// and of HCA (n_fitpts × n_exchanges).
//
// With Trim > 0 the fit is refitted once without the points whose residual
// exceeds Trim robust standard deviations (1.4826·MAD of the residuals): a
// burst of disturbed fit points (a rank descheduled on a loaded machine)
// then cannot tilt the line. At most half the points are dropped.
//
// Its FitStats carry the slope's standard error and the link's predicted
// bound at the last fit point: BoundZ standard errors of the line there and
// of the slope (see fitLine for how the errors are estimated). The bound
// assumes the fit points are unbiased offsets; JK's RTT/2 correction is not
// (Hunold & Carpen-Amarie 2016's intercept re-measurement, ComputeAndSetIntercept, replaces
// the intercept and its bound).
type Regression struct {
	FitPoints int
	Offset    OffsetMeasurer
	Trim      float64
}

// Points returns FitPoints.
func (r *Regression) Points() int { return r.FitPoints }

// Measurer returns Offset.
func (r *Regression) Measurer() OffsetMeasurer { return r.Offset }

// Fit fits offset = slope·local + intercept.
func (r *Regression) Fit(points []Sample) (Model, FitStats) {
	x := make([]float64, len(points))
	y := make([]float64, len(points))
	for i, p := range points {
		x[i], y[i] = p.Local, p.Offset
	}
	f, dropped, kept := trimmedFit(x, y, r.Trim)
	st := f.stats(x, dropped)
	st.Causal = keptCausal(points, kept, f.Slope, st.BoundAt)
	return Model{Slope: f.Slope, Intercept: f.Intercept}, st
}

// keptCausal returns the worst-case bound (causalBound) of a line of slope
// fitted through the points of index kept, at end: each point's error is
// its causality interval's half-width (Sample.Bound) plus what the fitted
// drift moves the offset within its round trip (|slope|·RTT; the interval
// is read at one end of the exchange).
func keptCausal(points []Sample, kept []int, slope, end float64) Bound {
	x := make([]float64, len(kept))
	e := make([]float64, len(kept))
	for j, i := range kept {
		x[j], e[j] = points[i].Local, points[i].Bound+math.Abs(slope)*points[i].RTT
		if !(points[i].Bound > 0) {
			e[j] = 0
		}
	}
	return causalBound(x, e, end)
}

// stats returns the FitStats of fit f over the points at local times x
// (all of them, kept or not), dropped of which were left out; the bound
// refers to the last point.
func (f lineFit) stats(x []float64, dropped int) FitStats {
	end := x[len(x)-1]
	for _, v := range x {
		end = max(end, v)
	}
	st := FitStats{Points: f.N, ResidualRMS: f.RMS, SlopeSE: f.SlopeSE, Span: f.Span, Rejected: dropped,
		Bound: Bound{AtSync: BoundZ * f.at(end), Slope: BoundZ * f.SlopeSE}, BoundAt: end}
	if f.N < 3 || math.IsInf(st.Bound.Slope, 0) || math.IsNaN(st.Bound.Slope) || math.IsInf(st.Bound.AtSync, 0) || math.IsNaN(st.Bound.AtSync) {
		// Too few points for an error estimate.
		st.SlopeSE, st.Bound = 0, unknown(whyTooFewPoints)
	}
	return st
}

// SlopeWander and SlopeWanderRTT are the systematic part of a fitted
// slope's bound: (SlopeWander + SlopeWanderRTT·RTT)/span on the slope
// error, for a fit of span seconds over a link whose smallest round trip
// is RTT, that no fit sees. The bias of an offset measurement —
// the difference of the two one-way delays, and where inside their read
// calls the clocks were read — is not constant: it moves with the
// machine's state (fast and slow phases, caches, the other processes, a
// network stack's queues) on time scales as long as the fit itself, and a
// bias that moves by δ over a fit of span S tilts the line by up to about
// δ/S, which residuals and a block jackknife cannot tell from drift.
//
// The values were calibrated against the true error of real links with
// bench/clocksync/calib (fit points recorded with their exact true offsets
// on one host and across the virtual cluster's nodes, replayed offline
// with the learner's stopping rule): 40 ns covers the links of one host
// (RTT up to about 0.8 µs), 5 % of the RTT the links across nodes. The
// term is the larger of the two, not their sum, so that one host still
// meets 1 µs@10s within its budget. docs/clock-sync.md ("Bounds and
// accuracy targets") gives the calibration's numbers and where its
// records are kept.
// The same terms apply to the fixed-count Regression, whose offsets (JK's
// RTT/2-corrected median exchange) wander more; they were not calibrated
// for it.
const (
	SlopeWander    = 40e-9 // seconds
	SlopeWanderRTT = 0.05  // of the smallest RTT
)

// SlopeWanderTerm is the systematic part of a fitted slope's bound, times
// the fit's span, on a link whose smallest RTT is rtt (seconds; 0:
// unknown): the larger of SlopeWander and SlopeWanderRTT·rtt.
func SlopeWanderTerm(rtt float64) float64 {
	return max(SlopeWander, SlopeWanderRTT*rtt)
}

// OffsetOnly learns no drift: one offset measurement gives a model with slope
// 0 and the measured offset as intercept (SKaMPI, Netgauge, HCA3O).
type OffsetOnly struct {
	Offset OffsetMeasurer
}

// Points returns 1.
func (o *OffsetOnly) Points() int { return 1 }

// Measurer returns Offset.
func (o *OffsetOnly) Measurer() OffsetMeasurer { return o.Offset }

// Fit returns the model of the mean offset, slope 0. Its bound is unknown
// (no drift is learned); AtSync holds the largest bound of the samples
// (SKaMPI's interval), which holds for a clock shared with the reference.
func (o *OffsetOnly) Fit(points []Sample) (Model, FitStats) {
	var sum, b, at float64
	for _, p := range points {
		sum += p.Offset
		b = max(b, p.Bound)
		at = max(at, p.Local)
	}
	return Model{Intercept: sum / float64(len(points))}, FitStats{Points: len(points),
		Bound: Bound{AtSync: b, Unknown: true, Why: WhyOffsetOnly}, BoundAt: at}
}

// LearnModel learns the client's model relative to the reference of l
// (Learn_Model of Algorithm 15, Learn_Model_HCA of Algorithm 4): Prepare,
// then L.Points() measurements, then the fit. Both ranks call it; the
// reference gets the zero Model.
func LearnModel(l *Link, L Learner) (Model, FitStats, error) {
	if err := l.check(); err != nil {
		return Model{}, FitStats{}, err
	}
	if sp, ok := L.(*Spread); ok {
		return sp.learn(l)
	}
	n := L.Points()
	if n < 1 {
		return Model{}, FitStats{}, fmt.Errorf("clocksync: learner needs %d fit points", n)
	}
	m := L.Measurer()
	if err := m.Prepare(l); err != nil {
		return Model{}, FitStats{}, err
	}
	var pts []Sample
	if l.IsClient() {
		pts = make([]Sample, 0, n)
	}
	for i := 0; i < n; i++ {
		s, err := m.MeasureOffset(l)
		if err != nil {
			return Model{}, FitStats{}, err
		}
		if l.IsClient() {
			pts = append(pts, s)
		}
	}
	if !l.IsClient() {
		return Model{}, FitStats{}, nil
	}
	lm, st := L.Fit(pts)
	st.addSystematic(l.RTT, false)
	return lm, st, nil
}

// addSystematic widens a fitted bound by what no fit sees on a link whose
// RTT estimate is rtt (0: unknown): asymmetryShare of it at the sync (JK's
// RTT/2 correction uses the mean RTT, not the kept exchange's, and no fit
// sees a constant asymmetry of the two directions), and the bias's wander
// on the slope, SlopeWanderTerm(rtt)/span. With ideal set (links without
// asymmetry or wander: Spread.IdealLinks) it adds nothing.
func (st *FitStats) addSystematic(rtt float64, ideal bool) {
	if st.Bound.Unknown {
		return
	}
	if rtt > 0 && st.MinRTT == 0 {
		st.MinRTT = rtt
	}
	if ideal {
		return
	}
	if rtt > 0 {
		st.Bound.AtSync += asymmetryShare * rtt
	}
	if st.Span > 0 {
		st.Bound.Slope += SlopeWanderTerm(rtt) / st.Span
	}
}

// ComputeAndSetIntercept re-measures the intercept of the client's model lm
// at a synchronization point (Compute_And_Set_Intercept of Algorithm 4 and
// Fig. 5 of Hunold & Carpen-Amarie 2016): keeping the learned slope, the client reads its clock
// with the drift removed, local − slope·local, while the reference reads l.Now;
// the offset m measures between the two is the new intercept. Both ranks call
// it; the client gets the model with the new intercept (and the shift in st),
// the reference gets lm unchanged. l.Now on the client must be its raw clock.
func ComputeAndSetIntercept(l *Link, lm Model, m OffsetMeasurer, st *FitStats) (Model, error) {
	if err := l.check(); err != nil {
		return lm, err
	}
	ll := *l
	if l.IsClient() {
		now, slope := l.Now, lm.Slope
		ll.Now = func() float64 {
			t := now()
			return t - slope*t
		}
	}
	if err := m.Prepare(&ll); err != nil {
		return lm, err
	}
	s, err := m.MeasureOffset(&ll)
	if err != nil {
		return lm, err
	}
	l.RTT = ll.RTT
	if !l.IsClient() {
		return lm, nil
	}
	if st != nil {
		st.InterceptShift = s.Offset - lm.Intercept
		// The re-measured intercept's error is SKaMPI's interval (a
		// bound from causality); the slope's uncertainty stays.
		if s.Bound > 0 {
			st.Bound.AtSync, st.BoundAt = s.Bound, l.Now()
			st.Causal.AtSync = s.Bound
		} else {
			st.Bound = unknown(whyContradictory)
			st.Causal = unknown(whyContradictory)
		}
	}
	lm.Intercept = s.Offset
	return lm, nil
}
