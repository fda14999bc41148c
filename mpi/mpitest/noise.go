package mpitest

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"time"
)

// PeriodicNoise is one periodic noise source of a node (a timer tick, a
// hypervisor's housekeeping, a daemon): detour k starts at true time
//
//	Phase + k·Period·(1 + Drift)        k = 0, 1, …
//
// and lasts Duration (± DurationJitter, uniform); it happens with
// probability Prob (0 means 1). While a detour lasts, every rank of the node
// is stopped: a clock read that falls into it returns only when it ends, so
// a rank busy-waiting for a deadline covered by a detour starts late by the
// rest of the detour. Drift is how far the phase moves per second against a
// source of period exactly Period (seconds per second: 25e-6 moves it 50 µs
// every 2 s), a source on a slightly different clock. Which detours happen
// and how long each lasts are a function of Config.Seed, the node, the
// source's index and k.
//
// Only clock reads are delayed: a message a rank is sending or receiving
// while its node is in a detour is not held back, and a detour that falls
// entirely between two clock reads costs nothing (in a busy-wait it would
// not matter; during an operation it would lengthen it, which this model
// leaves out).
type PeriodicNoise struct {
	Period         time.Duration
	Phase          time.Duration // start of detour 0, true time; may be negative
	Duration       time.Duration
	DurationJitter time.Duration // each detour lasts Duration ± DurationJitter, uniform
	Drift          float64       // phase movement, seconds per second
	Prob           float64       // probability that a detour happens; 0 means 1
}

// check validates the source.
func (p PeriodicNoise) check() error {
	switch {
	case p.Period <= 0:
		return fmt.Errorf("period %v is not positive", p.Period)
	case p.Duration <= 0 || p.DurationJitter < 0 || p.DurationJitter > p.Duration:
		return fmt.Errorf("duration %v ± %v: want a positive duration and a jitter in [0, duration]", p.Duration, p.DurationJitter)
	case p.Duration+p.DurationJitter >= p.Period:
		return fmt.Errorf("duration %v + jitter %v is not shorter than the period %v", p.Duration, p.DurationJitter, p.Period)
	case !(p.Drift > -0.01 && p.Drift < 0.01):
		return fmt.Errorf("drift %v out of (−0.01, 0.01)", p.Drift)
	case !(p.Prob >= 0 && p.Prob <= 1):
		return fmt.Errorf("probability %v out of [0, 1]", p.Prob)
	}
	return nil
}

// noiseSource is a resolved PeriodicNoise in seconds.
type noiseSource struct {
	period, phase, dur, jit, prob float64
	seed                          uint64
}

// nodeNoise holds the sources of one node.
type nodeNoise struct{ src []noiseSource }

const domNoise uint64 = 0x6e6f697365 // "noise": a stream of its own

func newNodeNoise(seed uint64, node int, ps []PeriodicNoise) (*nodeNoise, error) {
	if len(ps) == 0 {
		return nil, nil
	}
	n := &nodeNoise{}
	for i, p := range ps {
		if err := p.check(); err != nil {
			return nil, fmt.Errorf("mpitest: node %d noise source %d: %w", node, i, err)
		}
		prob := p.Prob
		if prob == 0 {
			prob = 1
		}
		n.src = append(n.src, noiseSource{period: p.Period.Seconds() * (1 + p.Drift), phase: p.Phase.Seconds(),
			dur: p.Duration.Seconds(), jit: p.DurationJitter.Seconds(), prob: prob,
			seed: hash4(seed, domNoise, uint64(node), uint64(i))})
	}
	return n, nil
}

// detour returns detour k of source s: whether it happens, and its end.
func (s *noiseSource) detour(k int64) (start, end float64, ok bool) {
	start = s.phase + float64(k)*s.period
	if s.prob < 1 && unit(hash4(s.seed, 0, uint64(k), 0)) >= s.prob {
		return start, start, false
	}
	d := s.dur
	if s.jit > 0 {
		d += s.jit * (2*unit(hash4(s.seed, 1, uint64(k), 0)) - 1)
	}
	return start, start + d, true
}

