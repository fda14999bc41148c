package noiseguard

import (
	"cmp"
	"math"
	"slices"
	"time"
)

// Config configures a Learner. Zero fields take the defaults noted.
type Config struct {
	// MinPeriod and MaxPeriod bound the periods searched; default 50 µs
	// and 20 ms.
	MinPeriod, MaxPeriod time.Duration
	// Width is the half-width of a source's phase window: detour ends of one
	// source lie within it of the predicted end; default 5 µs.
	Width time.Duration
	// MinEvents is the number of events a source needs; default 8.
	MinEvents int
	// MaxEvents is the number of most recent events kept; default 4096.
	MaxEvents int
	// MaxSources bounds the sources per node; default 4.
	MaxSources int
	// Memory is the time constant of the weights by which recent events
	// count more in the fit; default 1 s.
	Memory time.Duration
	// MaxBlocked bounds the share of time the sources of a node may
	// cover (the sum of duration/period): Fit keeps the sources with the
	// most events within it; default 0.15. On a loaded machine the
	// scheduler's preemptions can look periodic (at the tick, hundreds of
	// µs long), and guarding against them would cost more slots than it
	// saves observations.
	MaxBlocked float64
}

func (c Config) withDefaults() Config {
	if c.MinPeriod <= 0 {
		c.MinPeriod = 50 * time.Microsecond
	}
	if c.MaxPeriod <= 0 {
		c.MaxPeriod = 20 * time.Millisecond
	}
	if c.Width <= 0 {
		c.Width = 5 * time.Microsecond
	}
	if c.MinEvents <= 0 {
		c.MinEvents = 8
	}
	if c.MaxEvents <= 0 {
		c.MaxEvents = 4096
	}
	if c.MaxSources <= 0 {
		c.MaxSources = 4
	}
	if c.Memory <= 0 {
		c.Memory = time.Second
	}
	if c.MaxBlocked <= 0 {
		c.MaxBlocked = 0.15
	}
	return c
}

// event is one observation a detour made late: its deadline, and the time
// it started, which is when the detour ended (seconds on the learner's time
// axis, EndS ≥ DeadlineS).
type event struct {
	DeadlineS float64
	EndS      float64
}

// Source is one periodic noise source: detours [EndS + k·PeriodS −
// DurationS, EndS + k·PeriodS] for every integer k.
type Source struct {
	PeriodS float64 `json:"period_s"`
	// PhaseS is where a detour starts within the period: (EndS −
	// DurationS) mod PeriodS, in [0, PeriodS).
	PhaseS    float64 `json:"phase_s"`
	DurationS float64 `json:"duration_s"`
	// EndS is the end of one detour (the latest one observed), on the
	// learner's time axis: the anchor of the predictions.
	EndS float64 `json:"end_s"`
	// SpreadS is the root-mean-square distance of the observed ends from
	// the predicted ones.
	SpreadS float64 `json:"spread_s"`
	// Events is the number of events the source was fitted to (0 for a
	// seeded source that no fit has found yet).
	Events int `json:"events"`
	// SpanS is the time from the first to the last of those events: with
	// SpreadS it bounds how far the period may be off.
	SpanS float64 `json:"span_s"`
	// Seeded marks a source installed by Seed (and the fits that found it
	// again): Fit keeps it ahead of the learned ones.
	Seeded bool `json:"seeded,omitempty"`
}

// Shift moves the source's time axis: the same detours with dt added to
// their times (to convert a probe's clock into global time).
func (s Source) Shift(dt float64) Source {
	s.EndS += dt
	s.PhaseS = mod(s.EndS-s.DurationS, s.PeriodS)
	return s
}

// mod returns x mod p in [0, p).
func mod(x, p float64) float64 {
	r := math.Mod(x, p)
	if r < 0 {
		r += p
	}
	return r
}

