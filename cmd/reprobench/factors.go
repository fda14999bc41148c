package main

import (
	"flag"
	"fmt"
	"strings"

	"github.com/reprobench/reprobench/design"
	"github.com/reprobench/reprobench/factor"
	"github.com/reprobench/reprobench/mpi"
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

// designParamFlags registers design's flag of every call parameter: a
// comma-separated list of levels each.
func designParamFlags(fs *flag.FlagSet) map[factor.ID]*designListFlag {
	out := map[factor.ID]*designListFlag{}
	for _, id := range factor.CallParams() {
		f := id.Row()
		l := new(designListFlag)
		out[id] = l
		usage := fmt.Sprintf("%s `levels`, comma-separated (%s; as run's --%s)", f.Name, f.LevelsDoc(), f.Flag)
		if id == factor.Skew { // checkDesignSkews
			usage += "; levels above 1 need every --calls to be one of " + mpi.CallNames(mpi.CallsTaking(mpi.FactorParam(id)))
		}
		fs.Var(l, f.Flag, usage)
	}
	return out
}

// designParams parses the levels of designParamFlags into f.Levels, as
// their rows write them.
func designParams(f *design.Factors, lists map[factor.ID]*designListFlag, calls []string) error {
	var skews []int64
	for id, l := range lists {
		row := id.Row()
		for _, s := range *l {
			v, err := row.Parse(s)
			if err != nil {
				return fmt.Errorf("--%s: %v", row.Flag, err)
			}
			f.Levels[id] = append(f.Levels[id], row.Format(v))
			if id == factor.Skew {
				skews = append(skews, v)
			}
		}
	}
	return checkDesignSkews(skews, calls)
}
