// Package opcheck checks the operation table (mpi.Ops) on any mpi.Comm:
// an observation of a row, on inputs every rank can compute, must leave in
// each rank's receive buffer what the row's Result says, element by
// element. The simulator's tests (mpi/mpitest) and the real-MPI program
// mpi/internal/mpicheck run the same cases, so a row checked here is
// checked on both.
package opcheck
