package reprobench

import (
	"time"

	"github.com/reprobench/reprobench/factor"
)

// access is how a method factor of the table is read from and set on an
// Experiment: get writes the level that runs into its cell; set, when not
// nil, applies the cell of a design row that sets it (FromDesign). The
// call parameters need none: they are cells already (Experiment.Params).
type access struct {
	get func(e *Experiment, v *factor.Values)
	set func(e *Experiment, v factor.Values)
}

// accessors are the method factors' rows' accessors, by ID; Raw writes
// every one, so that the raw file's method columns come from the table.
var accessors = [factor.NumIDs]access{
	factor.ProcSync: {get: func(e *Experiment, v *factor.Values) {
		v.SetText(factor.ProcSync, e.Sync.Method.String())
	}},
	factor.Window: {get: func(e *Experiment, v *factor.Values) {
		var w time.Duration
		if e.Sync.Method.Windowed() {
			w = e.Sync.WithDefaults().Window // the window that runs: zero is window's default
		}
		v.Set(factor.Window, int64(w))
	}},
	factor.RuntimeType: {get: func(e *Experiment, v *factor.Values) {
		v.SetText(factor.RuntimeType, e.Runtime.String())
	}},
	factor.Cache: {get: func(e *Experiment, v *factor.Values) {
		v.SetText(factor.Cache, e.Cache.String())
	}},
	factor.ClockSync: {get: func(e *Experiment, v *factor.Values) {
		s := e.ClockSync
		if s == "" {
			s = factor.LevelNone
		}
		v.SetText(factor.ClockSync, s)
	}},
	factor.NoiseGuard: {get: func(e *Experiment, v *factor.Values) {
		v.Set(factor.NoiseGuard, boolLevel(e.Sync.NoiseGuard && e.Sync.Method.Windowed()))
	}, set: func(e *Experiment, v factor.Values) {
		e.Sync.NoiseGuard = v.On(factor.NoiseGuard)
	}},
}

// boolLevel is a KindBool factor's level of b: 1 for on, 0 for off.
func boolLevel(b bool) int64 {
	if b {
		return 1
	}
	return 0
}

// factorCells returns e's factor levels as cells: the call parameters
// that apply to its call, and every method factor that has an accessor.
func (e *Experiment) factorCells() factor.Values {
	var f factor.Values
	if e.Func == nil {
		f = e.Call.Levels(e.Params)
	}
	for id := range factor.NumIDs {
		if a := accessors[id]; a.get != nil {
			a.get(e, &f)
		}
	}
	return f
}
