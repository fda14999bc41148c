// Package guidecheck checks, on any mpi.Comm, that the right-hand side of
// every performance guideline computes what its left-hand side computes:
// the mock-ups of package mpi (mpi/guide.go) against the calls they stand
// for, element by element. The simulator's test and the real-MPI program
// mpi/internal/guidecheck run it.
package guidecheck
