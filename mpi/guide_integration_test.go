package mpi_test

import "testing"

// TestGuidelineMockups runs mpi/internal/guidecheck, which checks that
// every performance guideline's right-hand side (the mock-ups of guide.go
// in the C critical path, and their Go reference) computes its left-hand
// side's result element by element, under a real mpirun with 2 ranks and
// oversubscribed 3 (padded blocks) and 4, for every installed MPI library.
func TestGuidelineMockups(t *testing.T) {
	runCheck(t, "./internal/guidecheck", []int{2, 3, 4}, nil)
}
