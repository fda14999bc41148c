package tune

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/reprobench/reprobench/mpi"
)

// Library is a family of MPI libraries whose collective algorithms the
// catalogue knows (Catalog).
type Library string

// The libraries of the catalogue.
const (
	// OpenMPI is Open MPI 4.1's coll/tuned component.
	OpenMPI Library = "Open MPI"
	// MPICH is MPICH 4.0's MPIR collectives.
	MPICH Library = "MPICH"
	// Simulated is package mpitest's simulated world (its simulated MPI_T
	// table, mpitest.ControlVariables).
	Simulated Library = "simulated"
)

// DefaultCandidate is the name of the candidate that sets nothing: the
// library's own selection. Every collective of a catalogue has it.
const DefaultCandidate = "default"

// Setting is one control variable that a candidate sets through the
// environment of an mpirun.
type Setting struct {
	// Cvar is the MPI_T control variable's name
	// ("coll_tuned_allreduce_algorithm").
	Cvar string
	// Env is the environment variable that sets it before MPI_Init
	// ("OMPI_MCA_coll_tuned_allreduce_algorithm").
	Env string
	// Value is the text written to Env ("4", "recursive_doubling").
	Value string
	// ReadBack is the value that MPI_T reads back (mpi.ControlVariable's
	// Value) when the setting took effect: the enumeration's integer for
	// an MPICH algorithm name, Value otherwise.
	ReadBack string
}

// Algorithm is one algorithm a library offers for a collective.
type Algorithm struct {
	// Name is the library's name of the algorithm, as its enumeration or
	// documentation spells it ("segmented_ring").
	Name string
	// Value is the selecting variable's integer for it (Open MPI's
	// enumeration value; MPICH's index in the variable's list).
	Value int
	// Segmented: the algorithm takes a segment size (Collective.Segsize).
	Segmented bool
	// Note says more about the algorithm, when there is more to say.
	Note string
	// Needs says when the algorithm applies, "" for always: outside it
	// the call fails (MPICH with the fallback set to error, which the
	// forced candidates set), and so does the mpirun. The condition
	// covers every call of the collective in the mpirun, reprobench's
	// own (one-element reductions, small broadcasts) included.
	Needs string
	// MinCountPof2: the library refuses the algorithm on a call whose
	// count (elements) is below the largest power of two not above the
	// number of ranks (MPICH's "size-ge-pof2" restriction). Unlike Needs,
	// this holds per message size: a loop leaves the candidate out of the
	// sizes where it fails (Candidate.Refuses) and runs it at the others.
	MinCountPof2 bool
}

// Collective is what a library offers for one collective call.
type Collective struct {
	// Call is the MPI name ("MPI_Allreduce").
	Call string
	// Cvar selects the algorithm; Env is its environment variable.
	Cvar, Env string
	// Segsize is the control variable of the segment size in bytes (Open
	// MPI), "" when the library has none for the call; SegsizeEnv sets
	// it.
	Segsize, SegsizeEnv string
	// Algorithms are the forced choices, in the order of their Value.
	Algorithms []Algorithm
	// Common are the settings that every forced candidate of the call
	// also needs so that the choice is not bypassed or silently replaced
	// (Open MPI's coll_tuned_use_dynamic_rules; MPICH's fallback set to
	// error and the device-level collective off).
	Common []Setting
}

// Catalog is one library's collective algorithms and how each is
// selected.
type Catalog struct {
	Library Library
	// Versions are the library versions the catalogue was checked
	// against.
	Versions string
	// Source says where the names and values come from.
	Source string
	// WithinMpirun says whether and how the algorithm may change within
	// one mpirun.
	WithinMpirun string
	Collectives  []Collective
}

// Candidate is one level of the algorithm factor for a call: a name
// (DefaultCandidate, an algorithm's Name, or Name+"+segsize="+bytes) and
// the settings it makes.
type Candidate struct {
	Call string
	// Name is the factor level: "default", "ring", "ring+segsize=1024".
	Name string
	// Settings are the control variables it sets, none for the default.
	Settings []Setting
	// Needs is the algorithm's Needs.
	Needs string
	// MinCountPof2 is the algorithm's MinCountPof2.
	MinCountPof2 bool
}

