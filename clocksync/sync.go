package clocksync

import (
	"fmt"
	"runtime"
	"time"

	"github.com/reprobench/reprobench/mpi"
	"github.com/reprobench/reprobench/timing"
)

// Algorithm is a clock synchronization algorithm: a Topology driving a
// Learner. The named algorithms of Hunold & Carpen-Amarie 2016 come from ParseSpec / Spec.New;
// other combinations can be built directly. An Algorithm holds only
// parameters and may be shared by the goroutines of simulated ranks.
type Algorithm struct {
	Name     string // recorded in the Result; a Spec's String for named algorithms
	Topology Topology
	Learner  Learner
}

// Result records what a synchronization cost and what it found. Every rank
// gets its own; rank 0's also holds the totals and every rank's record, for
// the experiment's metadata.
type Result struct {
	Algorithm string `json:"algorithm"`
	Ranks     int    `json:"ranks"`
	// Duration is the synchronization's duration on the calling rank's raw
	// clock, seconds, from the barrier that opens it to the one that closes
	// it; on rank 0 the maximum over all ranks (Algorithm 22 of Hunold &
	// Carpen-Amarie 2016).
	Duration float64 `json:"sync_duration_s"`
	// MessagesSent counts the point-to-point messages the calling rank sent;
	// Messages is the total over all ranks, on rank 0 only.
	MessagesSent int64 `json:"messages_sent"`
	Messages     int64 `json:"messages,omitempty"`
	// CollectiveCalls counts the collective operations the calling rank
	// entered (barriers, broadcasts, …).
	CollectiveCalls int64 `json:"collective_calls"`
	// Model is the calling rank's model from its raw clock to global time
	// (the chain merged), Fit how it was learned.
	Model Model    `json:"model"`
	Fit   FitStats `json:"fit"`
	// Bound is the calling rank's predicted error bound, from the end of
	// the synchronization (Bound.At(h) h seconds later); on rank 0 the
	// largest over all ranks (the parts' maxima, which bound every
	// rank's).
	Bound Bound `json:"bound"`
	// Target is the accuracy the synchronization aimed at (zero: none);
	// TargetMet whether every rank's bound meets it (rank 0 only).
	Target    string `json:"target,omitempty"`
	TargetMet bool   `json:"target_met"`
	// BudgetExceeded counts the ranks whose learner ran out of time before
	// its target was met (rank 0 only).
	BudgetExceeded int `json:"budget_exceeded_ranks,omitempty"`
	// CPUWait is how long the calling rank waited for a CPU during the
	// synchronization and the barrier that opens it, seconds (nil where it
	// could not be measured; see SyncOptions.CPUWait), CPUWaits how many
	// times it was switched back in meanwhile.
	CPUWait  *float64 `json:"cpu_wait_s,omitempty"`
	CPUWaits int64    `json:"cpu_waits,omitempty"`
	// Descheduled, on rank 0, is set when ranks lost their CPU for so much
	// of the synchronization that its statistical bound cannot be kept
	// (DeschedulingRule); Bound is then the worst-case bound (CausalBound;
	// Descheduled.Action ActionCausal), or, where none exists, unknown
	// with WhyDescheduled (ActionWithheld). Every rank's Bound is then
	// rank 0's.
	Descheduled *Descheduling `json:"descheduled,omitempty"`
	// PerRank has one record per rank, on rank 0 only.
	PerRank []RankRecord `json:"per_rank,omitempty"`
	// RankSummary replaces PerRank in a compacted Result (Compact): the
	// per-rank records summarized over the ranks.
	RankSummary *RankSummary `json:"per_rank_summary,omitempty"`
}

// RankRecord is one rank's part of a Result.
type RankRecord struct {
	Rank int `json:"rank"`
	Model
	FitStats
	Bound           Bound   `json:"bound"`
	Duration        float64 `json:"sync_duration_s"`
	MessagesSent    int64   `json:"messages_sent"`
	CollectiveCalls int64   `json:"collective_calls"`
	// CPUWait and CPUWaits are Result's of this rank.
	CPUWait  *float64 `json:"cpu_wait_s,omitempty"`
	CPUWaits int64    `json:"cpu_waits,omitempty"`
	// Causal is the worst-case bound of this rank's own link (the one it
	// learned as a client: FitStats.Causal), from the end of the
	// synchronization; zero on rank 0.
	Causal Bound `json:"causal_bound"`
}

// Models returns every rank's merged model, indexed by rank (rank 0 only;
// nil elsewhere). TrueOffsets takes them.
func (r *Result) Models() []Model {
	if r.PerRank == nil {
		return nil
	}
	ms := make([]Model, len(r.PerRank))
	for i, rr := range r.PerRank {
		ms[i] = rr.Model
	}
	return ms
}

const recordLen = 24

