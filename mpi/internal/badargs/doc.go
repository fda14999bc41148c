// Package badargs lists invalid calls on an mpi.Comm and the error each
// must return. The tests of mpitest and the real-MPI check (mpicheck) run
// the same list, so the simulator and the cgo binding reject the same input
// with the same error (they share mpi.CheckP2P, CheckColl, CheckBuffer and
// CheckOp).
package badargs