// Refuses reports whether the library refuses c on a call of bytes
// bytes (count × elem, elem the element's size in bytes, > 0) at np
// processes, as far as the catalogue knows per size (Algorithm's
// MinCountPof2). Needs is not consulted: it covers every call of an
// mpirun, not one size.
func (c Candidate) Refuses(bytes int64, np, elem int) bool {
	if !c.MinCountPof2 || elem <= 0 || np < 1 {
		return false
	}
	pof2 := int64(1)
	for pof2*2 <= int64(np) {
		pof2 *= 2
	}
	return bytes/int64(elem) < pof2
}

// Env returns the candidate's environment assignments, "NAME=value".
func (c Candidate) Env() []string {
	out := make([]string, len(c.Settings))
	for i, s := range c.Settings {
		out[i] = s.Env + "=" + s.Value
	}
	return out
}

// Expect returns the read-back expectation of the candidate's settings
// as "cvar=value" separated by ';' (provenance's ExpectEnv syntax), ""
// for the default.
func (c Candidate) Expect() string {
	var b []string
	for _, s := range c.Settings {
		b = append(b, s.Cvar+"="+s.ReadBack)
	}
	return strings.Join(b, ";")
}

// catalogs returns the catalogue of every library, in the order OpenMPI,
// MPICH, Simulated. The values are fresh copies.
func catalogs() []*Catalog { return []*Catalog{openMPI(), mpich(), simulated()} }

// CatalogFor returns lib's catalogue, or nil.
func CatalogFor(lib Library) *Catalog {
	for _, c := range catalogs() {
		if c.Library == lib {
			return c
		}
	}
	return nil
}

// LibraryOf returns the Library of an MPI_Get_library_version string ("Open
// MPI v4.1.4, …", "MPICH Version: 4.0.2 …", or package mpitest's
// "simulated"), and false for another library.
func LibraryOf(version string) (Library, bool) {
	switch v := strings.TrimSpace(version); {
	case strings.HasPrefix(v, "Open MPI"):
		return OpenMPI, true
	case strings.HasPrefix(v, "MPICH"):
		return MPICH, true
	case strings.HasPrefix(v, "simulated"):
		return Simulated, true
	}
	return "", false
}

// Collective returns the catalogue's entry of call ("MPI_Allreduce"), or
// nil.
func (c *Catalog) Collective(call string) *Collective {
	for i := range c.Collectives {
		if c.Collectives[i].Call == call {
			return &c.Collectives[i]
		}
	}
	return nil
}

// Candidates returns the candidates of call: the default, every
// algorithm, and each segmented algorithm once more per segment size of
// segsizes (bytes > 0). It returns an error for a call the catalogue
// lacks, or segment sizes for a library without a segment size.
func (c *Catalog) Candidates(call string, segsizes []int) ([]Candidate, error) {
	col := c.Collective(call)
	if col == nil {
		return nil, fmt.Errorf("tune: %s: no algorithms of %s in the catalogue", c.Library, call)
	}
	if len(segsizes) > 0 && col.Segsize == "" {
		return nil, fmt.Errorf("tune: %s: %s has no segment size", c.Library, call)
	}
	out := []Candidate{{Call: call, Name: DefaultCandidate}}
	for _, a := range col.Algorithms {
		out = append(out, col.candidate(a, 0))
		if a.Segmented {
			for _, s := range segsizes {
				if s <= 0 {
					return nil, fmt.Errorf("tune: segment size %d: want bytes > 0", s)
				}
				out = append(out, col.candidate(a, s))
			}
		}
	}
	return out, nil
}

