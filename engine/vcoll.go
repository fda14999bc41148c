package engine

import "github.com/reprobench/reprobench/mpi"

// checkSkew refuses a skew the call cannot take (mpi.CheckSkew): negative,
// above 1 for a call without count vectors, or counts beyond MPI's int.
func checkSkew(ex *Experiment, p int) error {
	return mpi.CheckSkew(ex.Call, ex.Count(), p, ex.Skew)
}

// skewLevel is the skew the raw data records: at least 1 for the calls
// with count vectors, 0 (an empty cell) for the others.
func skewLevel(ex *Experiment) int {
	if !ex.Call.Skewable() {
		return 0
	}
	return max(ex.Skew, 1)
}
