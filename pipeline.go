// The pipeline turns what a user asks for — a design file's rows, or a
// full factorial of calls, message sizes and process synchronization
// methods with a seed — into the experiments package engine runs, and the
// engine's output into files of package rawdata. It is what "reprobench
// run" does between parsing its flags and starting the engine, as a
// library: a Go program gets the same experiments, the same order and the
// same raw data.
//
// One vocabulary: sizes use design.ParseSizes (8,1K, pow2:A..B,
// logu:A..B:N), datatypes are written by their short names (float64, never
// MPI_DOUBLE), windows in a design file are seconds rounded to the
// nanosecond, and the order of a flag-driven run is design's stable
// shuffle (design.MpirunOrder), so "run --seed S" runs what "design --seed
// S" writes.

package reprobench

import (
	"fmt"

	"github.com/reprobench/reprobench/analysis"
	"github.com/reprobench/reprobench/clocksync"
	"github.com/reprobench/reprobench/design"
	"github.com/reprobench/reprobench/factor"
	"github.com/reprobench/reprobench/mpi"
	"github.com/reprobench/reprobench/rawdata"
	"github.com/reprobench/reprobench/window"
)

// Vocabulary returns the values the engine accepts in a design file's
// columns: the calls, the datatypes, and for each method factor the names
// its accessor lists (procsync, runtime_type, cache) or its check
// (clocksync's spec parser).
func Vocabulary() design.Vocabulary {
	var v design.Vocabulary
	for _, c := range mpi.Calls() {
		v.Calls = append(v.Calls, c.String())
	}
	for d := mpi.Datatype(0); d.Valid(); d++ {
		v.Datatypes = append(v.Datatypes, d.ShortName(), d.String()) // "float64", "MPI_DOUBLE"
	}
	v.Levels = map[factor.ID][]string{}
	v.Check = map[factor.ID]func(string) error{}
	for id, a := range accessors {
		if a.levels != nil {
			v.Levels[factor.ID(id)] = a.levels()
		}
		if a.check != nil {
			v.Check[factor.ID(id)] = a.check
		}
	}
	return v
}

// checkClockSync accepts "none", "auto" and what clocksync.ParseSpec accepts.
func checkClockSync(spec string) error {
	if spec == "none" || spec == "auto" {
		return nil
	}
	if _, err := clocksync.ParseSpec(spec); err != nil {
		return fmt.Errorf("reprobench: clock sync %q: %w", spec, err)
	}
	return nil
}

// experimentSeed is the seed of experiment exp's random choices (cache
// offsets) in a run with seed seed.
func experimentSeed(seed uint64, exp int) uint64 { return seed ^ uint64(exp)*0x9e3779b97f4a7c15 }

// Base holds the levels that the empty cells of a design row take: the
// run's (its flags'). DefaultBase returns the verified ones.
type Base struct {
	Experiment
	// AutoRuntime gives a row whose runtime cell is empty the completion
	// time DefaultExperiment takes for the row's method — global for
	// the windowed methods, local for the barrier methods — instead of
	// Experiment.Runtime.
	AutoRuntime bool
}

// DefaultBase returns what "reprobench run" fills empty cells with when
// given no flags: DefaultExperiment under DefaultMethod,
// with AutoRuntime.
func DefaultBase() Base {
	return Base{Experiment: DefaultExperiment(DefaultMethod), AutoRuntime: true}
}

