// Package factor is the factor table of reprobench: one row (a Factor) per
// experiment factor that the raw data records per row, as package mpi's
// operation table has one row per call: each contract has one owner. A row
// says the factor's column name (the same in design files and raw files),
// its run flag and help, how its levels are parsed and formatted, which
// calls it applies to (the operation table's parameter of the same name),
// whether it enters the analysis's group key, and how it reaches C (a
// slot of rb_args.params, generated into mpi/rbmpi_ops.h).
//
// Two kinds of rows. The method factors (procsync, window_s,
// runtime_type, cache, clocksync, noise_guard) apply to every call; their
// typed values live in package window and the engine, design rows and raw
// rows carry them as cells (Values), the root package's accessor table
// reads and sets them on an experiment, and the table gives their
// columns, flags, order and group-key membership. The call
// parameters (skew, bw_window, rma_sync, in_place, root_shift,
// buf_offset) apply to the calls that take them; their levels travel as
// one Values from the design through the engine to mpi.Observation.Params
// and C's rb_args.params, so that adding one is a row here plus the C,
// simulator or buffer code that implements it. Three of them also have a
// typed mirror for their family's code, set from Values in one place
// (mpi.Observation.SetParams): Observation.Skew, BWWindow and RMASync.
//
// One row is of a third kind: algorithm has Scope PerMpirun. Its level
// (KindText, a name) is fixed for an mpirun, set by the launcher through
// the environment variable of the row (Env, MpirunLevels) before
// MPI_Init, and written in every row of the mpirun's raw file.
//
// The package imports no other package of reprobench: design, rawdata,
// analysis, engine, mpi and the CLI import it.
package factor

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Levels that writers outside the engine record for the method factors
// of rows no method produced (package region's rows: no process
// synchronization, the local completion time, no clock sync).
const (
	// LevelNone is procsync's and clocksync's level when nothing
	// synchronized.
	LevelNone = "none"
	// LevelLocal is runtime_type's level of a completion time measured
	// locally (window.RuntimeLocal's name).
	LevelLocal = "local"
)

// ID is a row of the table: its index in Table.
type ID int

// The factors, in the order of the raw file's factor columns.
const (
	ProcSync ID = iota
	Window
	RuntimeType
	Cache
	ClockSync
	Skew
	NoiseGuard
	BWWindow
	RMASync
	InPlace
	RootShift
	BufOffset
	Algorithm
	NumIDs
)

// Kind is how a factor's levels are written.
type Kind int

// The kinds of levels.
const (
	// KindText: free text (a method's name, a clock sync spec).
	KindText Kind = iota
	// KindSeconds: a duration written in seconds.
	KindSeconds
	// KindInt: a positive integer in [Min, Max].
	KindInt
	// KindEnum: one of Levels; the value is its index.
	KindEnum
	// KindBool: Levels are "off" and "on"; the value is 0 or 1.
	KindBool
)

// Scope is how often a factor's level may change within a run.
type Scope int

// The scopes.
const (
	// PerExperiment: a design row sets it; the zero Scope.
	PerExperiment Scope = iota
	// PerRow: it may change from one observation to the next (a
	// covariate recorded per row).
	PerRow
	// PerMpirun: an environment setting, fixed for an mpirun (set by the
	// launcher before MPI_Init).
	PerMpirun
)

// String names the scope.
func (s Scope) String() string {
	switch s {
	case PerExperiment:
		return "experiment"
	case PerRow:
		return "row"
	case PerMpirun:
		return "mpirun"
	}
	return fmt.Sprintf("Scope(%d)", int(s))
}

