package clocksync

import (
	"fmt"
	"math"
	"math/bits"
	"sync"
	"time"

	"github.com/reprobench/reprobench/mpi"
	"github.com/reprobench/reprobench/timing"
)

// Env is what a Topology works with on the calling rank.
type Env struct {
	Comm    mpi.Comm
	Now     func() float64 // the raw local clock, seconds since the process's epoch
	Learner Learner        // how one link learns a model
	// Sleep pauses the calling rank (nil: a real rank keeps exchanging,
	// see Link.Sleep); topologies hand it to their links.
	Sleep func(time.Duration)
	// Source is the counter Now's raw clock reads (timing.Clock.Source of
	// the clock under any Skews); TwoLevel proves with it that the ranks
	// of a node read one counter. The zero Source proves nothing.
	Source timing.Source
	// Skews are the timing.Skewed layers between Source's counter and
	// Now, innermost first (SyncWith unwraps them: a virtual cluster's
	// node skew, clocksync.NodeSkew); ranks read one clock only when
	// their layers are equal.
	Skews []*timing.Skewed
}

// counterOf returns the counter clk reads under its timing.Skewed layers
// (innermost first), for Env.
func counterOf(clk timing.Clock) (timing.Source, []*timing.Skewed) {
	var skews []*timing.Skewed
	for {
		s, ok := clk.(*timing.Skewed)
		if !ok || s.Base == nil {
			break
		}
		skews = append([]*timing.Skewed{s}, skews...)
		clk = s.Base
	}
	return clk.Source(), skews
}

// Outcome is what a Topology found on the calling rank.
type Outcome struct {
	// Models map the rank's raw clock to rank 0's clock, inner first
	// (usually one model; the two-level scheme chains two). Rank 0 gets
	// the identity.
	Models []Model
	// Fit describes the model this rank learned itself (zero on rank 0).
	Fit FitStats
	// Bound is the predicted bound of this rank's error against rank 0's
	// clock (its whole chain), valid at raw local time BoundAt.
	Bound   Bound
	BoundAt float64
}

// Topology decides which ranks measure against which and how the pairwise
// models combine into models relative to rank 0's clock. Sync runs
// collectively on e.Comm. Implementations hold only parameters and may be
// shared by the goroutines of simulated ranks.
type Topology interface {
	Sync(e *Env) (Outcome, error)
}

// Linear synchronizes every rank directly with rank 0, one after the other
// (SKaMPI's Compute_And_Set_Clock_Offsets, Algorithm 8, and Jones and
// Koenig's Sync_Clocks, Algorithm 15, of Hunold & Carpen-Amarie 2016). Rank 0 first prepares
// every link (JK estimates all RTTs before learning), then collects the fit
// points round-robin — fit point i of every rank before fit point i+1 — so
// each rank's fit spans the whole synchronization, as in Algorithm 15. It
// takes O(P) time.
//
// With Intercept set, each rank's intercept is re-measured afterwards with
// ComputeAndSetIntercept.
type Linear struct {
	Intercept OffsetMeasurer
}

// Sync runs the linear scheme.
func (t *Linear) Sync(e *Env) (Outcome, error) {
	c := e.Comm
	p, me := c.Size(), c.Rank()
	if p == 1 {
		return Outcome{Models: []Model{Identity}}, nil
	}
	L := e.Learner
	if sp, ok := L.(*Spread); ok {
		return t.spread(e, sp)
	}
	m := L.Measurer()
	n := L.Points()
	if n < 1 {
		return Outcome{}, fmt.Errorf("clocksync: learner needs %d fit points", n)
	}
	if me == 0 {
		links := make([]Link, p)
		for r := 1; r < p; r++ {
			links[r] = Link{Comm: c, Ref: 0, Client: r, Now: e.Now}
			if err := m.Prepare(&links[r]); err != nil {
				return Outcome{}, err
			}
		}
		for i := 0; i < n; i++ {
			for r := 1; r < p; r++ {
				if _, err := m.MeasureOffset(&links[r]); err != nil {
					return Outcome{}, err
				}
			}
		}
		if t.Intercept != nil {
			for r := 1; r < p; r++ {
				if _, err := ComputeAndSetIntercept(&links[r], Identity, t.Intercept, nil); err != nil {
					return Outcome{}, err
				}
			}
		}
		return Outcome{Models: []Model{Identity}}, nil
	}
	l := Link{Comm: c, Ref: 0, Client: me, Now: e.Now}
	if err := m.Prepare(&l); err != nil {
		return Outcome{}, err
	}
	pts := make([]Sample, 0, n)
	for i := 0; i < n; i++ {
		s, err := m.MeasureOffset(&l)
		if err != nil {
			return Outcome{}, err
		}
		pts = append(pts, s)
	}
	lm, st := L.Fit(pts)
	st.addSystematic(l.RTT, false)
	if t.Intercept != nil {
		var err error
		if lm, err = ComputeAndSetIntercept(&l, lm, t.Intercept, &st); err != nil {
			return Outcome{}, err
		}
	}
	return Outcome{Models: []Model{lm}, Fit: st, Bound: st.Bound, BoundAt: st.BoundAt}, nil
}

