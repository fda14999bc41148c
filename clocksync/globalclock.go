package clocksync

import (
	"sync/atomic"

	"github.com/reprobench/reprobench/timing"
)

// GlobalClock is a process's view of the global (root's) time: a base
// timing.Clock read through a chain of Models. It satisfies timing.Clock;
// its ticks are global seconds times the base clock's frequency, and its
// Source is SourceNone (C code cannot apply the model; the window engine
// converts global deadlines to local ticks with LocalTicks or ToLocal and
// hands those to the critical path).
//
// The models are replaced atomically by Set (every Sync and re-Sync calls it),
// so a GlobalClock may be read from one goroutine while another
// re-synchronizes. Models are applied inner first: for the two-level scheme,
// the chain is [rank → node leader, leader → root].
type GlobalClock struct {
	base  timing.Clock
	state atomic.Pointer[chainState]
}

type chainState struct {
	models []Model // inner first
	merged Model
}

var _ timing.Clock = (*GlobalClock)(nil)

// NewGlobalClock returns the global clock over base with the given models,
// inner first. Without models it is the identity (the root's global clock,
// or a clock not yet synchronized).
func NewGlobalClock(base timing.Clock, models ...Model) *GlobalClock {
	g := &GlobalClock{base: base}
	g.Set(models...)
	return g
}

// Set atomically replaces the chain of models (inner first).
func (g *GlobalClock) Set(models ...Model) {
	st := &chainState{models: append([]Model(nil), models...)}
	st.merged = Chain(st.models...)
	g.state.Store(st)
}

// Base returns the local clock the models are applied to.
func (g *GlobalClock) Base() timing.Clock { return g.base }

// Models returns a copy of the chain of models, inner first.
func (g *GlobalClock) Models() []Model {
	return append([]Model(nil), g.state.Load().models...)
}

// Model returns the chain merged into one model from the local clock to
// global time (MergeLMs applied along the chain).
func (g *GlobalClock) Model() Model { return g.state.Load().merged }

// NowSeconds returns the current global time in seconds, without the rounding
// to ticks of Now.
func (g *GlobalClock) NowSeconds() float64 { return g.ToGlobal(g.base.Now()) }

// ToGlobal maps a local timestamp (ticks of the base clock) to global seconds.
func (g *GlobalClock) ToGlobal(local timing.Ticks) float64 {
	return g.state.Load().merged.Global(g.base.Freq().Seconds(local))
}

// ToLocal maps global seconds to the local timestamp (ticks of the base clock,
// rounded to the nearest tick) at which the base clock reaches that global
// time: the deadline the critical path waits for.
func (g *GlobalClock) ToLocal(global float64) timing.Ticks {
	return g.base.Freq().FromSeconds(g.state.Load().merged.Local(global))
}

// GlobalTicks maps a local timestamp to global ticks (global seconds times the
// base clock's frequency, rounded).
func (g *GlobalClock) GlobalTicks(local timing.Ticks) timing.Ticks {
	return g.base.Freq().FromSeconds(g.ToGlobal(local))
}

// LocalTicks maps global ticks (as returned by Now) to local ticks; the
// inverse of GlobalTicks up to rounding.
func (g *GlobalClock) LocalTicks(global timing.Ticks) timing.Ticks {
	return g.ToLocal(g.base.Freq().Seconds(global))
}

// Now returns the current global time in ticks of the base clock's frequency.
func (g *GlobalClock) Now() timing.Ticks { return g.GlobalTicks(g.base.Now()) }

// Freq returns the base clock's frequency: global ticks tick at the base
// clock's nominal rate.
func (g *GlobalClock) Freq() timing.Freq { return g.base.Freq() }

// Name returns "global(" + the base clock's name + ")".
func (g *GlobalClock) Name() string { return "global(" + g.base.Name() + ")" }

// Source returns a Source of kind SourceNone: C code cannot read global time.
func (g *GlobalClock) Source() timing.Source {
	return timing.Source{Kind: timing.SourceNone, Hz: g.base.Freq().Hz()}
}