// Candidate returns the candidate of call named name: "default", an
// algorithm's name, or a segmented algorithm's name followed by
// "+segsize=" and a positive number of bytes.
func (c *Catalog) Candidate(call, name string) (Candidate, error) {
	col := c.Collective(call)
	if col == nil {
		return Candidate{}, fmt.Errorf("tune: %s: no algorithms of %s in the catalogue", c.Library, call)
	}
	if name == DefaultCandidate {
		return Candidate{Call: call, Name: name}, nil
	}
	alg, opt, _ := strings.Cut(name, "+")
	i := slices.IndexFunc(col.Algorithms, func(a Algorithm) bool { return a.Name == alg })
	if i < 0 {
		names := []string{DefaultCandidate}
		for _, a := range col.Algorithms {
			names = append(names, a.Name)
		}
		return Candidate{}, fmt.Errorf("tune: %s %s: no algorithm %q (want one of %s)", c.Library, call, alg, strings.Join(names, ", "))
	}
	a := col.Algorithms[i]
	if opt == "" {
		return col.candidate(a, 0), nil
	}
	v, ok := strings.CutPrefix(opt, "segsize=")
	n, err := strconv.Atoi(v)
	if !ok || err != nil || n <= 0 {
		return Candidate{}, fmt.Errorf("tune: candidate %q: want NAME or NAME+segsize=BYTES", name)
	}
	if !a.Segmented || col.Segsize == "" {
		return Candidate{}, fmt.Errorf("tune: %s %s: %s takes no segment size", c.Library, call, alg)
	}
	return col.candidate(a, n), nil
}

// candidate returns the candidate forcing a, with segment size seg bytes
// when seg > 0.
func (col *Collective) candidate(a Algorithm, seg int) Candidate {
	val := strconv.Itoa(a.Value)
	if col.byName() {
		val = a.Name
	}
	c := Candidate{Call: col.Call, Name: a.Name, Needs: a.Needs, MinCountPof2: a.MinCountPof2}
	c.Settings = append(slices.Clone(col.Common), Setting{Cvar: col.Cvar, Env: col.Env, Value: val, ReadBack: strconv.Itoa(a.Value)})
	if seg > 0 {
		c.Name += "+segsize=" + strconv.Itoa(seg)
		s := strconv.Itoa(seg)
		c.Settings = append(c.Settings, Setting{Cvar: col.Segsize, Env: col.SegsizeEnv, Value: s, ReadBack: s})
	}
	return c
}

// byName reports whether the selecting variable is set by the
// algorithm's name (MPICH's and the simulator's enumerated variables)
// rather than its number (Open MPI).
func (col *Collective) byName() bool { return !strings.HasPrefix(col.Cvar, "coll_tuned_") }

// CheckEnumerations compares the catalogue with the control variables
// vs that the library reports through MPI_T (mpi.ControlVariables): every
// variable the catalogue names must exist, and where the library has an
// enumeration for the selecting variable, the catalogue's algorithms
// must be exactly its items other than 0 (Open MPI's "ignore": the
// library's own choice), with the same values. It returns every
// mismatch.
func (c *Catalog) CheckEnumerations(vs []mpi.ControlVariable) error {
	by := map[string]mpi.ControlVariable{}
	for _, v := range vs {
		by[v.Name] = v
	}
	var errs []string
	need := func(name string) (mpi.ControlVariable, bool) {
		v, ok := by[name]
		if !ok {
			errs = append(errs, fmt.Sprintf("no control variable %s", name))
		}
		return v, ok
	}
	for _, col := range c.Collectives {
		for _, s := range col.Common {
			need(s.Cvar)
		}
		if col.Segsize != "" {
			need(col.Segsize)
		}
		v, ok := need(col.Cvar)
		if !ok || len(v.Enum) == 0 {
			continue
		}
		var want []string
		for _, a := range col.Algorithms {
			want = append(want, strconv.Itoa(a.Value)+"="+a.Name)
		}
		var have []string
		for _, e := range v.Enum {
			if !strings.HasPrefix(e, "0=") {
				have = append(have, e)
			}
		}
		if !slices.Equal(want, have) {
			errs = append(errs, fmt.Sprintf("%s: the catalogue has %v, MPI_T's enumeration %v", col.Cvar, want, have))
		}
	}
	if len(errs) > 0 {
		return fmt.Errorf("tune: %s catalogue: %s", c.Library, strings.Join(errs, "; "))
	}
	return nil
}