// FromDesign returns the engine experiment of design row de for a
// communicator of np ranks. base holds the run's defaults (its flags):
// every empty cell of de takes base's value, except call (required),
// msize_bytes (empty is 0 bytes) and, with base.AutoRuntime, runtime. A
// method factor's cell is parsed and set through its row of the accessor
// table (factors.go), in table order; its parse error is returned. An
// nrep cell "auto" makes the row adaptive with base.Stop (or the default
// analysis.StopRule), a count makes it fixed. The
// result carries de's labels (over base's) and clock synchronization spec
// as fields, its seed derives from seed and de.Exp, and a random
// prehistory's count from seed, de.Mpirun and de.Exp
// (Prehistory.Draw).
func FromDesign(de design.Experiment, base Base, seed uint64, np int) (Experiment, error) {
	where := fmt.Sprintf("mpirun %d exp %d", de.Mpirun, de.Exp)
	if de.File != "" {
		where = fmt.Sprintf("%s:%d", de.File, de.Line)
	}
	fail := func(err error) (Experiment, error) {
		return Experiment{}, fmt.Errorf("reprobench: %s: %w", where, err)
	}
	if de.Np != 0 && de.Np != np {
		return fail(fmt.Errorf("np=%d, but this mpirun has %d ranks", de.Np, np))
	}
	ex := base.Experiment
	ex.Exp = de.Exp
	ex.Seed = experimentSeed(seed, de.Exp)
	ex.Prehistory = ex.Prehistory.Draw(seed, de.Mpirun, de.Exp)
	var err error
	// The call and the size are what a design is about: a row names its
	// call, and an empty size is 0 bytes (as run always read them).
	if de.Call == "" {
		return fail(fmt.Errorf("no call"))
	}
	if ex.Call, err = mpi.ParseCall(de.Call); err != nil {
		return fail(err)
	}
	ex.MsizeBytes = de.MsizeBytes
	if de.Datatype != "" {
		if ex.Type, err = mpi.ParseDatatype(de.Datatype); err != nil {
			return fail(err)
		}
	}
	switch {
	case de.NrepAuto: // adaptive: the run's stop rule, else the defaults
		if ex.Stop == nil {
			ex.Stop = &analysis.StopRule{}
		}
	case de.Nrep != 0: // a count overrides the run's --nrep auto
		ex.Nrep, ex.Stop = de.Nrep, nil
	}
	// The factors' cells: a method factor's through its row's accessor
	// (the table's order), a call parameter's as written over the run's
	// levels for the calls that take them (the engine refuses a skew for
	// calls without count vectors, and ignores the others a call does not
	// take).
	cells := de.Factors
	for id := range factor.NumIDs {
		if !cells.Has(id) {
			continue
		}
		if a := accessors[id]; a.set != nil {
			if err := a.set(&ex, cells); err != nil {
				return fail(err)
			}
			cells.Clear(id)
		}
	}
	if base.AutoRuntime && !de.Factors.Has(factor.RuntimeType) {
		ex.Runtime = defaultRuntime(ex.Sync.Method)
	}
	ex.Params = cells.Over(ex.Call.Levels(ex.Params))
	if len(de.Labels) > 0 {
		l := make(map[string]string, len(base.Labels)+len(de.Labels))
		for k, v := range base.Labels {
			l[k] = v
		}
		for k, v := range de.Labels {
			if err := rawdata.CheckLabel(k, v); err != nil {
				return fail(err)
			}
			if v != "" {
				l[k] = v
			}
		}
		ex.Labels = l
	}
	if err := ex.Check(np); err != nil {
		return fail(err)
	}
	return ex, nil
}

// FromDesignFile returns the experiments of mpirun m of d, in its order.
func FromDesignFile(d *design.Design, m int, base Base, seed uint64, np int) ([]Experiment, error) {
	var exps []Experiment
	for _, de := range d.Mpirun(m) {
		ex, err := FromDesign(de, base, seed, np)
		if err != nil {
			return nil, err
		}
		exps = append(exps, ex)
	}
	if len(exps) == 0 {
		return nil, fmt.Errorf("reprobench: the design has no experiments for mpirun %d", m)
	}
	return exps, nil
}

// Factorial is a flag-driven run: every combination of its levels.
type Factorial struct {
	Calls   []mpi.Call
	Sizes   []int // bytes (design.ParseSizes)
	Methods []window.Method
}

// Plan returns the design plan of f (the factors of a design file).
func (f Factorial) Plan(seed uint64) design.Plan {
	p := design.Plan{Mpiruns: 1, Seed: seed}
	for _, c := range f.Calls {
		p.Factors.Calls = append(p.Factors.Calls, c.String())
	}
	p.Factors.MsizesBytes = append([]int(nil), f.Sizes...)
	for _, m := range f.Methods {
		p.Factors.Levels[factor.ProcSync] = append(p.Factors.Levels[factor.ProcSync], m.String())
	}
	return p
}

// Experiments returns the experiments of mpirun m: the full factorial of f
// on base, numbered and shuffled exactly as design.Generate numbers and
// shuffles the same factors with the same seed (Hunold & Carpen-Amarie 2016, Alg. 5), so the
// experiment number names the same configuration in every mpirun.
func (f Factorial) Experiments(base Base, seed uint64, m, np int) ([]Experiment, error) {
	des, err := design.MpirunOrder(f.Plan(seed), m)
	if err != nil {
		return nil, fmt.Errorf("reprobench: %w", err)
	}
	exps := make([]Experiment, 0, len(des))
	for _, de := range des {
		ex, err := FromDesign(de, base, seed, np)
		if err != nil {
			return nil, err
		}
		exps = append(exps, ex)
	}
	return exps, nil
}