// spread runs the linear scheme with an accuracy target (JK with
// --clock-accuracy): rank 0 serves the ranks' Spread links one after the
// other (Sync_Clocks of Algorithm 15 without interleaving: a Spread link
// decides its own number of fit points, and spreads them over its share of
// the budget). Each rank's bound is its one link's, against rank 0.
func (t *Linear) spread(e *Env, sp *Spread) (Outcome, error) {
	c := e.Comm
	p, me := c.Size(), c.Rank()
	if t.Intercept != nil {
		return Outcome{}, fmt.Errorf("clocksync: linear scheme: an accuracy target does not combine with re-measured intercepts")
	}
	link := func(r int) Link {
		return Link{Comm: c, Ref: 0, Client: r, Now: e.Now, Sleep: e.Sleep, serial: p - 1, path: 1}
	}
	if me == 0 {
		for r := 1; r < p; r++ {
			l := link(r)
			if _, _, err := LearnModel(&l, sp); err != nil {
				return Outcome{}, err
			}
		}
		return Outcome{Models: []Model{Identity}}, nil
	}
	l := link(me)
	lm, st, err := LearnModel(&l, sp)
	if err != nil {
		return Outcome{}, err
	}
	return Outcome{Models: []Model{lm}, Fit: st, Bound: st.Bound, BoundAt: st.BoundAt}, nil
}

// InterceptMode says where a bottom-up tree takes its intercepts from.
type InterceptMode int

const (
	// FittedIntercepts keeps the intercepts of the learned models and
	// merges them up the tree (Netgauge sums its offsets this way).
	FittedIntercepts InterceptMode = iota
	// HierarchicalIntercepts re-measures each link's intercept right after
	// learning it, before merging (HCA2; hierarchical_intercepts in
	// Algorithms 2–3).
	HierarchicalIntercepts
	// RootIntercepts re-measures every rank's intercept directly against
	// rank 0 after the tree, in O(P) steps (HCA;
	// Compute_And_Set_All_Intercepts of Algorithm 3).
	RootIntercepts
)

var interceptModeNames = [...]string{"fitted", "hierarchical", "root"}

// String returns "fitted", "hierarchical" or "root".
func (m InterceptMode) String() string {
	if m < 0 || int(m) >= len(interceptModeNames) {
		return fmt.Sprintf("InterceptMode(%d)", int(m))
	}
	return interceptModeNames[m]
}

// BottomUpTree is the hierarchical scheme of Netgauge (Algorithm 11) and HCA
// (Algorithms 2–3 of Hunold & Carpen-Amarie 2016): over the largest power of two
// maxpower ≤ P, in round k = 1, 2, … rank r with r mod 2^k = 0 learns the
// model of client r + 2^(k−1) against its own raw clock, receives the
// client's subtree models and merges them (MergeLMs, Alg. 4); ranks ≥
// maxpower then learn against r − maxpower, rank 0 merges their models
// (Sync_Clocks_Remaining) and scatters the final model of every rank.
// ⌈log2 P⌉ rounds of learning.
type BottomUpTree struct {
	Intercepts InterceptMode
	// InterceptOffset measures intercepts for HierarchicalIntercepts and
	// RootIntercepts (SKaMPI's ping-pong in the paper).
	InterceptOffset OffsetMeasurer
}