// ompiColl is Open MPI's entry of a collective (coll_tuned_<coll>_…).
func ompiColl(call, coll string, segmented []string, algs ...string) Collective {
	cv := "coll_tuned_" + coll + "_algorithm"
	col := Collective{Call: call, Cvar: cv, Env: "OMPI_MCA_" + cv,
		Segsize: cv + "_segmentsize", SegsizeEnv: "OMPI_MCA_" + cv + "_segmentsize",
		Common: []Setting{{Cvar: "coll_tuned_use_dynamic_rules", Env: "OMPI_MCA_coll_tuned_use_dynamic_rules", Value: "1", ReadBack: "1"}}}
	for i, a := range algs {
		col.Algorithms = append(col.Algorithms, Algorithm{Name: a, Value: i + 1, Segmented: slices.Contains(segmented, a)})
	}
	return col
}

// openMPI is Open MPI 4.1's coll/tuned: the enumerations of
// coll_tuned_<coll>_algorithm as MPI_T reports them (checked by
// CheckEnumerations against the library), forced only with
// coll_tuned_use_dynamic_rules=1. Which algorithms honour the segment
// size follows coll_tuned's source (ompi/mca/coll/base, 4.1): those that
// pipeline segments.
func openMPI() *Catalog {
	c := &Catalog{Library: OpenMPI, Versions: "4.1 (checked: 4.1.4 here)",
		Source: "MPI_T enumerations of coll_tuned_<coll>_algorithm (value 0, \"ignore\", is the library's own choice: the default candidate); " +
			"segment sizes: coll_tuned_<coll>_algorithm_segmentsize, honoured by the pipelining algorithms (ompi/mca/coll/base)",
		WithinMpirun: "possible, not used: MPI_T reports coll_tuned_<coll>_algorithm and its segment size with scope all (writable at run " +
			"time; 4.1.4 here) but coll_tuned_use_dynamic_rules readonly (so set it in the environment); coll/tuned copies the forced " +
			"algorithm into a communicator's module when the communicator is created, so an MPI_T write followed by a new communicator " +
			"would change it within an mpirun (the behaviour not verified here); reprobench sets it per mpirun through the environment"}
	c.Collectives = []Collective{
		ompiColl("MPI_Allreduce", "allreduce", []string{"segmented_ring"},
			"basic_linear", "nonoverlapping", "recursive_doubling", "ring", "segmented_ring", "rabenseifner"),
		ompiColl("MPI_Bcast", "bcast", []string{"chain", "pipeline", "split_binary_tree", "binary_tree", "binomial", "knomial"},
			"basic_linear", "chain", "pipeline", "split_binary_tree", "binary_tree", "binomial", "knomial", "scatter_allgather", "scatter_allgather_ring"),
		ompiColl("MPI_Reduce", "reduce", []string{"chain", "pipeline", "binary", "binomial", "in-order_binary"},
			"linear", "chain", "pipeline", "binary", "binomial", "in-order_binary", "rabenseifner"),
	}
	return c
}

// mpichColl is MPICH's entry of a collective (MPIR_CVAR_<COLL>_…).
func mpichColl(call, coll string, notes, needs map[string]string, pof2 []string, algs ...string) Collective {
	cv := "MPIR_CVAR_" + coll + "_INTRA_ALGORITHM"
	dev := "MPIR_CVAR_" + coll + "_DEVICE_COLLECTIVE"
	col := Collective{Call: call, Cvar: cv, Env: cv,
		Common: []Setting{
			{Cvar: "MPIR_CVAR_COLLECTIVE_FALLBACK", Env: "MPIR_CVAR_COLLECTIVE_FALLBACK", Value: "error", ReadBack: "0"},
			{Cvar: dev, Env: dev, Value: "0", ReadBack: "0"},
		}}
	for i, a := range algs {
		col.Algorithms = append(col.Algorithms, Algorithm{Name: a, Value: i + 1, Note: notes[a], Needs: needs[a], MinCountPof2: slices.Contains(pof2, a)})
	}
	return col
}