// Learner learns the periodic noise sources of one node from its events.
// It is not safe for concurrent use.
type Learner struct {
	cfg     Config
	ev      []event // ring of the last MaxEvents events
	next    int
	src     []Source
	pending int
}

// NewLearner returns an empty learner.
func NewLearner(cfg Config) *Learner {
	cfg = cfg.withDefaults()
	return &Learner{cfg: cfg, ev: make([]event, 0, cfg.MaxEvents)}
}

// Add records an event: an observation with deadline deadlineS started
// at endS (late because a detour held its CPU until then).
func (l *Learner) Add(deadlineS, endS float64) {
	e := event{DeadlineS: deadlineS, EndS: max(endS, deadlineS)}
	if len(l.ev) < l.cfg.MaxEvents {
		l.ev = append(l.ev, e)
	} else {
		l.ev[l.next] = e
		l.next = (l.next + 1) % l.cfg.MaxEvents
	}
	l.pending++
}

// Pending returns the number of events added since the last Fit.
func (l *Learner) Pending() int { return l.pending }

// Seed replaces the sources with src (e.g. from "reprobench noise
// --json", shifted to the learner's time axis); sources with a
// non-positive period or duration, or a duration of half the period or
// more, are left out.
func (l *Learner) Seed(src []Source) {
	l.src = l.src[:0]
	for _, s := range src {
		if s.PeriodS > 0 && s.DurationS > 0 && s.DurationS < s.PeriodS/2 && !math.IsInf(s.EndS, 0) && !math.IsNaN(s.EndS) {
			s.Seeded = true
			l.src = append(l.src, s.Shift(0))
		}
	}
}

// Sources returns the current sources (a copy).
func (l *Learner) Sources() []Source { return slices.Clone(l.src) }

// Fit learns the sources from the events kept (see the package doc) and
// returns them. Sources found replace those they match (same period within
// 0.5 % and the same detour); sources not found again are kept.
func (l *Learner) Fit() []Source {
	l.pending = 0
	ev := slices.Clone(l.ev)
	slices.SortFunc(ev, func(a, b event) int { return cmp.Compare(a.EndS, b.EndS) })
	var found []Source
	for len(found) < l.cfg.MaxSources && len(ev) >= l.cfg.MinEvents {
		s, rest, ok := l.fitOne(ev)
		if !ok {
			break
		}
		found = append(found, s)
		ev = rest
	}
	w := l.cfg.Width.Seconds()
	for _, old := range l.src {
		matched := false
		for i, n := range found {
			if m, ok := merge(old, n, w); ok {
				found[i], matched = m, true
				break
			}
			if same(old, n, w) {
				found[i].Seeded = found[i].Seeded || old.Seeded
				// The longer detour, as in merge: a fit of recent events
				// may have seen only the tail of a detour that the guard
				// kept observations out of (a seed's 35 µs tick refitted
				// to 24 µs lost TestNoiseGuardUnderMPI/mpich its check
				// once in 120 runs with a core busy).
				if old.DurationS > found[i].DurationS {
					found[i].DurationS = old.DurationS
					found[i].PhaseS = mod(found[i].EndS-found[i].DurationS, found[i].PeriodS)
				}
				matched = true
				break
			}
		}
		if !matched {
			found = append(found, old)
		}
	}
	// Within MaxBlocked: seeded first (see the package doc), then the best
	// supported.
	slices.SortStableFunc(found, func(a, b Source) int {
		if a.Seeded != b.Seeded {
			if a.Seeded {
				return -1
			}
			return 1
		}
		return b.Events - a.Events
	})
	l.src = l.src[:0]
	covered := 0.0
	for _, s := range found {
		if f := s.DurationS / s.PeriodS; covered+f <= l.cfg.MaxBlocked {
			l.src = append(l.src, s)
			covered += f
		}
	}
	return slices.Clone(l.src)
}

