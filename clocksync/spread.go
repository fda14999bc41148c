package clocksync

import (
	"cmp"
	"fmt"
	"math"
	"math/bits"
	"slices"
	"time"
)

// Spread learns a link's model to an accuracy target instead of a fixed
// number of fit points. It replaces the inner loop of
// Learn_Model_HCA (Algorithm 4 of Hunold & Carpen-Amarie 2016) and JK's median exchange
// (Algorithm 15):
//
//   - A fit point is a burst of Burst exchanges; the client keeps the one
//     with the smallest round-trip time and takes the midpoint of its own
//     send and receive times against the reference's reply (Cristian; the
//     exchange's own RTT, not the mean RTT of Alg. 17, so no RTT/2 bias).
//     An exchange during which either rank was descheduled has a long RTT
//     and is not kept.
//   - Fit points are spread in time, one per Interval, so the line's span
//     grows with the time spent, not with the message count (the slope's
//     error falls as span^(−3/2) for a given interval). On real ranks
//     (Link.Sleep nil) the client keeps exchanging through the interval and
//     keeps the fastest exchange of it — no wake-up from the scheduler is
//     needed, and a loaded machine leaves it every chance of an undisturbed
//     exchange; in simulation it sleeps between bursts of Burst exchanges.
//   - A burst whose best RTT exceeds twice the smallest so far (+100 ns) is
//     repeated at once (up to 20 times). Fit points whose RTT is far from
//     the smallest (more than twice the median's distance from the minimum
//     plus 50 ns, or more than twice the minimum plus 100 ns) are dropped; the line
//     is then fitted by least squares, refitted once without points beyond
//     Trim robust standard deviations (default 3). With fewer than three
//     points left (a machine too loaded to exchange undisturbed) the line
//     is fitted through the fastest quarter of the points (of at least 12;
//     with fewer, the offset only) and the bound is unknown (Bound.Why
//     says so).
//   - Every 16 fit points (after MinPoints) the client predicts the link's
//     error bound at the target horizon (fitLine: BoundZ standard errors,
//     the larger of least squares' and a block jackknife's) and stops when
//     it meets the link's share of Target, or when the link's share of
//     Budget is used up (then FitStats.BudgetExceeded is set).
//
// In a tree of P ranks (TopDownTree, TwoLevel's leaders) a rank's error is
// the sum of ⌈log2 P⌉ links' errors at most; each link gets Target.Error /
// sqrt(⌈log2 P⌉) (the links' errors are independent; Bound.combine adds them
// as root sum of squares) and 85 % of Budget / ⌈log2 P⌉ of the time. In
// JK's linear scheme (Linear) every rank learns against rank 0 directly,
// one after the other: each link gets the whole Target.Error and 85 % of
// Budget / (P − 1).
//
// Both ranks call it through LearnModel; the reference answers until the
// client says stop.
type Spread struct {
	Target Accuracy
	// Budget is the time the whole synchronization may take (default:
	// 1 s per round of the tree, ⌈log2 P⌉ s; 1 s on 2 ranks), so that a
	// link of any tree learns for as long as on 2 ranks.
	Budget time.Duration
	// Burst is the number of exchanges per fit point (default 10).
	Burst int
	// Interval is the pause between bursts (default: the link's budget /
	// 400, at least 100 µs).
	Interval time.Duration
	// MinPoints is the fewest fit points before the target may stop the
	// learning (default 48).
	MinPoints int
	// Trim is the robust refit threshold in standard deviations (0 means 3;
	// negative disables it).
	Trim float64
	// MaxPoints caps the fit points (default 4000).
	MaxPoints int
	// NoRTTFilter keeps every fit point whatever its RTT and never repeats
	// a burst (for measuring what the filter is worth).
	NoRTTFilter bool
	// IdealLinks leaves the systematic terms out of the bound: the share
	// of the smallest RTT for an asymmetry of the two directions and the
	// slope's SlopeWanderTerm. They were calibrated on real machines,
	// whose message paths have both; a simulation whose links have
	// neither (mpitest without Latency.Asymmetry or clock wander) may set
	// it, and its bound is then the statistical part alone (BoundZ
	// standard errors) plus the clock reads. Spec key bias=none.
	IdealLinks bool
	// Record, when set, is called on the client of every link with all its
	// fit points (kept or not, in time order; Sample.RTT set) before the
	// final fit. bench/clocksync/calib replays the learner on them
	// against the true offsets; Fit refits any prefix of them.
	Record func(points []Sample)
}

