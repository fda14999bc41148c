package window

import (
	"fmt"
	"math"
	"slices"

	"github.com/reprobench/reprobench/mpi"
	"github.com/reprobench/reprobench/noiseguard"
	"github.com/reprobench/reprobench/rawdata"
	"github.com/reprobench/reprobench/timing"
)

// NoiseGuard is the state of the noise guard (Config.NoiseGuard): where the ranks are, and on rank 0 what has been learned about each
// node's periodic noise (package noiseguard) and how many slots it cost.
// One NoiseGuard per rank serves every Sync of a run (Sync.Guard), so
// what one experiment learned the next one uses; it is not safe for
// concurrent use.
//
// With the guard, rank 0 learns each node's periodic sources from the late
// observations of the node's ranks (their deadlines and how late they
// started: when the detour ended), and places each batch's starts on the
// window grid, skipping every slot whose span [start − Config.NoiseGuardBefore,
// start + the operation's mean duration] a predicted detour of some node
// overlaps. The batch's start times are broadcast, so every rank agrees. A
// skipped slot costs a window of time, not an observation.
//
// Its cost: the batch's reduction carries one more block of Batch values
// per node (so it grows with the number of nodes), rank 0 refits a node's
// learner after a batch that brought it 4 or more new late observations
// (milliseconds for thousands of events), and the batch's b start times are
// broadcast instead of one. Expired observations are not learned from:
// they say that a detour fell somewhere within the operation, not where.
type NoiseGuard struct {
	nodes    []int // node of each rank
	nNodes   int
	learners []*noiseguard.Learner // per node
	slots    int64
	skipped  int64
	fits     int
	fitS     float64             // time rank 0 spent fitting, seconds
	firstS   float64             // when rank 0 first learned (local seconds), for fitS's budget
	mono     []noiseguard.Source // SeedMonotonic's sources, until the first guarded Run
}

// NewNoiseGuard returns a guard for a communicator whose rank r runs on
// node nodes[r] (nodes numbered from 0; nil puts every rank on one node),
// learning with cfg. Every rank passes the same nodes.
func NewNoiseGuard(nodes []int, cfg noiseguard.Config) (*NoiseGuard, error) {
	n := 1
	for r, x := range nodes {
		if x < 0 {
			return nil, fmt.Errorf("window: noise guard: rank %d on node %d", r, x)
		}
		n = max(n, x+1)
	}
	g := &NoiseGuard{nodes: slices.Clone(nodes), nNodes: n, learners: make([]*noiseguard.Learner, n)}
	for i := range g.learners {
		g.learners[i] = noiseguard.NewLearner(cfg)
	}
	return g, nil
}

// Nodes returns the number of nodes.
func (g *NoiseGuard) Nodes() int { return g.nNodes }

// node returns the node of rank r.
func (g *NoiseGuard) node(r int) int {
	if r < len(g.nodes) {
		return g.nodes[r]
	}
	return 0
}

// Seed installs sources for node (on the global time axis: shift a probe's
// with noiseguard.Source.Shift), e.g. from "reprobench noise --json". Only
// rank 0's seeds are used.
func (g *NoiseGuard) Seed(node int, src []noiseguard.Source) error {
	if node < 0 || node >= g.nNodes {
		return fmt.Errorf("window: noise guard: node %d out of range [0, %d)", node, g.nNodes)
	}
	g.learners[node].Seed(src)
	return nil
}

// SeedMonotonic installs sources whose times are CLOCK_MONOTONIC seconds
// (timing.MonotonicNs), as "reprobench noise --json" exports them, for
// every node: noise locked to the kernel's tick keeps its phase against
// each node's own CLOCK_MONOTONIC. The first guarded Run converts them to
// global time on each node (one Allreduce) and seeds rank 0's learners.
// Every rank calls it with the same sources.
func (g *NoiseGuard) SeedMonotonic(src []noiseguard.Source) { g.mono = slices.Clone(src) }