// merge joins an earlier fit o of a source with a later fit n whose events
// are recent only (the guard kept the others away): when o's period
// predicts n's anchor to within three times its uncertainty plus the
// width, the number of periods between the anchors is known, and their
// distance gives the period over the whole time (much better than either
// fit alone); the duration is the larger (n may have seen only a detour's
// edge).
func merge(o, n Source, w float64) (Source, bool) {
	if o.Events == 0 || math.Abs(o.PeriodS-n.PeriodS) > 0.005*o.PeriodS || n.EndS <= o.EndS {
		return n, false
	}
	k := math.Round((n.EndS - o.EndS) / o.PeriodS)
	if k < 1 {
		return n, false
	}
	// The period's uncertainty: the spread (plus a microsecond of
	// quantization) over the cycles the old fit spanned.
	cycles := max(o.SpanS/o.PeriodS, 1)
	sigmaP := (o.SpreadS + 1e-6) / cycles
	e := n.EndS - (o.EndS + k*o.PeriodS)
	if math.Abs(e) > 3*k*sigmaP+w || math.Abs(e) > o.PeriodS/4 {
		return n, false
	}
	m := n
	m.PeriodS = (n.EndS - o.EndS) / k
	m.DurationS = max(o.DurationS, n.DurationS)
	m.Events = o.Events + n.Events
	m.SpanS = n.EndS - o.EndS + o.SpanS
	m.PhaseS = mod(m.EndS-m.DurationS, m.PeriodS)
	m.Seeded = o.Seeded || n.Seeded
	return m, true
}

// same reports whether a and b describe the same source: periods within
// 0.5 % and the detour of b nearest a's anchor overlapping a's.
func same(a, b Source, width float64) bool {
	if math.Abs(a.PeriodS-b.PeriodS) > 0.005*a.PeriodS {
		return false
	}
	d := mod(b.EndS-a.EndS+b.PeriodS/2, b.PeriodS) - b.PeriodS/2
	return math.Abs(d) <= max(a.DurationS, b.DurationS)+width
}

const (
	maxCandidates = 6
	neighbours    = 3   // later ends each end is compared with
	maxSteps      = 400 // periods tried per candidate
	maxSearch     = 256 // recent events folded per period tried
)