// SyncOptions are per-call settings of Algorithm.SyncWith, which may differ
// between ranks (an Algorithm itself is shared).
type SyncOptions struct {
	// Sleep pauses the calling rank between the fit points of a Spread
	// learner. When nil, a simulated clock's own Sleep is used
	// (timing.SleepFunc of the global clock's base: mpitest's clocks wait
	// in virtual time, so forgetting this option never sleeps in real
	// time); a real rank then keeps exchanging through each interval
	// (see Spread).
	Sleep func(time.Duration)
	// CPUWait returns how long the calling rank has waited for a CPU so
	// far, seconds, and how many times it was switched back in, both
	// cumulative; ok false when it cannot tell. When nil: the
	// communicator's CPUWait if it is a CPUWaiter (mpitest), else, on a
	// real clock (timing.SleepFunc nil), threadCPUWait of the calling
	// thread, to which SyncWith locks itself meanwhile; a simulated clock
	// on a communicator that is not a CPUWaiter measures nothing. The
	// difference across the synchronization is Result.CPUWait, which
	// DeschedulingRule judges.
	CPUWait func() (wait time.Duration, waits int64, ok bool)
}

// Sync synchronizes g's clock with rank 0's; SyncWith with zero options.
func (a *Algorithm) Sync(c mpi.Comm, g *GlobalClock) (*Result, error) {
	return a.SyncWith(c, g, SyncOptions{})
}

