package design

import (
	"fmt"
	"slices"
	"sort"

	"github.com/reprobench/reprobench/factor"
)

// Experiment is one row of a design: one configuration measured Nrep times
// in one mpirun. Zero values and empty strings mean "use the run's flag
// default" (so a literal message size of 0 bytes cannot be expressed in a
// design; see [Generate]).
type Experiment struct {
	// Mpirun is the 0-based index of the mpirun (call of the launcher) that
	// executes this experiment; Hunold & Carpen-Amarie 2016, §5.2 shows that the mpirun is a
	// factor, so every configuration is measured in several of them.
	Mpirun int
	// Exp identifies the experiment within its mpirun. Generated designs
	// number it point·replicates + replicate, where point is the index of
	// the factor combination in the unshuffled full factorial: the same
	// Exp means the same configuration in every mpirun.
	Exp int
	// Np is the number of processes (0: all of the mpirun's processes).
	Np int
	// Call is the MPI operation, e.g. "MPI_Bcast" (see Vocabulary.Calls).
	Call string
	// MsizeBytes is the message size in bytes.
	MsizeBytes int
	// Datatype is the MPI datatype, e.g. "MPI_CHAR".
	Datatype string
	// Nrep is the number of observations of this experiment.
	Nrep int
	// NrepAuto makes the number of observations adaptive (the cell
	// "auto" in column nrep; Nrep is then 0): the run observes until its
	// stop rule is met (engine.Experiment.Stop, the run's --ci-width).
	NrepAuto bool
	// Factors are the cells of the factor table's rows that have a design
	// column (package factor, factor.DesignColumns: the method factors
	// procsync, window_s, clocksync, runtime_type, cache and noise_guard,
	// and the call parameters), one column each, as name/value cells; a
	// factor the row leaves unset (an empty cell) is the run's. A
	// window_s of 0 is unset.
	Factors factor.Values
	// Labels are the user factors (column "label:KEY"); an empty value is
	// the same as an absent key.
	Labels map[string]string

	// File and Line say where the row was read from (empty and 0 for
	// generated designs), for error messages of the engine.
	File string
	Line int
}

// config is e without its place (mpirun, exp, file, line): what must be
// the same wherever an experiment number is used.
func (e Experiment) config() string {
	keys := make([]string, 0, len(e.Labels))
	for k, v := range e.Labels {
		if v != "" {
			keys = append(keys, k+"="+v)
		}
	}
	sort.Strings(keys)
	return fmt.Sprintf("np=%d call=%s msize_bytes=%d datatype=%s nrep=%s labels=%v factors=[%v]",
		e.Np, e.Call, e.MsizeBytes, e.Datatype, e.nrepCell(), keys, e.Factors)
}

// Design is a list of experiments over several mpiruns, with the seed that
// shuffled them (Hunold & Carpen-Amarie 2016, Alg. 5: the order of the experiments is a random
// permutation within each mpirun).
type Design struct {
	// Seed is the seed recorded in the file ("# seed=N"). It is 0 when
	// HasSeed is false.
	Seed uint64
	// HasSeed reports whether the file recorded a seed; hand-written
	// designs may not.
	HasSeed bool
	// Experiments in file order. The rows of one mpirun are in execution
	// order; rows of different mpiruns may be interleaved (Write groups
	// them by mpirun).
	Experiments []Experiment
	// Comments are the free-form comment lines before the header, without
	// the leading "#" (the seed line excluded).
	Comments []string
}

// Mpiruns returns the distinct mpirun indices of d in increasing order.
func (d *Design) Mpiruns() []int {
	seen := map[int]bool{}
	var ms []int
	for _, e := range d.Experiments {
		if !seen[e.Mpirun] {
			seen[e.Mpirun] = true
			ms = append(ms, e.Mpirun)
		}
	}
	sort.Ints(ms)
	return ms
}

// Mpirun returns the experiments of mpirun m in execution order.
func (d *Design) Mpirun(m int) []Experiment {
	var es []Experiment
	for _, e := range d.Experiments {
		if e.Mpirun == m {
			es = append(es, e)
		}
	}
	return es
}

// MaxNp returns the largest Np of d (0 if every row uses the default).
func (d *Design) MaxNp() int {
	n := 0
	for _, e := range d.Experiments {
		n = max(n, e.Np)
	}
	return n
}

// LabelKeys returns the sorted keys of all labels used in d.
func (d *Design) LabelKeys() []string {
	seen := map[string]bool{}
	var ks []string
	for _, e := range d.Experiments {
		for k, v := range e.Labels {
			if v != "" && !seen[k] {
				seen[k] = true
				ks = append(ks, k)
			}
		}
	}
	sort.Strings(ks)
	return ks
}

// Vocabulary lists the values allowed in the columns of a design file. The
// caller injects them (the CLI fills them from mpi.Calls() and the engine's
// lists) so that this package does not depend on the MPI binding. A nil list
// accepts anything; an empty cell is always accepted (it means "the run's
// default").
type Vocabulary struct {
	Calls     []string
	Datatypes []string
	// Levels lists, by factor ID, the levels a text factor's cells may
	// take (procsync: window's method names); a factor without a list
	// takes any text.
	Levels map[factor.ID][]string
	// Check, by factor ID, checks a text factor's cell that no list
	// bounds (clocksync: clocksync's spec parser), so that a bad spec is
	// refused when the design is read, not in the middle of a campaign.
	// It is not called for the level none (factor.LevelNone).
	Check map[factor.ID]func(level string) error
}

// check reports whether v is allowed by list (nil: everything).
func allowed(list []string, v string) bool {
	return v == "" || list == nil || slices.Contains(list, v)
}

func notAllowed(list []string, v string) error {
	return fmt.Errorf("%q is not one of %v", v, list)
}

// nrepCell is the nrep column's cell of e: "auto", empty for 0, or the
// count.
func (e Experiment) nrepCell() string {
	switch {
	case e.NrepAuto:
		return "auto"
	case e.Nrep == 0:
		return ""
	}
	return fmt.Sprint(e.Nrep)
}
