package mpi_test

import "testing"

// TestNBCIntegration runs internal/nbccheck (the non-blocking collectives
// against their blocking twins, element by element, and the overlap
// measurement's invariants) under a real mpirun with 2 ranks and
// oversubscribed 4, for every installed MPI library.
func TestNBCIntegration(t *testing.T) {
	runCheck(t, "./internal/nbccheck", []int{2, 4}, nil)
}