// Factor is one row of the table.
type Factor struct {
	// ID is the row's index (set from the table's keys).
	ID ID
	// Name is the column in design files and raw files ("bw_window").
	Name string
	// Flag is the run flag that sets the run's level ("bw-window"); the
	// CLI registers the call parameters' flags from the rows.
	Flag string
	// Help says what the factor is, in one sentence; the CLI appends the
	// calls it applies to.
	Help string
	// Unit is the unit of a numeric level in base units ("s", "bytes",
	// "messages"), empty for names and plain counts.
	Unit string
	// Scope says how often the level may change: per experiment (a
	// design row); per mpirun for an environment setting that the
	// launcher must set before MPI_Init (algorithm; its level reaches the
	// run through Env, never through a design row or Values).
	Scope Scope
	// Kind is how the levels are written; Levels names them (KindEnum,
	// KindBool), and Aliases maps other accepted spellings to a name of
	// Levels; Min and Max bound a KindInt level.
	Kind     Kind
	Levels   []string
	Aliases  map[string]string
	Min, Max int64
	// Default is the level that an unset value means for a call the factor
	// applies to (Values.Level): what the raw data records when neither
	// the design nor the run set it.
	Default int64
	// Family names the call family ("coll", "p2p", …, as mpi.Family's
	// String) whose code implements the factor; empty for a method
	// factor; "*" for a call parameter of the buffers, which the calls
	// with buffers of every family take (buf_offset). A call parameter applies to the calls whose operation-table
	// rows take the mpi.Param of the same Name; a coll row may also apply
	// to the calls built on the blocking collectives (the nbc twins, the
	// vcoll v-collectives: root_shift), whose code implements it too.
	Family string
	// Call marks a call parameter: carried in Values and applied through
	// mpi.Observation.Params; its raw cell is empty for the calls it does
	// not apply to.
	Call bool
	// Group says that the raw column enters the analysis's group key
	// (package analysis reads it); a factor column without it is read as
	// a covariate, grouped only when asked (analyze --by).
	Group bool
	// Optional says that the raw file has the column only when some
	// experiment of the run sets a level (rawdata.Writer), so that files
	// of runs that do not use the factor keep the columns they had;
	// Since is the raw-data format version that added the column.
	Optional bool
	Since    string
	// Env is the environment variable through which a launcher sets the
	// level of a PerMpirun factor for one mpirun (MpirunLevels); empty
	// for the other scopes.
	Env string
	// DesignOrder is the place of the row's column among a design file's
	// factor columns, which package design writes in increasing
	// DesignOrder (DesignColumns). Design files keep the order they have
	// always had, which differs from the raw file's (ID order) in one
	// place: clocksync comes before runtime_type. Rows of Scope
	// PerMpirun have no design column and leave it 0.
	DesignOrder int
}

// CName returns the C constant of a call parameter's slot in
// rb_args.params (rbmpi_ops.h, generated from this table): RB_F_ and
// the upper-case name ("bw_window" → RB_F_BW_WINDOW).
func (f *Factor) CName() string { return "RB_F_" + strings.ToUpper(f.Name) }

