package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/reprobench/reprobench/campaign"
	"github.com/reprobench/reprobench/mpi"
	"github.com/reprobench/reprobench/tune"
)

// launchAlgorithmHelp is launch's --algorithm help.
const launchAlgorithmHelp = "vary the collective algorithm per mpirun, `CALL:LEVELS` (MPI_Allreduce:default,ring,segmented_ring+segsize=1024, or CALL:all): " +
	"one level per mpirun in randomized blocks, set through the environment, recorded in the raw column algorithm, read back through MPI_T (docs/tuning.md)"

// launchAlgorithm returns the per-mpirun factor (tune.CandidateFactor) of
// --algorithm spec for the library this binary links (the simulator's
// with sim). CALL:all leaves out the algorithms that apply only under a
// condition (tune.Algorithm.Needs or MinCountPof2: one campaign runs
// every level at every size), saying so on stderr.
func launchAlgorithm(stderr io.Writer, spec string, sim bool) (*campaign.MpirunFactor, error) {
	call, list, ok := strings.Cut(spec, ":")
	if !ok || call == "" || list == "" {
		return nil, fmt.Errorf("--algorithm %q: want CALL:LEVELS, e.g. MPI_Allreduce:default,ring", spec)
	}
	lib := tune.Simulated
	if !sim {
		v, err := mpi.LibraryVersion()
		if err != nil {
			return nil, fmt.Errorf("--algorithm: which MPI library: %w", err)
		}
		var known bool
		if lib, known = tune.LibraryOf(v); !known {
			return nil, fmt.Errorf("--algorithm: no algorithm catalogue for %q (Open MPI and MPICH have one)", v)
		}
	}
	cat := tune.CatalogFor(lib)
	var cands []tune.Candidate
	if list == "all" {
		var err error
		all, err := cat.Candidates(call, nil)
		if err != nil {
			return nil, fmt.Errorf("--algorithm: %w", err)
		}
		for _, c := range all {
			switch {
			case c.Needs != "":
				fmt.Fprintf(stderr, "launch: --algorithm %s:all leaves out %s, which needs %s (name it to include it)\n", call, c.Name, c.Needs)
			case c.MinCountPof2:
				fmt.Fprintf(stderr, "launch: --algorithm %s:all leaves out %s, which the library refuses below a count of the largest power of two not above np (name it to include it; reprobench tune runs it at the sizes where it applies)\n", call, c.Name)
			default:
				cands = append(cands, c)
			}
		}
	} else {
		for _, name := range strings.Split(list, ",") {
			c, err := cat.Candidate(call, strings.TrimSpace(name))
			if err != nil {
				return nil, fmt.Errorf("--algorithm: %w", err)
			}
			cands = append(cands, c)
		}
	}
	return tune.CandidateFactor(cands), nil
}
