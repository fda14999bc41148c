package main

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/reprobench/reprobench/design"
	"github.com/reprobench/reprobench/mpi"
)

// designSkews sets f.Skews from design's --skew levels. A level above 1
// would be refused by run for a call without count vectors, so it is
// refused here, before a campaign is planned around it.
func designSkews(f *design.Factors, levels, calls []string) error {
	many := false
	for _, s := range levels {
		k, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || k < 1 {
			return fmt.Errorf("--skew %q: want positive integers (1: uniform counts)", s)
		}
		f.Skews = append(f.Skews, k)
		many = many || k > 1
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
