package reprobench

import (
	"fmt"
	"strings"
	"time"

	"github.com/reprobench/reprobench/cache"
	"github.com/reprobench/reprobench/completion"
	"github.com/reprobench/reprobench/factor"
	"github.com/reprobench/reprobench/rawdata"
	"github.com/reprobench/reprobench/window"
)

// access is how a method factor of the table is read from and set on an
// Experiment: get writes the level that runs into its cell (Raw); set
// applies a design row's cell of the factor, parsing its level, and
// returns the parse's error (FromDesign calls it only for a set cell);
// levels, when not nil, lists the names a design file's cell may take,
// and check, when not nil, checks a cell no list bounds (Vocabulary). The
// call parameters need none: they are cells already (Experiment.Params).
type access struct {
	get    func(e *Experiment, v *factor.Values)
	set    func(e *Experiment, v factor.Values) error
	levels func() []string
	check  func(level string) error
}

// accessors are the method factors' rows' accessors, by ID; Raw writes
// every one, so that the raw file's method columns come from the table,
// and FromDesign sets every one a design row sets.
var accessors = [factor.NumIDs]access{
	factor.ProcSync: {get: func(e *Experiment, v *factor.Values) {
		v.SetText(factor.ProcSync, e.Sync.Method.String())
	}, set: func(e *Experiment, v factor.Values) (err error) {
		e.Sync.Method, err = window.ParseMethod(v.Text(factor.ProcSync))
		return err
	}, levels: window.MethodNames},
	factor.Window: {get: func(e *Experiment, v *factor.Values) {
		var w time.Duration
		if e.Sync.Method.Windowed() {
			w = e.Sync.WithDefaults().Window // the window that runs: zero is window's default
		}
		v.Set(factor.Window, int64(w))
	}, set: func(e *Experiment, v factor.Values) error {
		w, _ := v.Get(factor.Window)
		if w < 0 || w > int64(window.MaxWindowLimit) {
			return fmt.Errorf("%s %v: want a window in (0, %v] (0 or unset: the default)", factor.Window.Row().Name, time.Duration(w), window.MaxWindowLimit)
		}
		e.Sync.Window = time.Duration(w)
		return nil
	}},
	factor.RuntimeType: {get: func(e *Experiment, v *factor.Values) {
		v.SetText(factor.RuntimeType, e.Runtime.String())
	}, set: func(e *Experiment, v factor.Values) (err error) {
		e.Runtime, err = completion.ParseType(v.Text(factor.RuntimeType))
		return err
	}, levels: completion.TypeNames},
	factor.Cache: {get: func(e *Experiment, v *factor.Values) {
		v.SetText(factor.Cache, e.Cache.String())
	}, set: func(e *Experiment, v factor.Values) (err error) {
		e.Cache, err = cache.ParseMode(v.Text(factor.Cache))
		return err
	}, levels: cache.ModeNames},
	factor.ClockSync: {get: func(e *Experiment, v *factor.Values) {
		s := e.ClockSync
		if s == "" {
			s = factor.LevelNone
		}
		v.SetText(factor.ClockSync, s)
	}, set: func(e *Experiment, v factor.Values) error {
		s := v.Text(factor.ClockSync)
		if err := checkClockSync(s); err != nil {
			return err
		}
		e.ClockSync = s
		return nil
	}, check: checkClockSync},
	factor.NoiseGuard: {get: func(e *Experiment, v *factor.Values) {
		v.Set(factor.NoiseGuard, boolLevel(e.Sync.NoiseGuard && e.Sync.Method.Windowed()))
	}, set: func(e *Experiment, v factor.Values) error {
		e.Sync.NoiseGuard = v.On(factor.NoiseGuard)
		return nil
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

// Declare returns the rawdata declarations of exps (Experiment.Raw).
func declare(exps []Experiment) []rawdata.Experiment {
	out := make([]rawdata.Experiment, len(exps))
	for i := range exps {
		out[i] = exps[i].Raw()
	}
	return out
}

// Raw returns what the raw data records of ex besides its rows: its
// factor levels and labels, to declare it to a rawdata.Writer.
func (e *Experiment) Raw() rawdata.Experiment {
	f := e.factorCells()
	r := rawdata.Experiment{Exp: e.Exp, Factors: f, Labels: e.Labels, NBCMode: e.NBCMode()}
	if !e.Prehistory.None() {
		r.Covariates = rawdata.Covariates{Prehistory: e.Prehistory.String(), PrehistoryMsgs: e.Prehistory.Msgs}
	}
	return r
}

// DesignLevel returns the cell that a design file holds for level s of
// factor id (a row of factor.Table of Scope PerExperiment) as the
// factor's flag (factor.Factor.Flag) gives it, or why s is not a level:
//   - a call parameter's level is read by its row (factor.Factor.ParseText);
//   - a method factor's level is applied by its accessor, as FromDesign
//     applies a cell, and written back as Raw writes it, so that any
//     accepted spelling ("fixed", "MPI_Barrier") becomes the name the
//     raw data uses; a KindSeconds level is a positive duration
//     ("100us") in the range its accessor accepts (the window's is
//     (0, window.MaxWindowLimit]), and "auto", which only run resolves,
//     is not a level of a design.
func DesignLevel(id factor.ID, s string) (string, error) {
	if id < 0 || id >= factor.NumIDs || id.Row().Scope != factor.PerExperiment {
		return "", fmt.Errorf("reprobench: %v is not a factor of a design row", id)
	}
	row := id.Row()
	if row.Call {
		return row.ParseText(s)
	}
	a := accessors[id]
	if a.set == nil {
		return "", fmt.Errorf("reprobench: %v has no accessor", id)
	}
	var v factor.Values
	switch row.Kind {
	case factor.KindSeconds:
		d, err := time.ParseDuration(s)
		if err != nil || d <= 0 {
			return "", fmt.Errorf("%s %q: want a positive duration, e.g. 100us", row.Name, s)
		}
		v.Set(id, int64(d)) // its accessor checks the range
	case factor.KindText:
		if strings.EqualFold(strings.TrimSpace(s), "auto") {
			return "", fmt.Errorf("%s auto: a design names its level (auto is resolved by run)", row.Name)
		}
		v.SetText(id, s)
	default:
		x, err := row.Parse(s)
		if err != nil {
			return "", err
		}
		v.Set(id, x)
	}
	// Under the windowed default, Raw writes the window and the noise
	// guard as set (a barrier method writes them as 0 and off).
	ex := DefaultExperiment(DefaultMethod)
	if err := a.set(&ex, v); err != nil {
		return "", err
	}
	var out factor.Values
	a.get(&ex, &out)
	return out.Cell(id), nil
}
