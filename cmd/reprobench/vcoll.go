package main

import (
	"fmt"
	"strings"

	"github.com/reprobench/reprobench/factor"
	"github.com/reprobench/reprobench/mpi"
)

// checkDesignSkews refuses skew levels above 1 (cells, as
// reprobench.DesignLevel writes them) unless every call of --calls has
// count vectors: run would refuse them for the others, so they are
// refused here, before a campaign is planned around them.
func checkDesignSkews(levels []string, calls []string) error {
	many := false
	for _, c := range levels {
		k, err := factor.Skew.Row().Parse(c)
		many = many || err == nil && k > 1
	}
	if !many {
		return nil
	}
	if len(calls) == 0 {
		return fmt.Errorf("--skew above 1 needs --calls naming v-collectives (%s)", mpi.CallNames(mpi.CallsTaking(mpi.ParamSkew)))
	}
	var bad []string
	for _, s := range calls {
		c, err := mpi.ParseCall(s)
		if err == nil && !c.Skewable() {
			bad = append(bad, c.String())
		}
	}
	if len(bad) > 0 {
		return fmt.Errorf("--skew above 1 applies only to %s, not to %s: put those calls in a design of their own (or write skew cells by hand)", mpi.CallNames(mpi.CallsTaking(mpi.ParamSkew)), strings.Join(bad, ", "))
	}
	return nil
}