// Sources returns what rank 0 has learned, per node.
func (g *NoiseGuard) Sources() [][]noiseguard.Source {
	out := make([][]noiseguard.Source, g.nNodes)
	for i, l := range g.learners {
		out[i] = l.Sources()
	}
	return out
}

// Slots returns, on rank 0, the window slots considered and skipped so far.
func (g *NoiseGuard) Slots() (slots, skipped int64) { return g.slots, g.skipped }

// Record returns what the sidecar records of the guard (rank 0): the
// sources per node, and the slots considered and skipped since the counts
// slots0 and skipped0 (Slots before an experiment).
func (g *NoiseGuard) Record(slots0, skipped0 int64) *rawdata.NoiseGuard {
	r := &rawdata.NoiseGuard{Sources: []rawdata.NoiseSource{}, Slots: g.slots - slots0, SkippedSlots: g.skipped - skipped0, Fits: g.fits}
	if r.Slots > 0 {
		r.SkippedShare = float64(r.SkippedSlots) / float64(r.Slots)
	}
	for node, src := range g.Sources() {
		for _, s := range src {
			r.Sources = append(r.Sources, rawdata.NoiseSource{Node: node, PeriodS: s.PeriodS, PhaseS: s.PhaseS,
				DurationS: s.DurationS, EndS: s.EndS, SpreadS: s.SpreadS, Events: s.Events, SpanS: s.SpanS, Seeded: s.Seeded})
		}
	}
	return r
}

// fitBudget is the share of rank 0's time the learners' fits may take: a
// fit of thousands of events takes milliseconds, and on a noisy machine
// every batch brings new late observations.
const fitBudget = 0.02

// learn adds rank 0's view of a batch: lat holds, per node, the largest
// lateness (seconds) of each observation on that node's ranks; starts the
// observations' deadlines (global seconds). Lateness above tol is an event.
// Then it refits the learners with 4 or more new events, as long as the
// fits so far took at most fitBudget of the time since the first batch
// (clk: rank 0's clock).
func (g *NoiseGuard) learn(starts, lat []float64, b int, tol float64, clk timing.Clock) {
	now := clk.Freq().Seconds(clk.Now())
	if g.fits == 0 && g.firstS == 0 {
		g.firstS = now
	}
	for n, l := range g.learners {
		for i := range b {
			if v := lat[n*b+i]; v > tol {
				l.Add(starts[i], starts[i]+v)
			}
		}
		if l.Pending() >= 4 && (len(l.Sources()) == 0 || g.fitS <= fitBudget*(now-g.firstS)) {
			t0 := clk.Now()
			l.Fit()
			g.fitS += clk.Freq().Seconds(clk.Now() - t0)
			g.fits++
		}
	}
}

// schedule fills starts with the first len(starts) slots of the grid
// first + j·w that no predicted detour overlaps (noiseguard.Schedule).
func (g *NoiseGuard) schedule(starts []float64, first, w, before, busy float64) {
	k := int64(noiseguard.Schedule(starts, first, w, before, busy, g.learners))
	g.skipped += k
	g.slots += int64(len(starts)) + k
}

// place returns the first time at or after t whose span [t − before,
// t + busy] no predicted detour overlaps (round-time's single start). It
// counts one slot, skipped when the start had to move.
func (g *NoiseGuard) place(t, before, busy float64) float64 {
	g.slots++
	moved := false
	for range noiseguard.MaxSkipped {
		blocked := false
		for _, l := range g.learners {
			if u, b := l.Blocked(t-before, t+busy); b {
				t, blocked = math.Max(t, u+before+1e-9), true
			}
		}
		if !blocked {
			break
		}
		moved = true
	}
	if moved {
		g.skipped++
	}
	return t
}

// guarded reports whether the noise guard places this Sync's starts.
func (s *Sync) guarded() bool { return s.cfg.NoiseGuard && s.cfg.Method.Windowed() }