// Sync runs the bottom-up tree.
func (t *BottomUpTree) Sync(e *Env) (Outcome, error) {
	c := e.Comm
	p, me := c.Size(), c.Rank()
	if p == 1 {
		return Outcome{Models: []Model{Identity}}, nil
	}
	if t.Intercepts != FittedIntercepts && t.InterceptOffset == nil {
		return Outcome{}, fmt.Errorf("clocksync: bottom-up tree with %v intercepts needs an InterceptOffset", t.Intercepts)
	}
	hier := t.Intercepts == HierarchicalIntercepts
	maxpower := 1 << (bits.Len(uint(p)) - 1)
	var own Model
	var st FitStats

	// learn runs one link of the tree on both ends and returns the client's
	// model (with its intercept re-measured for HCA2).
	learn := func(ref, client int) (Model, FitStats, error) {
		l := Link{Comm: c, Ref: ref, Client: client, Now: e.Now}
		lm, fs, err := LearnModel(&l, e.Learner)
		if err != nil || !hier {
			return lm, fs, err
		}
		lm, err = ComputeAndSetIntercept(&l, lm, t.InterceptOffset, &fs)
		return lm, fs, err
	}

	// Sync_Clocks_Pow2. sub[j] is the model of rank me+j relative to me.
	sub := []Model{Identity}
	if me < maxpower {
		for round := 1; 1<<round <= maxpower; round++ {
			step, half := 1<<round, 1<<(round-1)
			switch me % step {
			case 0:
				if _, _, err := learn(me, me+half); err != nil {
					return Outcome{}, err
				}
				buf := make([]float64, 2*half)
				if err := mpi.Recv(c, buf, me+half, tagModels); err != nil {
					return Outcome{}, err
				}
				first := Model{Slope: buf[0], Intercept: buf[1]}
				sub = append(sub, first)
				for i := 1; i < half; i++ {
					sub = append(sub, MergeLMs(first, Model{Slope: buf[2*i], Intercept: buf[2*i+1]}))
				}
			case half:
				var err error
				if own, st, err = learn(me-half, me); err != nil {
					return Outcome{}, err
				}
				buf := make([]float64, 0, 2*half)
				buf = append(buf, own.Slope, own.Intercept)
				for _, m := range sub[1:] {
					buf = append(buf, m.Slope, m.Intercept)
				}
				if err := mpi.Send(c, buf, me-half, tagModels); err != nil {
					return Outcome{}, err
				}
			}
		}
	}

	// Sync_Clocks_Remaining.
	all := make([]float64, 2*p)
	if maxpower < p {
		var rem Model
		switch {
		case me < p-maxpower:
			if _, _, err := learn(me, me+maxpower); err != nil {
				return Outcome{}, err
			}
		case me >= maxpower:
			var err error
			if rem, st, err = learn(me-maxpower, me); err != nil {
				return Outcome{}, err
			}
		}
		if err := mpi.Gather(c, []float64{rem.Slope, rem.Intercept}, all, 0); err != nil {
			return Outcome{}, err
		}
	}
	// Every rank's own link bound (it is the client of exactly one link),
	// for rank 0 to propagate along the paths.
	links := make([]float64, 4*p)
	if err := mpi.Gather(c, []float64{st.Bound.AtSync, st.Bound.Slope, st.Bound.unknownCode(), st.BoundAt}, links, 0); err != nil {
		return Outcome{}, err
	}
	// all: p final models, then p path bounds at global time all[5p].
	all = append(all, make([]float64, 3*p+1)...)
	if me == 0 {
		for q := 0; q < maxpower; q++ {
			all[2*q], all[2*q+1] = sub[q].Slope, sub[q].Intercept
		}
		for q := maxpower; q < p; q++ {
			m := MergeLMs(sub[q-maxpower], Model{Slope: all[2*q], Intercept: all[2*q+1]})
			all[2*q], all[2*q+1] = m.Slope, m.Intercept
		}
		t0 := e.Now()
		final := func(q int) Model { return Model{Slope: all[2*q], Intercept: all[2*q+1]} }
		for q := 1; q < p; q++ {
			b := bottomUpPathBound(q, maxpower, func(r int) Bound {
				l := links[4*r : 4*r+4]
				return boundFrom(l[0], l[1], l[2]).shift(t0 - final(r).Global(l[3]))
			})
			all[2*p+3*q], all[2*p+3*q+1], all[2*p+3*q+2] = b.AtSync, b.Slope, b.unknownCode()
		}
		all[5*p] = t0
	}
	// Send the final models and bounds from rank 0 to every rank.
	if err := mpi.Bcast(c, all, 0); err != nil {
		return Outcome{}, err
	}
	model := Model{Slope: all[2*me], Intercept: all[2*me+1]}
	var bnd Bound
	var bndAt float64
	if me == 0 {
		bndAt = all[5*p]
	} else {
		bnd, bndAt = boundFrom(all[2*p+3*me], all[2*p+3*me+1], all[2*p+3*me+2]), model.Local(all[5*p])
	}

	if t.Intercepts == RootIntercepts {
		// Compute_And_Set_All_Intercepts.
		if me == 0 {
			for r := 1; r < p; r++ {
				l := Link{Comm: c, Ref: 0, Client: r, Now: e.Now}
				if _, err := ComputeAndSetIntercept(&l, Identity, t.InterceptOffset, nil); err != nil {
					return Outcome{}, err
				}
			}
		} else {
			l := Link{Comm: c, Ref: 0, Client: me, Now: e.Now}
			// The path's slope bound stays; the intercept's becomes the
			// re-measurement's causality interval (ComputeAndSetIntercept).
			ist := FitStats{Bound: bnd, BoundAt: bndAt}
			var err error
			if model, err = ComputeAndSetIntercept(&l, model, t.InterceptOffset, &ist); err != nil {
				return Outcome{}, err
			}
			st.InterceptShift, bnd, bndAt = ist.InterceptShift, ist.Bound, ist.BoundAt
			// The re-measured intercept is not one link's: the links'
			// worst cases no longer add up to this rank's (CausalBound).
			st.Causal = unknown(whyNoCausal)
		}
	}
	return Outcome{Models: []Model{model}, Fit: st, Bound: bnd, BoundAt: bndAt}, nil
}