// mpich is MPICH 4.0's MPIR-level algorithms. MPI_T reports these
// variables as int without an enumeration; the names and their order
// (the integer MPI_T reads back is the name's index, auto = 0) are the
// variables' MPI_T descriptions (MPI_T_cvar_get_info's desc) in MPICH
// 4.0.2, checked here by setting each name and reading the integer back.
// The device-level collective (ch4's own selection, which may bypass the
// MPIR algorithm) is turned off and the fallback set to error for every
// forced candidate, so that an algorithm that does not apply fails the
// run instead of silently running another.
func mpich() *Catalog {
	smp := "a communicator over several nodes with several ranks on each (on one node, np 2, the first call failed here)"
	nb := "runs the nonblocking algorithm (MPI_I<coll> and a wait)"
	countNp := "a count of at least the largest power of two not above the number of ranks (MPICH's size-ge-pof2; at np 2 here, the 1-element call failed)"
	pof2 := []string{"reduce_scatter_allgather", "reduce_scatter_gather"}
	c := &Catalog{Library: MPICH, Versions: "4.0 (checked: 4.0.2 ch4:ucx here)",
		Source: "MPI_T descriptions of MPIR_CVAR_<COLL>_INTRA_ALGORITHM in MPICH 4.0.2 (no MPI_T enumeration: the value is an int, " +
			"the name's index, auto = 0); MPIR_CVAR_COLLECTIVE_FALLBACK (error = 0, print = 1, silent = 2) and " +
			"MPIR_CVAR_<COLL>_DEVICE_COLLECTIVE (\"If set to false, the device-override will be disabled\") from the same descriptions",
		WithinMpirun: "possible, not used: MPI_T reports MPIR_CVAR_<COLL>_INTRA_ALGORITHM, _DEVICE_COLLECTIVE and the fallback with scope " +
			"all_eq (writable at run time, the same value on every process; 4.0.2 here), and the MPIR level reads the algorithm variable " +
			"at every call, so an MPI_T write on every rank changes the next call on any communicator (the behaviour not verified here); " +
			"reprobench sets it per mpirun through the environment"}
	c.Collectives = []Collective{
		mpichColl("MPI_Allreduce", "ALLREDUCE", map[string]string{"nb": nb},
			map[string]string{"smp": smp, "reduce_scatter_allgather": countNp + "; reprobench's own 1-element MPI_Allreduce fails with it"}, pof2,
			"nb", "smp", "recursive_doubling", "reduce_scatter_allgather"),
		mpichColl("MPI_Bcast", "BCAST", map[string]string{"nb": nb}, map[string]string{"smp": smp}, nil,
			"binomial", "nb", "smp", "scatter_recursive_doubling_allgather", "scatter_ring_allgather"),
		mpichColl("MPI_Reduce", "REDUCE", map[string]string{"nb": nb, "reduce_scatter_gather": countNp},
			map[string]string{"smp": smp}, pof2,
			"binomial", "nb", "smp", "reduce_scatter_gather"),
	}
	return c
}

// simulated is package mpitest's algorithm model: per collective
// RBSIM_<COLL>_ALGORITHM, whose enumeration names the algorithms (0,
// auto, is the default candidate: binomial under another name), and
// RBSIM_<COLL>_SEGSIZE (bytes) for the segmented one. The names and
// values are the simulated world's MPI_T table, which the catalogue's
// tests compare with mpitest.ControlVariableTable; tune does not import
// the simulator outside its tests.
func simulated() *Catalog {
	c := &Catalog{Library: Simulated, Versions: "package mpitest",
		Source:       "mpitest's simulated MPI_T table (mpitest.ControlVariableTable)",
		WithinMpirun: "no: a simulated world reads its control variables when it is created (mpitest.Config.Cvars)"}
	for _, p := range [][2]string{{"MPI_Allreduce", "ALLREDUCE"}, {"MPI_Bcast", "BCAST"}, {"MPI_Reduce", "REDUCE"}} {
		cv := simCvarPrefix + p[1] + "_ALGORITHM"
		sg := simCvarPrefix + p[1] + "_SEGSIZE"
		c.Collectives = append(c.Collectives, Collective{Call: p[0], Cvar: cv, Env: cv, Segsize: sg, SegsizeEnv: sg,
			Algorithms: []Algorithm{{Name: "binomial", Value: 1}, {Name: "linear", Value: 2}, {Name: "segmented", Value: 3, Segmented: true}}})
	}
	return c
}

// simCvarPrefix begins the simulated world's control variables
// (the prefix package mpitest gives them).
const simCvarPrefix = "RBSIM_"
