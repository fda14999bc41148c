// Command capi is reprobench's region recorder for C and Fortran programs,
// built as a C archive (go build -buildmode=c-archive) and linked into a
// program with its MPI library's compiler wrapper: rbregion.h is the C
// API, fortran/rbregion.f90 the Fortran module, docs/regions.md ("C and
// Fortran") says how to build and link. Begin and End run in C; set-up
// and teardown call into Go (package region). It builds only with cgo and
// an MPI library, one archive per MPI library (Open MPI by default,
// -tags mpich for MPICH).
package main

func main() {}