// bottomUpPathBound returns the predicted bound of rank q's merged model in
// the bottom-up tree of BottomUpTree (maxpower the largest power of two ≤
// P): the root sum of squares (Bound.combine; the links' errors are
// independent) of the bounds of the links on its path to rank 0, each
// already shifted to one reference time by link(r) for the link whose
// client is r. A merged model's offset is the sum of its links' offsets
// (MergeLMs, Alg. 4 of Hunold & Carpen-Amarie 2016, up to products of drifts, below 1e-8 of
// an offset), and so is its error. The path: q ≥ maxpower learned against
// q − maxpower; below maxpower, q learned against q with its lowest set bit
// cleared in round log2(lowbit(q)) of Sync_Clocks_Pow2 (Algorithm 3).
func bottomUpPathBound(q, maxpower int, link func(r int) Bound) Bound {
	var b Bound
	for q != 0 {
		b = b.combine(link(q))
		if q >= maxpower {
			q -= maxpower
		} else {
			q &= q - 1
		}
	}
	return b
}

// TopDownTree is the HCA3 scheme (the authors' later work, ReproMPI): over
// the largest power of two 2^k ≤ P, for i = k … 1 a parent r (r mod 2^i = 0)
// learns the model of child r + 2^(i−1) while serving its own, already
// global, clock — so the child's model maps its raw clock straight to rank
// 0's time and nothing is merged. Ranks ≥ 2^k then learn against r − 2^k.
// ⌈log2 P⌉ rounds; no final scatter.
//
// With Intercept set, each child re-measures its intercept against its
// parent's global clock right after learning (Fig. 5 of Hunold & Carpen-Amarie 2016).
type TopDownTree struct {
	Intercept OffsetMeasurer
}

