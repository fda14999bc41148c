// Package mpi is reprobench's own small MPI binding and the Comm interface
// that the rest of reprobench programs against.
//
// # The binding
//
// The real binding uses cgo: by default it links the library that
// pkg-config names "mpi" (Open MPI on Debian); the build tag mpich links
// MPICH through pkg-config "mpich". Built without cgo, or with the tag
// nompi, the package still compiles and Init returns ErrNoMPI, so that every
// other package can be built and tested on a machine without MPI.
//
// Init calls MPI_Init_thread(MPI_THREAD_FUNNELED) on a locked OS thread and
// installs MPI_ERRORS_RETURN, so every failure becomes an *Error carrying
// the MPI function's name and MPI's error string instead of aborting the job.
// All MPI calls must come from the goroutine that called Init.
//
// # Comm
//
// Comm is implemented by the real communicators (World, and those made by
// Split, Sub and SplitShared) and by the simulated world of package
// mpi/mpitest, so clock synchronization, process synchronization and user
// benchmarks run unchanged on a cluster and inside go test. Buffers are byte
// slices; the generic helpers (Send, Bcast, Allreduce, …) view []float64 or
// []int64 as bytes without copying. Empty slices are valid everywhere. Hot
// paths — Rank, Send, Recv, the scalar helpers, Bcast, Allreduce, Observe —
// do not allocate.
//
// # The critical path
//
// Observe runs one timed observation — wait for a barrier or a deadline,
// start timestamp, the MPI call, end timestamp — in a single cgo call, in C,
// reading the same counter as the Go clock it is given (timing.Source). A Go
// program that called into C once per MPI operation would be rescheduled
// around the calls and pay for it in the tail of the distribution.
package mpi
