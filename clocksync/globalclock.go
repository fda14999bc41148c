package clocksync

import (
	"math"
	"sync/atomic"
	"time"

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
func (g *GlobalClock) ToGlobal(local int64) float64 {
	return g.state.Load().merged.Global(g.base.Seconds(local))
}

// ToLocal maps global seconds to the local timestamp (ticks of the base clock,
// rounded to the nearest tick) at which the base clock reaches that global
// time: the deadline the critical path waits for.
func (g *GlobalClock) ToLocal(global float64) int64 {
	return roundTicks(g.state.Load().merged.Local(global) * g.base.Hz())
}

// GlobalTicks maps a local timestamp to global ticks (global seconds times the
// base clock's frequency, rounded).
func (g *GlobalClock) GlobalTicks(local int64) int64 {
	return roundTicks(g.ToGlobal(local) * g.base.Hz())
}

// LocalTicks maps global ticks (as returned by Now) to local ticks; the
// inverse of GlobalTicks up to rounding.
func (g *GlobalClock) LocalTicks(global int64) int64 {
	return g.ToLocal(g.base.Seconds(global))
}

// Now returns the current global time in ticks of the base clock's frequency.
func (g *GlobalClock) Now() int64 { return g.GlobalTicks(g.base.Now()) }

// Hz returns the base clock's frequency.
func (g *GlobalClock) Hz() float64 { return g.base.Hz() }

// Seconds converts ticks to seconds at the base clock's frequency.
func (g *GlobalClock) Seconds(ticks int64) float64 { return g.base.Seconds(ticks) }

// Duration converts ticks to a time.Duration at the base clock's frequency.
func (g *GlobalClock) Duration(ticks int64) time.Duration { return g.base.Duration(ticks) }

// Ticks converts seconds to ticks at the base clock's frequency.
func (g *GlobalClock) Ticks(seconds float64) int64 { return g.base.Ticks(seconds) }

// Name returns "global(" + the base clock's name + ")".
func (g *GlobalClock) Name() string { return "global(" + g.base.Name() + ")" }

// Source returns a Source of kind SourceNone: C code cannot read global time.
func (g *GlobalClock) Source() timing.Source {
	return timing.Source{Kind: timing.SourceNone, Hz: g.base.Hz()}
}

func roundTicks(x float64) int64 { return int64(math.Round(x)) }