// Sync runs the top-down tree. Each child also receives its parent's
// predicted bound and adds its own link's (Bound.combine): a rank's bound
// covers its whole path to rank 0.
func (t *TopDownTree) Sync(e *Env) (Outcome, error) {
	c := e.Comm
	p, me := c.Size(), c.Rank()
	model := Identity
	var st FitStats
	var bnd Bound
	var bndAt float64
	if p == 1 {
		return Outcome{Models: []Model{model}}, nil
	}
	global := func() float64 { return model.Global(e.Now()) }
	edge := func(parent, child int) error {
		var l Link
		if me == parent {
			l = Link{Comm: c, Ref: parent, Client: child, Now: global, Sleep: e.Sleep}
		} else {
			l = Link{Comm: c, Ref: parent, Client: child, Now: e.Now, Sleep: e.Sleep}
		}
		lm, fs, err := LearnModel(&l, e.Learner)
		if err != nil {
			return err
		}
		if t.Intercept != nil {
			if lm, err = ComputeAndSetIntercept(&l, lm, t.Intercept, &fs); err != nil {
				return err
			}
		}
		// The parent's bound, at global time buf[3].
		buf := make([]float64, 4)
		if me == parent {
			if me == 0 {
				bndAt = e.Now()
			}
			buf = []float64{bnd.AtSync, bnd.Slope, bnd.unknownCode(), model.Global(bndAt)}
			return mpi.Send(c, buf, child, tagBound)
		}
		if err := mpi.Recv(c, buf, parent, tagBound); err != nil {
			return err
		}
		pb := boundFrom(buf[0], buf[1], buf[2])
		model, st = lm, fs
		bnd, bndAt = pb.shift(lm.Global(fs.BoundAt)-buf[3]).combine(fs.Bound), fs.BoundAt
		return nil
	}
	k := bits.Len(uint(p)) - 1
	maxpower := 1 << k
	if me < maxpower {
		for i := k; i >= 1; i-- {
			step, half := 1<<i, 1<<(i-1)
			var err error
			switch me % step {
			case 0:
				err = edge(me, me+half)
			case half:
				err = edge(me-half, me)
			}
			if err != nil {
				return Outcome{}, err
			}
		}
	}
	var err error
	switch {
	case me < p-maxpower:
		err = edge(me, me+maxpower)
	case me >= maxpower:
		err = edge(me-maxpower, me)
	}
	if err != nil {
		return Outcome{}, err
	}
	if me == 0 {
		bndAt = e.Now()
	}
	return Outcome{Models: []Model{model}, Fit: st, Bound: bnd, BoundAt: bndAt}, nil
}

// TwoLevel synchronizes node leaders with Inter and propagates each leader's
// clock within its node: the ranks of a node
// (mpi.Comm.SplitShared) share the hardware clock, so each learns only its
// offset to the leader's raw clock with Intra (their epochs differ), linearly
// within the node, and then applies the leader's model: the chain is
// [rank → leader, leader → root], applied inner first. The leader of a node
// is its rank 0 in the shared communicator; world rank 0 must lead its node.
type TwoLevel struct {
	Inter Topology // among leaders; nil means &TopDownTree{}
	// InterLearner is the learner among leaders; nil means the Env's.
	InterLearner Learner
	// Intra learns each rank's model to its leader's raw clock; nil means
	// one SKaMPI offset (OffsetOnly with SKaMPIPingPong).
	Intra Learner
}

