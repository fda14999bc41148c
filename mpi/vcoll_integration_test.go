package mpi_test

import "testing"

// TestVCollIntegration runs internal/vcollcheck (every vcoll call, checked
// element by element) under a real mpirun with 2 ranks and oversubscribed
// 4 ranks, for every installed MPI library.
func TestVCollIntegration(t *testing.T) {
	runCheck(t, "./internal/vcollcheck", []int{2, 4}, nil)
}