// SyncWith synchronizes g's clock with rank 0's: it runs the algorithm
// collectively on c, reading g.Base(), and then atomically replaces g's
// models. Calling it again re-synchronizes (the old models stay in use until
// the new ones are complete). Rank 0's clock is the global time; its model is
// the identity.
//
// Each rank's record is gathered at rank 0 afterwards (one Gather, not
// counted in the cost).
func (a *Algorithm) SyncWith(c mpi.Comm, g *GlobalClock, o SyncOptions) (*Result, error) {
	if c == nil || g == nil {
		return nil, fmt.Errorf("clocksync: Sync needs a communicator and a global clock (NewGlobalClock)")
	}
	if a.Topology == nil || a.Learner == nil {
		return nil, fmt.Errorf("clocksync: algorithm %q needs a Topology and a Learner", a.Name)
	}
	cc := newCounter(c)
	base := g.Base()
	if o.CPUWait == nil {
		if w, ok := c.(CPUWaiter); ok {
			o.CPUWait = func() (time.Duration, int64, bool) {
				s, n := w.CPUWait()
				return s, n, true
			}
		} else if timing.SleepFunc(base) == nil {
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			o.CPUWait = threadCPUWait
		}
	}
	if o.Sleep == nil {
		o.Sleep = timing.SleepFunc(base)
	}
	now := func() float64 { return base.Freq().Seconds(base.Now()) }
	// Local reads outside the timed part: the host facts a two-level
	// synchronization checks (once per process), and the CPU wait so far.
	readHostFacts()
	var w0 time.Duration
	var n0 int64
	waitOK := o.CPUWait != nil
	if waitOK {
		w0, n0, waitOK = o.CPUWait()
	}
	if err := cc.Barrier(); err != nil {
		return nil, err
	}
	t0 := base.Now()
	src, skews := counterOf(base)
	out, err := a.Topology.Sync(&Env{Comm: cc, Now: now, Learner: a.Learner, Sleep: o.Sleep, Source: src, Skews: skews})
	if err != nil {
		return nil, fmt.Errorf("clocksync: %s: %w", a.Name, err)
	}
	// The synchronization ends for every rank at once: a rank that learned
	// early (JK's first ranks, HCA3's upper tree) has its bound shifted to
	// this common end, where Result.Bound's h = 0 is.
	if err := cc.Barrier(); err != nil {
		return nil, err
	}
	t1 := base.Now()
	cpuWait, cpuWaits := -1.0, 0.0 // not measured
	if waitOK {
		if w1, n1, ok := o.CPUWait(); ok {
			cpuWait, cpuWaits = max(w1-w0, 0).Seconds(), float64(max(n1-n0, 0))
		}
	}
	if len(out.Models) == 0 {
		out.Models = []Model{Identity}
	}
	merged := Chain(out.Models...)
	if !merged.Valid() {
		return nil, fmt.Errorf("clocksync: %s: rank %d learned an unusable model (%v)", a.Name, c.Rank(), merged)
	}
	res := &Result{
		Algorithm:       a.Name,
		Ranks:           c.Size(),
		Duration:        base.Freq().Seconds(t1 - t0),
		MessagesSent:    cc.n.sent,
		CollectiveCalls: cc.n.collectives,
		Model:           merged,
		Fit:             out.Fit,
		Bound:           out.Bound.shift(base.Freq().Seconds(t1) - out.BoundAt),
	}
	causal := out.Fit.Causal.shift(base.Freq().Seconds(t1) - out.Fit.BoundAt)
	if sp, ok := a.Learner.(*Spread); ok {
		res.Target = sp.Target.String()
	}
	if cpuWait >= 0 {
		res.CPUWait, res.CPUWaits = &cpuWait, int64(cpuWaits)
	}
	if c.Rank() == 0 {
		res.Bound = Bound{}
	}
	if res.Bound.Unknown {
		res.Bound.AtSync, res.Bound.Slope = 0, 0
	}
	rec := []float64{merged.Slope, merged.Intercept, float64(out.Fit.Points), out.Fit.ResidualRMS,
		out.Fit.InterceptShift, res.Duration, float64(res.MessagesSent), float64(res.CollectiveCalls),
		res.Bound.AtSync, res.Bound.Slope, res.Bound.unknownCode(), out.Fit.SlopeSE, out.Fit.Span,
		float64(out.Fit.Rejected), out.Fit.MinRTT, b2f(out.Fit.BudgetExceeded), out.Fit.ClockRead, intraCode(out.Fit.Intra), cpuWait, cpuWaits,
		causal.AtSync, causal.Slope, causal.unknownCode(), out.Fit.IntraCheckMiss}
	var all []float64
	if c.Rank() == 0 {
		all = make([]float64, recordLen*c.Size())
	}
	if err := mpi.Gather(c, rec, all, 0); err != nil {
		return nil, err
	}
	g.Set(out.Models...)
	if c.Rank() == 0 {
		res.PerRank = make([]RankRecord, c.Size())
		for r := range res.PerRank {
			v := all[recordLen*r : recordLen*(r+1)]
			rb := boundFrom(v[8], v[9], v[10])
			res.PerRank[r] = RankRecord{
				Rank:  r,
				Model: Model{Slope: v[0], Intercept: v[1]},
				FitStats: FitStats{Points: int(v[2]), ResidualRMS: v[3], InterceptShift: v[4],
					SlopeSE: v[11], Span: v[12], Rejected: int(v[13]), MinRTT: v[14], BudgetExceeded: v[15] != 0, ClockRead: v[16], Intra: intraFrom(v[17]),
					IntraCheckMiss: v[23]},
				Causal:          boundFrom(v[20], v[21], v[22]),
				Bound:           rb,
				Duration:        v[5],
				MessagesSent:    int64(v[6]),
				CollectiveCalls: int64(v[7]),
			}
			if v[18] >= 0 {
				w := v[18]
				res.PerRank[r].CPUWait, res.PerRank[r].CPUWaits = &w, int64(v[19])
			}
			res.Duration = max(res.Duration, v[5])
			res.Messages += int64(v[6])
			res.Bound.AtSync = max(res.Bound.AtSync, rb.AtSync)
			res.Bound.Slope = max(res.Bound.Slope, rb.Slope)
			if rb.Unknown && !res.Bound.Unknown {
				res.Bound.Unknown, res.Bound.Why = true, rb.Why
			}
			if v[15] != 0 {
				res.BudgetExceeded++
			}
		}
		if d := DeschedulingRule(res.PerRank); d != nil {
			d.Withheld = res.Bound
			res.Descheduled = d
			b := CausalBound(res.PerRank)
			if b.Unknown {
				d.Action = actionWithheld
				if !res.Bound.Unknown {
					res.Bound = unknown(WhyDescheduled)
				}
			} else {
				// The worst case, or the statistical bound where that is
				// wider (the latter is then not tight either).
				d.Action = ActionCausal
				if !res.Bound.Unknown {
					b.AtSync, b.Slope = max(b.AtSync, res.Bound.AtSync), max(b.Slope, res.Bound.Slope)
				}
				res.Bound = b
			}
			for r := range res.PerRank {
				if r != 0 {
					res.PerRank[r].Bound = res.Bound
				}
			}
		}
		if sp, ok := a.Learner.(*Spread); ok {
			res.TargetMet = sp.Target.Met(res.Bound)
		}
	}
	// Every rank states what rank 0 decided when ranks were descheduled
	// (one Bcast, not counted in the cost): a region or a window on any
	// rank then acts on the same bound.
	dec := []float64{0, 0, 0, 0}
	if c.Rank() == 0 && res.Descheduled != nil {
		dec = []float64{1, res.Bound.AtSync, res.Bound.Slope, res.Bound.unknownCode()}
	}
	if err := mpi.Bcast(c, dec, 0); err != nil {
		return nil, err
	}
	if c.Rank() != 0 && dec[0] == 1 {
		res.Bound = boundFrom(dec[1], dec[2], dec[3])
		if res.Bound.Unknown {
			res.Bound.AtSync, res.Bound.Slope = 0, 0
		}
	}
	return res, nil
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}
