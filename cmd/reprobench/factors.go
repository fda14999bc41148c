package main

import (
	"flag"
	"fmt"
	"strings"

	"github.com/reprobench/reprobench"
	"github.com/reprobench/reprobench/factor"
	"github.com/reprobench/reprobench/mpi"
	"github.com/reprobench/reprobench/window"
)

// The flags of the factor table's call parameters (package factor): one
// per row, named, explained and parsed by the row.

// paramFlag is run's flag of one call parameter: it sets the parameter in
// a factor.Values.
type paramFlag struct {
	v  *factor.Values
	id factor.ID
}

func (p paramFlag) String() string {
	if p.v == nil {
		return ""
	}
	return p.id.Row().Format(p.v.Level(p.id))
}

func (p paramFlag) Set(s string) error { return p.v.SetCell(p.id, strings.TrimSpace(s)) }

// paramHelp is a row's help with the calls it applies to, its column and
// its levels, which -h also shows as the flag's placeholder ("-in-place
// off|on", "-bw-window integer"; flag.UnquoteUsage).
func paramHelp(id factor.ID) string {
	f := id.Row()
	levels := "an `integer` in " + strings.TrimPrefix(f.LevelsDoc(), "an integer in ")
	if f.Kind == factor.KindEnum || f.Kind == factor.KindBool {
		levels = "`" + strings.Join(f.Levels, "|") + "`"
	}
	calls := mpi.CallNames(mpi.CallsTaking(mpi.FactorParam(id)))
	if f.Family == "*" {
		calls = "every call with buffers"
	}
	return fmt.Sprintf("%s; for %s; raw column %s (%s)", f.Help, calls, f.Name, levels)
}

// paramFlags registers run's flag of every call parameter into v.
func paramFlags(fs *flag.FlagSet, v *factor.Values) {
	for _, id := range factor.CallParams() {
		fs.Var(paramFlag{v, id}, id.Row().Flag, paramHelp(id))
	}
}

// designFactorFlags registers design's flag of every factor a design row
// sets (factor.DesignColumns: the method factors and the call parameters
// alike), named and explained by its row, and returns their levels by
// factor, as given (reprobench.DesignLevel reads each). A text factor
// whose levels no list names (the clock synchronization spec, which may
// hold commas) takes one level per occurrence of its flag; the others take
// comma-separated levels.
func designFactorFlags(fs *flag.FlagSet) map[factor.ID]*[]string {
	vocab := reprobench.Vocabulary()
	out := map[factor.ID]*[]string{}
	for _, id := range factor.DesignColumns() {
		f := id.Row()
		l := new([]string)
		out[id] = l
		var levels string
		switch {
		case vocab.Levels[id] != nil:
			levels = strings.Join(vocab.Levels[id], ", ")
		case f.Kind == factor.KindText:
			fs.Var((*designRepeatFlag)(l), f.Flag, fmt.Sprintf("%s; one `level` per occurrence (repeat the flag for several), as run's --%s takes it", f.Help, f.Flag))
			continue
		case f.Kind == factor.KindSeconds:
			levels = "durations such as 100us or 1ms, in (0, " + window.MaxWindowLimit.String() + "]"
		default:
			levels = f.LevelsDoc()
		}
		usage := fmt.Sprintf("%s; comma-separated `levels`: %s (as run's --%s)", f.Help, levels, f.Flag)
		if id == factor.Skew { // checkDesignSkews
			usage += "; levels above 1 need every --calls to be one of " + mpi.CallNames(mpi.CallsTaking(mpi.FactorParam(id)))
		}
		fs.Var((*designListFlag)(l), f.Flag, usage)
	}
	return out
}