// Points returns 0: the count is decided while learning.
func (s *Spread) Points() int { return 0 }

// Measurer returns nil: Spread measures its own fit points (LearnModel
// calls it directly).
func (s *Spread) Measurer() OffsetMeasurer { return nil }

// params returns the learner's settings for a link of a synchronization
// of p ranks that runs serial links one after the other, path of which
// add up to a rank's error (0: a tree's ⌈log2 p⌉ each).
func (s *Spread) params(p, serial, path int) (rounds int, budget, interval, share float64, burst, minPts, maxPts int, trim float64) {
	rounds = max(bits.Len(uint(p-1)), 1)
	budget = s.Budget.Seconds()
	if budget <= 0 {
		budget = float64(rounds)
	}
	if serial <= 0 {
		serial = rounds
	}
	if path <= 0 {
		path = rounds
	}
	rounds = serial
	// 85 % of the share: the sync also barriers, gathers and stops the
	// links, and a descheduled rank overshoots its deadline.
	budget *= 0.85 / float64(rounds)
	interval = s.Interval.Seconds()
	if interval <= 0 {
		interval = max(budget/400, 100e-6)
	}
	share = 1 / math.Sqrt(float64(path))
	burst = s.Burst
	if burst <= 0 {
		burst = 10
	}
	minPts = s.MinPoints
	if minPts <= 0 {
		minPts = 48
	}
	maxPts = s.MaxPoints
	if maxPts <= 0 {
		maxPts = 4000
	}
	trim = s.Trim
	if trim == 0 {
		trim = 3
	}
	return
}

// Fit fits the points (with Sample.RTT set) as described in the type's
// documentation.
func (s *Spread) Fit(points []Sample) (Model, FitStats) {
	_, _, _, _, _, _, _, trim := s.params(2, 0, 0)
	f, st := spreadFit(points, trim, !s.NoRTTFilter, s.IdealLinks)
	return Model{Slope: f.Slope, Intercept: f.Intercept}, st
}

// asymmetryShare is the part of the smallest RTT that a link's bound adds
// for what no ping-pong can see: a constant difference between the two
// one-way delays (code paths of send and receive, clock reads) biases every
// fit point alike. Measured on this project's VM, the true error
// right after the sync stayed below 3 % of the smallest RTT (np 2, shared
// memory, Open MPI and MPICH).
const asymmetryShare = 0.05

// readStep returns the median step between consecutive readings of now
// (0 if they never differ): the time one reading takes, or the clock's
// resolution when that is coarser. A fit point's offset (c1+c2)/2 − tr
// compares three readings, each taken at some instant inside its read
// call (a vDSO clock_gettime samples the counter somewhere between entry
// and return, and where varies from call to call), and a reading is cut
// down to a multiple of the resolution. With symmetric message paths the
// one-way delays between the readings then differ by up to the reference's
// step plus the client's, and the midpoint by half that: the offset is
// biased by at most (u_ref + u_client)/2 (Spread.learn adds it to the
// link's bound, FitStats.ClockRead). The bias is invisible to the fit: the
// fastest exchanges of one run share it, so it does not show in the
// residuals. It is the term the bound lacked on real ranks: a
// C ping-pong through shared memory between the two vCPUs of this
// project's VM, fastest of 200 000 exchanges, moved by −4.5 to −23 ns from
// run to run with a 20–25 ns clock read; reprobench's own runs erred by
// up to 8 % of the smallest RTT right after sync, beyond the 5 % share.
func readStep(now func() float64) float64 {
	const n = 128
	var d [n]float64
	k := 0
	prev := now()
	for range n {
		t := now()
		if t > prev {
			d[k] = t - prev
			k++
		}
		prev = t
	}
	if k == 0 {
		return 0
	}
	slices.Sort(d[:k])
	return d[k/2]
}