// fitOne finds the strongest source among ev (sorted by end) and returns
// it with the events it does not explain.
func (l *Learner) fitOne(ev []event) (Source, []event, bool) {
	minP, maxP := l.cfg.MinPeriod.Seconds(), l.cfg.MaxPeriod.Seconds()
	w := l.cfg.Width.Seconds()
	// 1. Candidate periods: the most common differences between an end
	// and the next few (the fundamental dominates them; among all pairs
	// its multiples would tie with it).
	h := w / 2 // bin width of the difference histogram
	nb := int(maxP/h) + 2
	hist := make([]int, nb)
	for i := range ev {
		for j := i + 1; j < len(ev) && j <= i+neighbours; j++ {
			if d := ev[j].EndS - ev[i].EndS; d >= minP && d <= maxP {
				hist[int(d/h)]++
			}
		}
	}
	type cand struct {
		p, sum float64
		count  int
	}
	var cands []cand
	for b := 1; b+1 < nb; b++ {
		c := hist[b-1] + hist[b] + hist[b+1]
		if c >= 3 && hist[b] >= hist[b-1] && hist[b] > hist[b+1] {
			cands = append(cands, cand{p: (float64(b) + 0.5) * h, count: c})
		}
	}
	slices.SortFunc(cands, func(a, b cand) int { return b.count - a.count })
	cands = cands[:min(len(cands), maxCandidates)]
	// The mean of the differences near each candidate is its period to a
	// fraction of the jitter.
	for i := range ev {
		for j := i + 1; j < len(ev) && j <= i+neighbours; j++ {
			d := ev[j].EndS - ev[i].EndS
			for k := range cands {
				if math.Abs(d-cands[k].p) <= 1.5*h {
					cands[k].sum += d
					cands[k].count++
				}
			}
		}
	}
	// 2. Fold the recent ends over a fine grid of periods around each.
	search := ev[max(0, len(ev)-maxSearch):]
	ref := search[len(search)-1].EndS
	off := make([]float64, len(search))
	for i, e := range search {
		off[i] = e.EndS - ref
	}
	best, bestScore, bestPhase, bestSub := 0.0, 0, 0.0, off
	cnt := make([]int, min(4096, int(maxP/w)+2))
	for _, c := range cands {
		// The mean of n differences is good to about h/√n; the grid must
		// not let the phase slip more than w/2 over the span searched.
		n0 := c.count - hist[int(c.p/h)-1] - hist[int(c.p/h)] - hist[int(c.p/h)+1]
		pc := c.sum / float64(max(n0, 1))
		if n0 < 1 {
			pc = c.p
		}
		half := 2 * h / math.Sqrt(float64(max(n0, 1)))
		lo, hi := pc-half, pc+half
		span := -off[0]
		if span*(hi-lo)/pc/(w/2) > maxSteps { // too long a span for the grid: search only the recent part
			span = maxSteps * (w / 2) * pc / (hi - lo)
		}
		first := 0
		for first < len(off) && -off[first] > span {
			first++
		}
		sub := off[first:]
		steps := max(1, int(math.Ceil(span*(hi-lo)/pc/(w/2))))
		for k := 0; k <= steps; k++ {
			p := lo + (hi-lo)*float64(k)/float64(steps)
			if p < minP || p > maxP {
				continue
			}
			score, phase := densest(sub, p, w, cnt)
			if score > bestScore || score == bestScore && p > best {
				best, bestScore, bestPhase, bestSub = p, score, phase, sub
			}
		}
	}
	// A sampling grid can hide a period behind a multiple of it (deadlines
	// every 100 µs meet a 250 µs source at one phase every 500 µs, another
	// 250 µs later): the fundamental is the submultiple that holds clearly
	// more ends beyond chance (random ends fill a shorter period's window
	// more), with ends beyond chance at each of its k phases within the
	// multiple (two sources 170 µs apart do not make a 1000/6 µs one).
	excess := func(score int, p float64) float64 { return float64(score) - float64(len(bestSub))*2*w/p }
	for k := 2; best > 0 && best/float64(k) >= minP; k++ {
		q := best / float64(k)
		score, phase := densest(bestSub, q, w, cnt)
		if excess(score, q) > 1.2*excess(bestScore, best) && everyPhase(bestSub, best, k, phase, w, excess(score, q)) {
			best, bestScore, bestPhase = best/float64(k), score, phase
			k = 1 // and again from the new period
		}
	}
	if best == 0 || bestScore < l.cfg.MinEvents {
		return Source{}, ev, false
	}
	// 3. Members cycle by cycle and a weighted least-squares fit.
	a, p := ref+bestPhase, best
	for pass := 0; pass < 3; pass++ {
		na, np, m := l.regress(ev, a, p, w)
		if m < 2 {
			break
		}
		a, p = na, np
	}
	var members, rest []event
	var ss, ws float64
	for _, e := range ev {
		r := resid(e.EndS, a, p)
		if math.Abs(r) <= w {
			members = append(members, e)
			wt := math.Exp(-(ref - e.EndS) / l.cfg.Memory.Seconds())
			ss += wt * r * r
			ws += wt
		} else {
			rest = append(rest, e)
		}
	}
	m := len(members)
	// Not more than chance: the window holds λ = n·2w/p of n random ends,
	// and the search tried hundreds of thousands of windows, so a source
	// needs well beyond λ + 6√λ; and a tenth of the events (on a loaded
	// machine thousands of random late starts make chance clusters of a
	// few percent, which would only cost slots).
	lambda := float64(len(ev)) * 2 * w / p
	if m < l.cfg.MinEvents || float64(m) < max(3*lambda+3, lambda+6*math.Sqrt(lambda)+6) || 10*m < len(ev) {
		return Source{}, ev, false
	}
	// Latenesses of one source lie densely in (0, duration]. One that
	// jumps beyond twice the largest before it and 3·Width (a CPU
	// descheduled for milliseconds whose end happened to fall at the
	// phase) is not this source's: it and the rest are left out.
	lat := make([]float64, m)
	for i, e := range members {
		lat[i] = e.EndS - e.DeadlineS
	}
	slices.Sort(lat)
	kept := 1
	for kept < m && !(lat[kept] > 2*lat[kept-1] && lat[kept]-lat[kept-1] > 3*w) {
		kept++
	}
	d := lat[kept-1] * float64(kept+1) / float64(kept)
	if d >= p/4 || d <= 0 { // a detour a quarter of its period long is no tick: the guard would skip half the slots
		return Source{}, ev, false
	}
	last := members[m-1].EndS
	end := a + math.Round((last-a)/p)*p
	s := Source{PeriodS: p, DurationS: d, EndS: end, SpreadS: math.Sqrt(ss / ws), Events: m, SpanS: last - members[0].EndS}
	s.PhaseS = mod(end-d, p)
	return s, rest, true
}