var table = [NumIDs]Factor{
	ProcSync: {Name: "procsync", DesignOrder: 1, Flag: "proc-sync", Kind: KindText, Group: true,
		Help: "process synchronization method (package window's Method names)"},
	Window: {Name: "window_s", DesignOrder: 2, Flag: "window", Kind: KindSeconds, Unit: "s", Group: true,
		Help: "initial window of the windowed methods (a duration on the command line, seconds in files)"},
	RuntimeType: {Name: "runtime_type", DesignOrder: 4, Flag: "runtime", Kind: KindText, Group: true,
		Help: "completion time per observation (package completion's Type names)"},
	Cache: {Name: "cache", DesignOrder: 5, Flag: "cache", Kind: KindText, Group: true,
		Help: "cache mode of the buffers (package cache's Mode names)"},
	ClockSync: {Name: "clocksync", DesignOrder: 3, Flag: "clock-sync", Kind: KindText, Group: true,
		Help: "clock synchronization spec (package clocksync's syntax, or none)"},
	Skew: {Name: "skew", DesignOrder: 6, Flag: "skew", Kind: KindInt, Min: 1, Max: 1<<31 - 1, Default: 1, Family: "vcoll", Call: true, Group: true,
		Help: "v-collectives' skew k: the last rank's blocks have k times the count of the others; 1: uniform counts"},
	NoiseGuard: {Name: "noise_guard", DesignOrder: 7, Flag: "noise-guard", Kind: KindBool, Levels: []string{"off", "on"}, Group: true,
		Help: "on: the windowed methods place their starts away from the periodic noise learned from late observations"},
	BWWindow: {Name: "bw_window", DesignOrder: 8, Flag: "bw-window", Kind: KindInt, Unit: "messages", Min: 1, Max: 1 << 20, Default: 64, Family: "p2p", Call: true, Group: true,
		Help: "messages per window (osu_bw's window size)"},
	RMASync: {Name: "rma_sync", DesignOrder: 9, Flag: "rma-sync", Kind: KindEnum, Levels: []string{"fence", "lock", "flush"}, Family: "p2p", Call: true, Group: true,
		Aliases: map[string]string{"lock_all": "flush", "lockall": "flush", "lockall_flush": "flush", "lock_all_flush": "flush"},
		Help:    "one-sided synchronization: fence (MPI_Win_fence; op; MPI_Win_fence), lock (MPI_Win_lock; op; MPI_Win_unlock) or flush (op; MPI_Win_flush inside MPI_Win_lock_all)"},
	InPlace: {Name: "in_place", DesignOrder: 10, Flag: "in-place", Kind: KindBool, Levels: []string{"off", "on"}, Family: "coll", Call: true, Group: true,
		Optional: true, Since: "1.2",
		Help: "on: pass MPI_IN_PLACE, the input taken from the receive buffer (OSU's -l)"},
	RootShift: {Name: "root_shift", DesignOrder: 11, Flag: "root-shift", Kind: KindBool, Levels: []string{"off", "on"}, Family: "coll", Call: true, Group: true,
		Optional: true, Since: "1.3",
		Help: "on: call i of an observation has root (root + i) mod P, as IMB's -root_shift, OSU's -k rotate (runtime loop, osu, imb)"},
	BufOffset: {Name: "buf_offset", DesignOrder: 12, Flag: "buf-offset", Kind: KindInt, Unit: "bytes", Min: 0, Max: 4095, Family: "*", Call: true, Group: true,
		Optional: true, Since: "1.5",
		Help: "bytes after a page boundary at which the send and receive buffers start (0: page-aligned; misaligned buffers change copy costs)"},
	Algorithm: {Name: "algorithm", Flag: "algorithm", Kind: KindText, Scope: PerMpirun, Env: "REPROBENCH_ALGORITHM", Group: true,
		Optional: true, Since: "1.6",
		Help: "the collective algorithm the mpirun was launched with: a candidate name of package tune's catalogue (default, ring, ring+segsize=1024), set per mpirun through the environment by the launcher"},
}

func init() {
	for i := range table {
		table[i].ID = ID(i)
	}
}

// Table returns the rows in the order of ID. The rows are shared: do not
// modify them.
func Table() []*Factor {
	out := make([]*Factor, NumIDs)
	for i := range table {
		out[i] = &table[i]
	}
	return out
}

// Row returns id's row; it panics for an invalid id.
func (id ID) Row() *Factor {
	if id < 0 || id >= NumIDs {
		panic(fmt.Sprintf("factor: invalid ID %d", int(id)))
	}
	return &table[id]
}

// String returns the row's column name.
func (id ID) String() string {
	if id < 0 || id >= NumIDs {
		return fmt.Sprintf("ID(%d)", int(id))
	}
	return table[id].Name
}

// Lookup returns the row of column name, or nil.
func Lookup(name string) *Factor {
	for i := range table {
		if table[i].Name == name {
			return &table[i]
		}
	}
	return nil
}

// CallParams returns the call parameters' IDs in table order. The slice
// is shared (it is made once, so that per-observation checks do not
// allocate): do not modify it.
func CallParams() []ID { return callParams }

var callParams = func() []ID {
	var out []ID
	for i := range table {
		if table[i].Call {
			out = append(out, ID(i))
		}
	}
	return out
}()

// Columns returns the factor columns every raw file has (the rows that
// are not Optional), in table order.
func Columns() []string {
	var out []string
	for i := range table {
		if !table[i].Optional {
			out = append(out, table[i].Name)
		}
	}
	return out
}

// DesignColumns returns the rows that have a column in design files
// (every row but those of Scope PerMpirun), in the order design files
// put them: increasing DesignOrder.
func DesignColumns() []ID {
	var out []ID
	for i := range table {
		if table[i].Scope != PerMpirun {
			out = append(out, ID(i))
		}
	}
	slices.SortStableFunc(out, func(a, b ID) int { return cmp.Compare(table[a].DesignOrder, table[b].DesignOrder) })
	return out
}