// rttLimit returns the largest RTT a fit point may have to be kept, given
// the smallest seen, lo, and the median, med: near the minimum (within twice
// the median's distance from it plus 50 ns), and never above 2·lo + 100 ns —
// a point whose best exchange took twice the fastest one was disturbed.
func rttLimit(lo, med float64) float64 {
	return min(med+(med-lo)+50e-9, 2*lo+100e-9)
}

// spreadFit filters by RTT and fits; st.Bound refers to the last point.
// ideal leaves the systematic terms out of the bound (addSystematic).
func spreadFit(points []Sample, trim float64, filter, ideal bool) (lineFit, FitStats) {
	rtts := make([]float64, len(points))
	for i, p := range points {
		rtts[i] = p.RTT
	}
	slices.Sort(rtts)
	lo, med := rtts[0], rtts[(len(rtts)-1)/2]
	limit := rttLimit(lo, med)
	if !filter {
		limit = math.Inf(1)
	}
	x := make([]float64, 0, len(points))
	y := make([]float64, 0, len(points))
	all := make([]float64, len(points))
	var use []int // the index in points of each of x
	for i, p := range points {
		all[i] = p.Local
		if p.RTT <= limit {
			x, y, use = append(x, p.Local), append(y, p.Offset), append(use, i)
		}
	}
	noBound := false
	if len(x) < 3 && len(points) >= 12 {
		// Fewer than three undisturbed points (a machine too loaded to
		// exchange undisturbed within the budget): no bound can be
		// stated, but the drift can still be learned roughly from the
		// fastest quarter of the points (of at least 12), which a trimmed
		// fit keeps away from the worst; a clock offset only would leave the
		// whole drift in place (100 ppm is 200 µs after 2 s).
		k := max(3, len(points)/4)
		idx := make([]int, len(points))
		for i := range idx {
			idx[i] = i
		}
		slices.SortStableFunc(idx, func(a, b int) int { return cmp.Compare(points[a].RTT, points[b].RTT) })
		slices.Sort(idx[:k])
		x, y, use = x[:0], y[:0], use[:0]
		for _, i := range idx[:k] {
			x, y, use = append(x, points[i].Local), append(y, points[i].Offset), append(use, i)
		}
		noBound = true
	}
	tr := max(trim, 0)
	if noBound {
		tr = max(trim, 3)
	}
	f, dropped, kept := trimmedFit(x, y, tr)
	if len(x) < 3 {
		// Two points a few µs apart can give any slope: with fewer than
		// three points learn the offset only; the bound is unknown. (The
		// point with the smallest RTT is always kept: y is not empty.)
		var sum float64
		for _, v := range y {
			sum += v
		}
		f = lineFit{Intercept: sum / float64(len(y)), N: len(y)}
	}
	st := f.stats(all, dropped+len(points)-len(x))
	for j, i := range kept {
		kept[j] = use[i]
	}
	// The worst-case bound holds whichever points were kept, also when
	// too few were undisturbed for the statistical one.
	st.Causal = keptCausal(points, kept, f.Slope, st.BoundAt)
	if noBound {
		st.SlopeSE, st.Bound = 0, unknown(whyTooFewPoints)
	}
	st.MinRTT = lo
	st.addSystematic(lo, ideal)
	return f, st
}

