package engine

import "github.com/reprobench/reprobench/mpi"

// checkSkew refuses a skew the call cannot take (mpi.CheckSkew): negative,
// above 1 for a call without count vectors, or counts beyond MPI's int.
func checkSkew(ex *Experiment, p int) error {
	return mpi.CheckSkew(ex.Call, ex.Count(), p, ex.Skew)
}