// densest folds the offsets off (seconds from the latest end) modulo p
// and returns the largest number of them in a window 2w wide, and its
// centre as an offset. cnt is scratch space.
func densest(off []float64, p, w float64, cnt []int) (int, float64) {
	nb := min(max(2, int(p/w)), len(cnt))
	bw := p / float64(nb)
	clear(cnt[:nb])
	for _, x := range off {
		b := int(fmod(x, p) / bw)
		if b >= nb {
			b = nb - 1
		}
		cnt[b]++
	}
	best, bb := 0, 0
	for b := range nb {
		if c := cnt[b] + cnt[(b+1)%nb]; c > best {
			best, bb = c, b
		}
	}
	// The centre: the mean offset of the ends in the window.
	var sum float64
	n := 0
	lo := float64(bb) * bw
	for _, x := range off {
		if y := fmod(x-lo, p); y < 2*bw {
			sum += y
			n++
		}
	}
	return best, lo + sum/float64(max(n, 1))
}

// everyPhase reports whether the offsets within w of phase modulo p/k
// fall at each of the k phases phase + j·p/k modulo p, beyond the chance
// count of random offsets by at least a tenth of excess/k at each.
func everyPhase(off []float64, p float64, k int, phase, w, excess float64) bool {
	q := p / float64(k)
	per := make([]int, k)
	for _, x := range off {
		if math.Abs(fmod(x-phase+q/2, q)-q/2) <= w {
			per[int(fmod(x-phase+q/2, p)/q)%k]++
		}
	}
	chance := float64(len(off)) * 2 * w / p
	return float64(slices.Min(per))-chance >= max(1, excess/float64(k)/10)
}

// fmod is x mod p in [0, p), faster than math.Mod.
func fmod(x, p float64) float64 {
	r := x - p*math.Floor(x/p)
	if r >= p || r < 0 {
		return 0
	}
	return r
}

// resid returns the distance of t from the nearest predicted end a + k·p,
// in (−p/2, p/2].
func resid(t, a, p float64) float64 {
	return t - a - math.Round((t-a)/p)*p
}