// OptionalColumns returns the columns of the Optional rows, in table
// order; a raw file has those that some experiment sets, after Columns.
func OptionalColumns() []ID {
	var out []ID
	for i := range table {
		if table[i].Optional {
			out = append(out, ID(i))
		}
	}
	return out
}

// MpirunLevels returns the levels of the PerMpirun factors that getenv
// (os.Getenv in a launched process) sets through their Env, by ID; nil
// when none is set. The launcher sets them before MPI_Init (package
// campaign); the run writes them in every row's column.
func MpirunLevels(getenv func(string) string) map[ID]string {
	var out map[ID]string
	for i := range table {
		f := &table[i]
		if f.Scope != PerMpirun || f.Env == "" {
			continue
		}
		if v := getenv(f.Env); v != "" {
			if out == nil {
				out = map[ID]string{}
			}
			out[f.ID] = v
		}
	}
	return out
}

// Parse reads one level of the factor from text: an integer in [Min,
// Max], a name of Levels, or seconds. It refuses the empty string (an
// empty cell means "not set" to its callers).
func (f *Factor) Parse(s string) (int64, error) {
	switch f.Kind {
	case KindInt:
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			return 0, fmt.Errorf("%s %q: want an integer", f.Name, s)
		}
		if n < f.Min || n > f.Max {
			return 0, fmt.Errorf("%s %d: want an integer in [%d, %d]", f.Name, n, f.Min, f.Max)
		}
		return n, nil
	case KindEnum, KindBool:
		if a, ok := f.Aliases[strings.ToLower(s)]; ok {
			s = a
		}
		for i, l := range f.Levels {
			if strings.EqualFold(s, l) {
				return int64(i), nil
			}
		}
		return 0, fmt.Errorf("%s %q: want one of %s", f.Name, s, strings.Join(f.Levels, ", "))
	case KindSeconds:
		d, err := ParseSeconds(s)
		if err != nil {
			return 0, fmt.Errorf("%s %q: %v", f.Name, s, err)
		}
		return int64(d), nil
	}
	return 0, fmt.Errorf("factor: %s takes text levels (ParseText)", f.Name)
}

// ParseText reads one level of a factor of any kind as its cell: the
// text as given for KindText (refusing only the empty string, which
// means "not set"), else the canonical formatting of Parse's value
// (Format), so that every kind has one reader.
func (f *Factor) ParseText(s string) (string, error) {
	if s == "" {
		return "", fmt.Errorf("%s: empty level", f.Name)
	}
	if f.Kind == KindText {
		return s, nil
	}
	v, err := f.Parse(s)
	if err != nil {
		return "", err
	}
	return f.Format(v), nil
}

// ParseSeconds reads a non-negative finite duration written in seconds
// ("0.0001") as nanoseconds, rounded to the nearest.
func ParseSeconds(s string) (int64, error) {
	x, err := strconv.ParseFloat(s, 64)
	if err != nil || x < 0 || x > 1e9 || x != x {
		return 0, fmt.Errorf("want a non-negative number of seconds")
	}
	return int64(x*1e9 + 0.5), nil
}

// Valid reports whether v is a level of the factor: in [Min, Max] for
// KindInt, an index of Levels for KindEnum and KindBool. It does not
// allocate (mpi.Observation.Validate calls it per observation).
func (f *Factor) Valid(v int64) bool {
	switch f.Kind {
	case KindInt:
		return v >= f.Min && v <= f.Max
	case KindEnum, KindBool:
		return v >= 0 && v < int64(len(f.Levels))
	case KindSeconds:
		return v >= 0
	}
	return false
}

// Format writes level v of the factor as Parse reads it (a KindSeconds
// level, nanoseconds, as the shortest decimal of seconds).
func (f *Factor) Format(v int64) string {
	switch f.Kind {
	case KindSeconds:
		return strconv.FormatFloat(time.Duration(v).Seconds(), 'g', -1, 64)
	case KindEnum, KindBool:
		if v >= 0 && v < int64(len(f.Levels)) {
			return f.Levels[v]
		}
	}
	return strconv.FormatInt(v, 10)
}