// Sync runs the two levels. When every rank of e.Comm runs on one node
// (mpi.NodeSize), e.Comm is the node and its rank 0 the only leader, which
// needs no synchronization: no communicator is created, as creating one
// changes how the process measures afterwards (mpi.NodeSize).
func (t *TwoLevel) Sync(e *Env) (out Outcome, err error) {
	c := e.Comm
	perNode, err := mpi.NodeSize(c)
	if err != nil {
		return Outcome{}, err
	}
	node, leaders := c, mpi.Comm(nil)
	if perNode < c.Size() {
		if node, err = c.SplitShared(); err != nil {
			return Outcome{}, err
		}
		defer func() {
			if ferr := node.Free(); err == nil && ferr != nil {
				err = ferr
			}
		}()
		color := -1
		if node.Rank() == 0 {
			color = 0
		}
		if leaders, err = c.Split(color, c.Rank()); err != nil {
			return Outcome{}, err
		}
		if leaders != nil {
			defer func() {
				if ferr := leaders.Free(); err == nil && ferr != nil {
					err = ferr
				}
			}()
		}
		if c.Rank() == 0 && (node.Rank() != 0 || leaders.Rank() != 0) {
			return Outcome{}, fmt.Errorf("clocksync: two-level: world rank 0 is rank %d of its node; it must lead it", node.Rank())
		}
	}
	leader := node.Rank() == 0

	// Within the node: offsets to the leader's raw clock.
	intra := t.Intra
	if intra == nil {
		intra = &OffsetOnly{Offset: &SKaMPIPingPong{MinPingPongs: 100, MaxPingPongs: 100}}
	}
	nodeEnv := &Env{Comm: node, Now: e.Now, Learner: intra, Sleep: e.Sleep}
	shared, isShared := intra.(*SharedClock)
	var in Outcome
	var first Sample
	var firstSE, exact float64
	var proven bool
	if isShared {
		if exact, proven, err = sharedCounter(node, e.Source, e.Skews); err != nil {
			return Outcome{}, err
		}
		// A proven counter needs only the check after the leaders'
		// synchronization, an asserted one only the offset then; an
		// unproven one is measured twice.
		if !proven && !shared.Asserted {
			if first, _, firstSE, err = shared.sharedOffsets(nodeEnv); err != nil {
				return Outcome{}, err
			}
		}
	} else {
		if in, err = (&Linear{}).Sync(nodeEnv); err != nil {
			return Outcome{}, err
		}
		if _, off := intra.(*OffsetOnly); off {
			// The ranks of a node share the clock: no drift to the leader.
			in.Bound.Unknown, in.Bound.Slope = false, 0
		}
	}

	// Among leaders.
	lead := [6]float64{}
	var interFit FitStats
	var interBound Bound
	var interAt float64
	if leader {
		inter := t.Inter
		if inter == nil {
			inter = &TopDownTree{}
		}
		L := t.InterLearner
		if L == nil {
			L = e.Learner
		}
		if sp, ok := L.(*Spread); ok && isShared && !sp.Target.IsZero() {
			// A rank's error is its leader's plus its offset's and the
			// drift its check cannot see, which shrinks as the leaders
			// take longer: the leaders learn to the target over √2.
			c := *sp
			c.Target.Error = secondsDuration(c.Target.Error.Seconds() / math.Sqrt2)
			L = &c
		}
		o := Outcome{Models: []Model{Identity}} // the only leader
		if leaders != nil {
			if o, err = inter.Sync(&Env{Comm: leaders, Now: e.Now, Learner: L, Sleep: e.Sleep}); err != nil {
				return Outcome{}, err
			}
		}
		m := Chain(o.Models...)
		lead = [6]float64{m.Slope, m.Intercept, o.Bound.AtSync, o.Bound.Slope, o.Bound.unknownCode(), m.Global(o.BoundAt)}
		interFit, interBound, interAt = o.Fit, o.Bound, o.BoundAt
	}
	// On one node the only leader learned nothing: its lead is the
	// identity's, all zeros, as every rank's lead starts.
	if perNode < c.Size() {
		if err := mpi.Bcast(node, lead[:], 0); err != nil {
			return Outcome{}, err
		}
	}
	if isShared {
		if in, err = t.checkShared(e, node, shared, first, firstSE, exact, proven); err != nil {
			return Outcome{}, err
		}
	}
	toLeader := Chain(in.Models...)
	leaderModel := Model{Slope: lead[0], Intercept: lead[1]}
	if leader {
		return Outcome{Models: []Model{leaderModel}, Fit: interFit, Bound: interBound, BoundAt: interAt}, nil
	}
	lb := boundFrom(lead[2], lead[3], lead[4])
	mine := Chain(toLeader, leaderModel)
	b := lb.shift(mine.Global(in.BoundAt) - lead[5]).combine(in.Bound)
	return Outcome{Models: []Model{toLeader, leaderModel}, Fit: in.Fit, Bound: b, BoundAt: in.BoundAt}, nil
}