// regress fits end = a + k·p by weighted least squares to the events
// within w of the model (a, p) and returns the new model and the number
// of events used.
func (l *Learner) regress(ev []event, a, p, w float64) (float64, float64, int) {
	ref := ev[len(ev)-1].EndS
	tau := l.cfg.Memory.Seconds()
	var sw, sx, sy, sxx, sxy float64
	m := 0
	kmin, kmax := math.Inf(1), math.Inf(-1)
	for _, e := range ev {
		if math.Abs(resid(e.EndS, a, p)) > w {
			continue
		}
		k := math.Round((e.EndS - a) / p)
		y := e.EndS - a
		wt := math.Exp(-(ref - e.EndS) / tau)
		sw += wt
		sx += wt * k
		sy += wt * y
		sxx += wt * k * k
		sxy += wt * k * y
		kmin, kmax = min(kmin, k), max(kmax, k)
		m++
	}
	if m == 0 {
		return a, p, 0
	}
	den := sw*sxx - sx*sx
	if kmax-kmin < 2 || den <= 1e-12*sw*sxx {
		// One cycle: the phase only.
		return a + sy/sw, p, m
	}
	slope := (sw*sxy - sx*sy) / den
	icpt := (sy - slope*sx) / sw
	if math.Abs(slope-p) > 0.01*p {
		return a + sy/sw, p, m
	}
	return a + icpt, slope, m
}

// Blocked reports whether a predicted detour of some source overlaps
// [a, b], each detour widened by three times its source's spread plus half
// a microsecond; until is the end of the latest such detour.
func (l *Learner) Blocked(a, b float64) (until float64, blocked bool) {
	if l == nil {
		return a, false
	}
	until = a
	for _, s := range l.src {
		pad := 3*s.SpreadS + 0.5e-6
		// Detours k with end + pad ≥ a, as long as start − pad ≤ b.
		k := math.Ceil((a - pad - s.EndS) / s.PeriodS)
		for ; ; k++ {
			end := s.EndS + k*s.PeriodS
			start := end - s.DurationS
			if start-pad > b {
				break
			}
			if end+pad >= a {
				until, blocked = max(until, end+pad), true
			}
		}
	}
	return until, blocked
}

// MaxSkipped is how many slots in a row Schedule skips at most before it
// takes the next one anyway: a model that predicts noise everywhere must
// not stop a run. Schedule also stops skipping after two of the longest
// period (nothing is free then that a longer wait would free).
const MaxSkipped = 1000

// maxRun returns the number of slots of length step in two of the longest
// period of the learners' sources, at most MaxSkipped.
func maxRun(step float64, learners []*Learner) int {
	p := 0.0
	for _, l := range learners {
		if l != nil {
			for _, s := range l.src {
				p = max(p, s.PeriodS)
			}
		}
	}
	if step <= 0 {
		return MaxSkipped
	}
	return int(min(math.Ceil(2*p/step)+1, MaxSkipped))
}

// Schedule writes into starts the first len(starts) slots of the grid
// first + j·step (j = 0, 1, …) whose span [t − guard, t + busy] no
// predicted detour of any learner overlaps (Learner.Blocked), and returns
// the number of slots it skipped. Nil learners predict nothing. After two
// of the longest period's worth of skipped slots in a row (at most
// MaxSkipped) it takes the next slot anyway.
func Schedule(starts []float64, first, step, guard, busy float64, learners []*Learner) (skipped int) {
	limit := maxRun(step, learners)
	j := 0
	for i := range starts {
		run := 0
		for {
			t := first + float64(j)*step
			j++
			blocked := false
			if run < limit {
				for _, l := range learners {
					if _, b := l.Blocked(t-guard, t+busy); b {
						blocked = true
						break
					}
				}
			}
			if !blocked {
				starts[i] = t
				break
			}
			run++
			skipped++
		}
	}
	return skipped
}

// FromDetours fits the periodic sources of one node's detours as a noise
// probe measured them (start and length, seconds on the probe's clock):
// each detour is an event whose deadline is its start. Several CPUs of a
// node may be passed together: a rank on any of them is held by their
// detours.
func FromDetours(cfg Config, starts, lengths []float64) []Source {
	cfg = cfg.withDefaults()
	if n := len(starts); n > cfg.MaxEvents {
		cfg.MaxEvents = n
	}
	l := NewLearner(cfg)
	for i := range starts {
		l.Add(starts[i], starts[i]+lengths[i])
	}
	return l.Fit()
}
