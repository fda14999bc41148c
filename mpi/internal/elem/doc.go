// Package elem reads and writes single elements of MPI buffers by
// datatype, as float64 values, for the checks that compare results
// element by element (mpitest's tests and the mpi/internal/*check programs
// run under mpirun). Buffers are in the machine's byte order, as MPI
// leaves them.
package elem