// checkShared decides, on every rank of node, how the rank follows its
// leader's clock. Facts decide first, and no timing undoes them:
//
//   - where sharedCounter proved that the node's ranks read one counter
//     (proven is the same on every rank of node): the exact offset, bound
//     one tick (IntraCounter). An offset measured now (provenExchanges
//     exchanges) that disagrees with it beyond its bound is recorded
//     (FitStats.IntraCheckMiss) and changes nothing: on a loaded node the
//     exchanges wait for a CPU, the counter does not change;
//   - where the user asserted it (SharedClock.Asserted): the offset
//     measured now, slope 0 (IntraAsserted).
//
// Otherwise from an offset measured now and the one measured before the
// leaders' synchronization (first, with the standard error firstSE of its
// mean; zero on the leader):
//
//   - if the two offsets agree within the sum of their bounds and the drift
//     the check could not see — |o2 − o1| plus BoundZ standard errors of the
//     difference (and, unless IdealLinks, SlopeWanderTerm), over the time
//     between the two — leaves the target within reach (tooLoose): the
//     second offset, with that drift as the bound's slope (IntraShared);
//   - else, on any rank of the node (one Allreduce decides), the node's
//     ranks learn their drift against the leader's raw clock with the
//     Env's learner, linearly (IntraNotShared).
//
// The outcome is recorded in FitStats.Intra.
func (t *TwoLevel) checkShared(e *Env, node mpi.Comm, s *SharedClock, first Sample, firstSE, exact float64, proven bool) (Outcome, error) {
	if proven && s.Exchanges <= 0 {
		c := *s
		c.Exchanges = provenExchanges
		s = &c
	}
	nodeEnv := &Env{Comm: node, Now: e.Now, Learner: s, Sleep: e.Sleep}
	second, st2, se2, err := s.sharedOffsets(nodeEnv)
	if err != nil {
		return Outcome{}, err
	}
	if proven || s.Asserted {
		if node.Rank() == 0 {
			return Outcome{Models: []Model{Identity}}, nil
		}
		if proven {
			if d := second.Offset - exact; !(math.Abs(d) <= second.Bound) {
				st2.IntraCheckMiss = d
			}
			st2.Intra = IntraCounter
			st2.Bound = Bound{AtSync: 1 / e.Source.Hz}
			st2.Causal = st2.Bound
			return Outcome{Models: []Model{{Intercept: exact}}, Fit: st2, Bound: st2.Bound, BoundAt: st2.BoundAt}, nil
		}
		st2.Intra = intraAsserted
		return Outcome{Models: []Model{{Intercept: second.Offset}}, Fit: st2, Bound: st2.Bound, BoundAt: st2.BoundAt}, nil
	}
	// The drift the two-point check cannot see, as a slope bound.
	slope := math.Inf(1)
	if gap := second.Local - first.Local; gap > 0 {
		d := math.Abs(second.Offset-first.Offset) + BoundZ*math.Hypot(firstSE, se2)
		if !s.IdealLinks {
			d += SlopeWanderTerm(st2.MinRTT)
		}
		slope = d / gap
	}
	status := 0.0 // 0 leader, 1 offsets agree, 2 moved
	if node.Rank() != 0 {
		status = 2
		if math.Abs(second.Offset-first.Offset) <= first.Bound+second.Bound && !tooLoose(e.Learner, slope) {
			status = 1
		}
	}
	worst := []float64{0}
	if err := mpi.Allreduce(node, []float64{status}, worst, mpi.Max); err != nil {
		return Outcome{}, err
	}
	if worst[0] < 2 {
		if node.Rank() == 0 {
			return Outcome{Models: []Model{Identity}}, nil
		}
		st2.Intra = IntraShared
		st2.Bound.Slope, st2.Causal.Slope = slope, slope
		if math.IsInf(slope, 0) {
			st2.Bound, st2.Causal = unknown(whyTooFewPoints), unknown(whyTooFewPoints)
		}
		return Outcome{Models: []Model{{Intercept: second.Offset}}, Fit: st2, Bound: st2.Bound, BoundAt: st2.BoundAt}, nil
	}
	in, err := (&Linear{}).Sync(&Env{Comm: node, Now: e.Now, Learner: e.Learner, Sleep: e.Sleep})
	if err != nil {
		return Outcome{}, err
	}
	if node.Rank() != 0 {
		in.Fit.Intra = IntraNotShared
	}
	return in, nil
}