// LevelsDoc describes the levels for help texts: "on or off", "an
// integer in [1, 1048576]".
func (f *Factor) LevelsDoc() string {
	switch f.Kind {
	case KindInt:
		return fmt.Sprintf("an integer in [%d, %d]", f.Min, f.Max)
	case KindEnum, KindBool:
		return strings.Join(f.Levels, ", ")
	}
	return "text"
}

// Values holds a level for each factor that is set, as name/value cells
// (benchfmt's Config{Key, Value} way): an integer level (KindInt,
// KindEnum, KindBool, KindSeconds in nanoseconds) or a text level
// (KindText: a method's name, a clock sync spec). The zero Values sets
// none: every factor is at the level of whoever applies it next (a design
// row's empty cell: the run's flag; the run's: the row's Default). Values
// is comparable and copies by value.
type Values struct {
	v   [NumIDs]int64
	t   [NumIDs]string
	set uint32
}

// Set sets id's integer level to v (not checked: Parse checks text).
func (x *Values) Set(id ID, v int64) {
	x.v[id] = v
	x.t[id] = ""
	x.set |= 1 << id
}

// SetText sets the text level of a KindText factor id to s (not checked;
// an empty s unsets it, as an empty cell does).
func (x *Values) SetText(id ID, s string) {
	if s == "" {
		x.Clear(id)
		return
	}
	x.v[id] = 0
	x.t[id] = s
	x.set |= 1 << id
}

// Clear unsets id.
func (x *Values) Clear(id ID) {
	x.v[id] = 0
	x.t[id] = ""
	x.set &^= 1 << id
}

// Get returns id's integer level and whether it is set (0 for a text
// level: Text reads those).
func (x Values) Get(id ID) (int64, bool) { return x.v[id], x.set&(1<<id) != 0 }

// Text returns the text level of a KindText factor id, "" when it is not
// set.
func (x Values) Text(id ID) string { return x.t[id] }

// Has reports whether id is set.
func (x Values) Has(id ID) bool { return x.set&(1<<id) != 0 }

// Level returns id's level, or the row's Default when it is not set.
func (x Values) Level(id ID) int64 {
	if v, ok := x.Get(id); ok {
		return v
	}
	return table[id].Default
}

// On reports whether a KindBool factor's level is on.
func (x Values) On(id ID) bool { return x.Level(id) != 0 }

// Any reports whether some factor is set.
func (x Values) Any() bool { return x.set != 0 }

// Over returns x with the factors x does not set taken from base (a
// design row's cells over the run's flags).
func (x Values) Over(base Values) Values {
	for id := range NumIDs {
		if !x.Has(id) && base.Has(id) {
			x.v[id], x.t[id] = base.v[id], base.t[id]
			x.set |= 1 << id
		}
	}
	return x
}

// Cell returns id's raw or design cell: the formatted level, or "" when
// it is not set.
func (x Values) Cell(id ID) string {
	v, ok := x.Get(id)
	if !ok {
		return ""
	}
	if table[id].Kind == KindText {
		return x.t[id]
	}
	return table[id].Format(v)
}

// SetCell sets id from a design or raw cell; an empty cell unsets it.
func (x *Values) SetCell(id ID, s string) error {
	if s == "" {
		x.Clear(id)
		return nil
	}
	if table[id].Kind == KindText {
		x.SetText(id, s)
		return nil
	}
	v, err := table[id].Parse(s)
	if err != nil {
		return err
	}
	x.Set(id, v)
	return nil
}

// String lists the set factors as "name=level" separated by spaces, in
// table order.
func (x Values) String() string {
	var b []string
	for id := range NumIDs {
		if x.Has(id) {
			b = append(b, table[id].Name+"="+x.Cell(id))
		}
	}
	return strings.Join(b, " ")
}

// Of returns Values that set only id, to v.
func Of(id ID, v int64) Values {
	var x Values
	x.Set(id, v)
	return x
}

// With returns x with id set to v.
func (x Values) With(id ID, v int64) Values {
	x.Set(id, v)
	return x
}

// WithText returns x with the KindText factor id set to the text level s
// (SetText).
func (x Values) WithText(id ID, s string) Values {
	x.SetText(id, s)
	return x
}
