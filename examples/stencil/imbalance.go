package main

import (
	"flag"

	"github.com/reprobench/reprobench/mpi"
)

// heavyRank is the -heavy-rank flag: the rank that does twice the compute
// work (a known load imbalance for checking the POP efficiencies; with np
// ranks its load balance is (np+1)/(2·np): 0.75 at np 2).
var heavyRank = flag.Int("heavy-rank", -1, "this `rank` sweeps twice per iteration inside the compute region (twice the work: a known load imbalance); -1: none")

// heavyWork returns the Config.Work that gives the calling rank a second
// sweep of cells cells per iteration when it is the -heavy-rank, else nil.
func heavyWork(c mpi.Comm, cells int) func(int) {
	if c.Rank() != *heavyRank {
		return nil
	}
	extra := NewStencil(c, cells)
	return func(int) { extra.Compute() }
}