// learn runs the link on both ranks.
func (s *Spread) learn(l *Link) (Model, FitStats, error) {
	c := l.Comm
	if l.IsRef() {
		// The client's bound needs this rank's read step; it comes first,
		// before any exchange (same tag, so it cannot be overtaken).
		if err := c.SendFloat64(readStep(l.Now), l.Client, tagReply); err != nil {
			return Model{}, FitStats{}, err
		}
		for {
			v, err := c.RecvFloat64(l.Client, tagExchange)
			if err != nil {
				return Model{}, FitStats{}, err
			}
			if v == 0 {
				return Model{}, FitStats{}, nil
			}
			if err := c.SendFloat64(l.Now(), l.Client, tagReply); err != nil {
				return Model{}, FitStats{}, err
			}
		}
	}
	rounds, budget, interval, share, burst, minPts, maxPts, trim := s.params(c.Size(), l.serial, l.path)
	// With a Sleep (simulation) the client sleeps between bursts; without
	// one (real ranks) it keeps exchanging until the interval is over and
	// keeps the fastest exchange of the whole interval: a rank that waits
	// by exchanging needs no wake-up from the scheduler, and on a loaded
	// machine each fit point gets every chance of an undisturbed exchange.
	sleep, spin := l.Sleep, l.Sleep == nil
	refStep, err := c.RecvFloat64(l.Ref, tagReply)
	if err != nil {
		return Model{}, FitStats{}, err
	}
	clockRead := (refStep + readStep(l.Now)) / 2
	horizon := s.Target.Horizon.Seconds() + budget*float64(rounds-1)
	goal := s.Target.Error.Seconds() * share
	// The clock starts with the first reply: until then the reference
	// may still be busy with its own links.
	start := math.Inf(1)
	var pts []Sample
	minRTT, retries := math.Inf(1), 0
	var f lineFit
	var st FitStats
	met := s.Target.IsZero()
	stopAt := 0
	for len(pts) < maxPts {
		best := Sample{RTT: math.Inf(1)}
		t0 := l.Now()
		for k := 1; ; k++ {
			c1 := l.Now()
			if err := c.SendFloat64(1, l.Ref, tagExchange); err != nil {
				return Model{}, FitStats{}, err
			}
			tr, err := c.RecvFloat64(l.Ref, tagReply)
			if err != nil {
				return Model{}, FitStats{}, err
			}
			c2 := l.Now()
			if rtt := c2 - c1; rtt < best.RTT {
				mid := (c1 + c2) / 2
				best = Sample{Local: mid, Offset: mid - tr, Bound: rtt / 2, RTT: rtt}
			}
			start = min(start, c2)
			if c2-start >= budget || (k >= burst && (!spin || c2-t0 >= interval)) {
				break
			}
		}
		elapsed := l.Now() - start
		if !s.NoRTTFilter && best.RTT > 2*minRTT+100e-9 && retries < 20 && elapsed < budget/2 {
			// Disturbed (a rank was descheduled during every exchange
			// of the burst): measure again at once, in the first half of
			// the budget only, so that a rank that loses its CPU on every
			// exchange still gathers the points of a worst-case bound
			// (causalBound) in the second half.
			retries++
			continue
		}
		retries = 0
		minRTT = min(minRTT, best.RTT)
		pts = append(pts, best)
		elapsed = l.Now() - start
		n := len(pts)
		if n >= minPts && (n%16 == 0 || elapsed >= budget) && !met {
			f, st = spreadFit(pts, trim, !s.NoRTTFilter, s.IdealLinks)
			if st.Bound.At(horizon)+clockRead <= goal {
				// Stopping when the bound first meets the goal favours
				// fits whose error looks small; the learner goes on for
				// a third more points and stops if the bound then still
				// meets it, so that the bound it states is not the one
				// that chose the stop.
				met, stopAt = true, n+n/3
			}
		}
		if met && !s.Target.IsZero() && n >= stopAt {
			f, st = spreadFit(pts, trim, !s.NoRTTFilter, s.IdealLinks)
			if st.Bound.At(horizon)+clockRead <= goal {
				break
			}
			// The bound no longer meets the goal: learn on.
			met = false
		}
		if elapsed >= budget {
			break
		}
		if !spin {
			sleep(time.Duration(interval * 1e9))
		}
	}
	if err := c.SendFloat64(0, l.Ref, tagExchange); err != nil {
		return Model{}, FitStats{}, err
	}
	if s.Record != nil {
		s.Record(pts)
	}
	f, st = spreadFit(pts, trim, !s.NoRTTFilter, s.IdealLinks)
	st.ClockRead = clockRead
	if !st.Bound.Unknown {
		st.Bound.AtSync += st.ClockRead
	}
	st.Causal.AtSync += st.ClockRead // a reading is cut down to the resolution
	st.BudgetExceeded = !met && !s.Target.IsZero()
	return Model{Slope: f.Slope, Intercept: f.Intercept}, st, nil
}

// String describes the learner's parameters.
func (s *Spread) String() string {
	return fmt.Sprintf("spread(target %v, budget %gs, burst %d)", s.Target, s.Budget.Seconds(), s.Burst)
}
