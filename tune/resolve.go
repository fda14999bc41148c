package tune

import (
	"fmt"
	"strconv"
	"strings"
)

// OpenMPIResolver returns the resolver that WriteOpenMPIRules needs, taken
// from the catalogue: a candidate's algorithm is its Algorithm.Value (the
// enumeration value of coll_tuned_<coll>_algorithm), its segment size the
// bytes of a "+segsize=" candidate (0 otherwise: the algorithm's own),
// and the fan-in/out 0 (the algorithm's own). The resolver returns an
// error for a candidate the catalogue lacks. It is an error to ask this
// of a catalogue other than Open MPI's.
func (c *Catalog) OpenMPIResolver() (OpenMPIResolver, error) {
	if c.Library != OpenMPI {
		return nil, fmt.Errorf("tune: %s catalogue: an Open MPI rules file needs the Open MPI catalogue", c.Library)
	}
	return func(call, candidate string) (OpenMPIAlgorithm, error) {
		cand, err := c.Candidate(call, candidate)
		if err != nil {
			return OpenMPIAlgorithm{}, err
		}
		col := c.Collective(call)
		var a OpenMPIAlgorithm
		for _, s := range cand.Settings {
			var err error
			switch s.Cvar {
			case col.Cvar:
				a.ID, err = strconv.Atoi(s.ReadBack)
			case col.Segsize:
				a.SegSize, err = strconv.Atoi(s.Value)
			}
			if err != nil {
				return OpenMPIAlgorithm{}, fmt.Errorf("tune: candidate %s of %s: %w", candidate, call, err)
			}
		}
		if a.ID == 0 {
			return OpenMPIAlgorithm{}, fmt.Errorf("tune: candidate %s of %s forces no algorithm", candidate, call)
		}
		return a, nil
	}, nil
}

// MPICHResolver returns the resolver that WriteMPICHJSON needs, taken from
// the catalogue: a candidate's algorithm is the MPIR function MPICH's
// selection JSON names, "MPIR_<Coll>_intra_<name>", except the
// nonblocking one, "MPIR_<Coll>_allcomm_nb" (MPICH 4.0's
// coll_selection.json spells them so). The resolver returns an error for a
// candidate the catalogue lacks. It is an error to ask this of a
// catalogue other than MPICH's.
func (c *Catalog) MPICHResolver() (MPICHResolver, error) {
	if c.Library != MPICH {
		return nil, fmt.Errorf("tune: %s catalogue: an MPICH selection file needs the MPICH catalogue", c.Library)
	}
	return func(call, candidate string) (string, error) {
		cand, err := c.Candidate(call, candidate)
		if err != nil {
			return "", err
		}
		if cand.Name == DefaultCandidate {
			return "", fmt.Errorf("tune: the default of %s has no MPIR function: it is the file's fallback", call)
		}
		coll := "MPIR_" + strings.TrimPrefix(call, "MPI_")
		if cand.Name == "nb" {
			return coll + "_allcomm_nb", nil
		}
		return coll + "_intra_" + cand.Name, nil
	}, nil
}