// tooLoose reports whether a rank whose drift to its leader is bounded
// by slope would miss the accuracy target of learner L (a Spread) at its
// horizon on that drift alone, given its share of the target (the
// leaders learn to the target over √2, TwoLevel). Without a target it is
// never too loose.
func tooLoose(L Learner, slope float64) bool {
	sp, ok := L.(*Spread)
	if !ok || sp.Target.IsZero() {
		return false
	}
	return !(slope*sp.Target.Horizon.Seconds() <= sp.Target.Error.Seconds()/math.Sqrt2)
}

// sharedCounter reports, collectively on node, whether every rank's raw
// clock is the same counter read the same way, from facts alone and no
// timing: one running kernel (BootID), the same clock source kind
// (CLOCK_MONOTONIC, CLOCK_MONOTONIC_RAW, or the TSC read the same way),
// the same frequency (a TSC calibrated per process is not: fix it,
// --tsc-hz) and the same timing.Skewed layers on top (skews, innermost
// first: a virtual cluster's node skew). Time namespaces need not agree:
// each rank's monotonic epoch is taken out of its own (the namespace's
// monotonic offset applies to CLOCK_MONOTONIC and CLOCK_MONOTONIC_RAW
// alike, time_namespaces(7)). If so, exact is the calling rank's offset to
// node rank 0's clock, seconds (client − reference): the difference of
// their epochs on the counter, scaled by the skews' rates. Other sources
// (MPI_Wtime, a simulated clock) prove nothing.
func sharedCounter(node mpi.Comm, src timing.Source, skews []*timing.Skewed) (exact float64, proven bool, err error) {
	mono := src.Kind == timing.SourceMonotonic || src.Kind == timing.SourceMonotonicRaw
	ok := src.Hz > 0 && (mono || src.Kind == timing.SourceTSC || src.Kind == timing.SourceTSCFenced)
	scale := 1.0 // what the skews multiply a difference of counter readings by
	layers := ""
	for _, s := range skews {
		scale *= 1 + s.DriftPPM*1e-6
		layers += fmt.Sprintf("/%d%+g", s.Offset, s.DriftPPM)
	}
	epoch := src.Epoch
	h := readHostFacts()
	if mono {
		if h.timensErr != nil {
			ok = false
		}
		epoch -= h.timens.Nanoseconds()
	}
	if h.bootErr != nil || h.bootID == "" {
		ok = false
	}
	key := "-"
	if ok {
		key = fmt.Sprintf("%s/%d/%g%s", h.bootID, src.Kind, src.Hz, layers)
	}
	// One allreduce (symmetric traffic, O(1) memory per rank) of the key's
	// hash and its negation (equal on every rank when the largest equals
	// the smallest) and of the reference's (node rank 0's) epoch in two
	// exact 32-bit halves, to which the other ranks contribute −∞.
	kh := mpi.Hash52(key)
	mine := []float64{kh, -kh, math.Inf(-1), math.Inf(-1)}
	if node.Rank() == 0 {
		mine[2], mine[3] = float64(epoch>>32), float64(epoch&0xffffffff)
	}
	all := make([]float64, len(mine))
	if err := mpi.Allreduce(node, mine, all, mpi.Max); err != nil {
		return 0, false, err
	}
	if all[0] != -all[1] || key == "-" {
		return 0, false, nil
	}
	ref := int64(all[2])<<32 | int64(all[3])
	// local = (counter − epoch)/Hz on each rank, so client − reference is
	// (epoch_reference − epoch_client)/Hz, times what equal skews make of
	// it (their offsets cancel).
	return float64(ref-epoch) / src.Hz * scale, true, nil
}

// hostFact is what sharedCounter and Harness.ShareHostClock need of the
// calling process's host: its boot id and its time namespace's
// CLOCK_MONOTONIC offset, with the errors of reading them.
type hostFact struct {
	bootID    string
	bootErr   error
	timens    time.Duration
	timensErr error
}

// readHostFacts reads the hostFact once per process: neither part can
// change while a process runs (a process cannot enter another time
// namespace; only its children can). SyncWith reads it before its timed
// part.
var readHostFacts = sync.OnceValue(func() hostFact {
	var h hostFact
	h.bootID, h.bootErr = bootID()
	h.timens, h.timensErr = TimeNamespaceOffset()
	return h
})