// initGuard gives a guarded Sync its default NoiseGuard (every rank on one
// node).
func (s *Sync) initGuard() error {
	g, err := NewNoiseGuard(nil, noiseguard.Config{})
	if err != nil {
		return err
	}
	s.Guard = g
	return nil
}

// prepareGuard sizes the buffers of a guarded Run for s.Guard's nodes and
// converts SeedMonotonic's sources (collective).
func (s *Sync) prepareGuard() error {
	if s.Guard == nil {
		if err := s.initGuard(); err != nil {
			return err
		}
	}
	if g := s.Guard; g.mono != nil {
		// Global time minus CLOCK_MONOTONIC, per node (MAX over its ranks,
		// which agree to the clock synchronization's error).
		in, out := make([]float64, g.nNodes), make([]float64, g.nNodes)
		for i := range in {
			in[i] = -math.MaxFloat64
		}
		in[g.node(s.comm.Rank())] = s.g.ToGlobal(s.clk.Now()) - float64(timing.MonotonicNs())/1e9
		if err := mpi.Allreduce(s.comm, in, out, mpi.Max); err != nil {
			return err
		}
		for n, l := range g.learners {
			src := make([]noiseguard.Source, len(g.mono))
			for i, x := range g.mono {
				src[i] = x.Shift(out[n])
			}
			l.Seed(src)
		}
		g.mono = nil
	}
	if need := (3 + s.Guard.nNodes) * s.cfg.Batch; len(s.red) < need {
		s.red, s.redOut = make([]float64, need), make([]float64, need)
	}
	if len(s.starts) < s.cfg.Batch {
		s.starts = make([]float64, s.cfg.Batch)
	}
	return nil
}

// slot returns the start of observation i of a batch in global time: on
// the grid t0 + i·w, or where the noise guard placed it.
func (s *Sync) slot(t0, w float64, i int) float64 {
	if s.guarded() {
		return s.starts[i]
	}
	return t0 + float64(i)*w
}

// broadcastStarts has rank 0 place the batch's b starts on the grid from
// now + ahead in steps of w, skipping slots the noise guard predicts noise
// in, and broadcasts them (one Bcast of b values).
func (s *Sync) broadcastStarts(ahead, w float64, b int) error {
	st := s.starts[:b]
	if s.comm.Rank() == 0 {
		s.Guard.schedule(st, s.g.ToGlobal(s.clk.Now())+ahead, w, s.cfg.NoiseGuardBefore.Seconds(), s.busyS)
	}
	return mpi.Bcast(s.comm, st, 0)
}

// guardLateness appends to the batch's reduction vector, after its 3·b
// flags and durations (b = len(late)), one block of b values per node:
// this rank's lateness (seconds) of each late observation in its node's
// block, zeros elsewhere. late is the batch's lateness on this rank
// (Record.Late, ticks). The MAX reduction then gives rank 0 each node's
// lateness. It returns the vector's length.
func (s *Sync) guardLateness(late []timing.Ticks) int {
	b, nodes := len(late), s.Guard.nNodes
	lat := s.red[3*b : (3+nodes)*b]
	clear(lat)
	me := s.Guard.node(s.comm.Rank())
	for i := range b {
		if s.red[i] != 0 {
			lat[me*b+i] = s.clk.Freq().Seconds(late[i])
		}
	}
	return (3 + nodes) * b
}

// typicalDuration returns the median of a batch's durations, at most w: the
// span after a start the guard keeps free of predicted detours. (The
// median, not the mean: on a loaded machine a few observations take
// milliseconds, and a span that long would leave no slot free.)
func (s *Sync) typicalDuration(d []float64, w float64) float64 {
	if cap(s.durs) < len(d) {
		s.durs = make([]float64, len(d))
	}
	x := s.durs[:len(d)]
	copy(x, d)
	slices.Sort(x)
	return min(x[len(x)/2], w)
}