// after returns the first time at or after t at which the node is in no
// detour: t itself, or the end of the detour (or chain of overlapping
// detours of several sources) covering t.
func (n *nodeNoise) after(t float64) float64 {
	if n == nil {
		return t
	}
	for moved := true; moved; {
		moved = false
		for i := range n.src {
			s := &n.src[i]
			// The detour covering t is number k or, after rounding, a
			// neighbour (t at a detour's start may divide to k − ε).
			k := int64(math.Floor((t - s.phase) / s.period))
			for j := max(k-1, 0); j <= k+1; j++ {
				if st, e, ok := s.detour(j); ok && t >= st && t < e {
					t, moved = e, true
					break
				}
			}
		}
	}
	return t
}

// detours lists the detours of every source that start in [from, to), as
// [start, end) pairs in start order.
func (n *nodeNoise) detours(from, to float64) [][2]float64 {
	if n == nil {
		return nil
	}
	var out [][2]float64
	for i := range n.src {
		s := &n.src[i]
		k0 := max(int64(math.Floor((from-s.phase)/s.period)), 0)
		for k := k0; ; k++ {
			st, e, ok := s.detour(k)
			if st >= to {
				break
			}
			if ok && st >= from {
				out = append(out, [2]float64{st, e})
			}
		}
	}
	slices.SortFunc(out, func(a, b [2]float64) int { return cmp.Compare(a[0], b[0]) })
	return out
}

// Detours returns the detours of node's periodic noise (Config.NodeNoise)
// that start in the true-time span [from, to) seconds, as [start, end)
// pairs in start order: the ground truth a noise learner is judged by.
func (w *World) Detours(node int, from, to float64) [][2]float64 {
	return w.nodeNoise(node).detours(from, to)
}

// NoiseEnd returns the first true time at or after t at which node is in
// no detour of its periodic noise: how long a rank of node asked to read
// its clock at t is held.
func (w *World) NoiseEnd(node int, t float64) float64 { return w.nodeNoise(node).after(t) }

// LateShare is the ground truth of the share of windowed observations that
// the periodic noise makes late: the measure of the true times t in
// [from, to) at which some node's noise holds its ranks for more than
// tolerance seconds past t (NoiseEnd(node, t) − t > tolerance), divided by
// to − from. A deadline placed at a random time in the span, independent of
// the noise, is late with this probability.
func (w *World) LateShare(from, to, tolerance float64) float64 {
	if !(to > from) {
		return math.NaN()
	}
	var iv [][2]float64
	for node := range w.nodes() {
		n := w.nodeNoise(node)
		if n == nil {
			continue
		}
		// A detour that began up to one period before from may cover it.
		maxP := 0.0
		for _, s := range n.src {
			maxP = max(maxP, s.period)
		}
		for _, d := range n.detours(from-maxP, to) {
			// Times in [start, end) are held until at least end (a chain
			// of overlapping detours holds them longer, which after
			// accounts for).
			e := n.after(d[0])
			a, b := max(d[0], from), min(e-tolerance, to)
			if b > a {
				iv = append(iv, [2]float64{a, b})
			}
		}
	}
	slices.SortFunc(iv, func(a, b [2]float64) int { return cmp.Compare(a[0], b[0]) })
	total, hi := 0.0, math.Inf(-1)
	for _, x := range iv {
		if x[0] > hi {
			total += x[1] - x[0]
			hi = x[1]
		} else if x[1] > hi {
			total += x[1] - hi
			hi = x[1]
		}
	}
	return total / (to - from)
}

// nodes returns the number of nodes.
func (w *World) nodes() int {
	if w.cfg.RanksPerNode <= 0 {
		return 1
	}
	return (len(w.ranks) + w.cfg.RanksPerNode - 1) / w.cfg.RanksPerNode
}

// nodeNoise returns node's noise (nil without any).
func (w *World) nodeNoise(node int) *nodeNoise {
	if node < 0 || node >= len(w.noise) {
		return nil
	}
	return w.noise[node]
}

// initNoise resolves Config.NodeNoise for every node.
func (w *World) initNoise() error {
	if w.cfg.NodeNoise == nil {
		return nil
	}
	w.noise = make([]*nodeNoise, w.nodes())
	for node := range w.noise {
		n, err := newNodeNoise(w.cfg.Seed, node, w.cfg.NodeNoise(node))
		if err != nil {
			return err
		}
		w.noise[node] = n
	}
	for _, r := range w.ranks {
		r.noise = w.noise[w.node(r.id)]
	}
	return nil
}
