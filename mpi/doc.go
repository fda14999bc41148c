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
// Init calls MPI_Init_thread(MPI_THREAD_SINGLE) on a locked OS thread and
// installs MPI_ERRORS_RETURN, so every failure becomes an *Error carrying
// the MPI function's name and MPI's error string instead of aborting the job.
// All MPI calls must come from the goroutine that called Init.
//
// # Thread level
//
// The MPI standard (MPI-3.1 §12.4.3, MPI-4.0 §11.6) defines the levels by
// who calls MPI: MPI_THREAD_SINGLE "only one thread will execute";
// MPI_THREAD_FUNNELED "the process may be multi-threaded, but the
// application must ensure that only the main thread makes MPI calls" (the
// main thread being the one that called MPI_Init_thread). What an
// implementation does with the difference is to decide whether MPI calls
// can overlap: Open MPI 4.1.4 turns its internal locking on
// (opal_uses_threads) for every level above SINGLE, which on the project's
// VMs added eight pthread mutex lock/unlock pairs to every blocking call
// (three of them in the multi-threaded request wait, ompi_sync_wait_mt). What
// that does to an 8-byte MPI_Allreduce depends on the machine's state: two
// runs in a fast state were 100–140 ns slower, while over 10 alternating
// pairs in a slow state FUNNELED took 0.60 [0.58–0.79] of MPI_Init's time
// (bench/fidelity/run.sh 10 10000); the level changes timings either way.
// MPICH 4.0.2 enables its critical
// sections only at MPI_THREAD_MULTIPLE and runs the same code at SINGLE and
// FUNNELED (651 mutex locks per process for 21 000 barrier+allreduce pairs
// at either level, 37 million at MULTIPLE). A C benchmark's MPI_Init asks
// for SINGLE, although its process is not single-threaded either: Open MPI
// runs two helper threads of its own (PMIx/ORTE progress), MPICH one.
//
// Init requests SINGLE, so that a Go rank measures what the C benchmark it
// is compared with measures. What the binding relies on is the property
// the implementations exploit: no two threads are ever inside MPI, because
// exactly one thread ever enters it.
//   - Init calls runtime.LockOSThread and never unlocks: the goroutine that
//     called Init owns that OS thread, and no other goroutine runs on it.
//   - The binding calls MPI only from the calling goroutine, synchronously:
//     no goroutine, finalizer, cgo callback or signal handler of the binding
//     calls MPI, and nothing in the Go runtime does (its other threads —
//     sysmon, the garbage collector's workers, idle Ps — run Go code only).
//   - A signal (the runtime's preemption signal SIGURG, a profiler's
//     SIGPROF) may interrupt the locked thread while it is inside MPI; Go's
//     handler runs on that thread, does not call MPI and returns (the
//     runtime installs its handlers with SA_RESTART). A goroutine in a cgo
//     call is never asynchronously preempted.
//   - Observe and ObserveBatch check in C that they run on the thread that
//     called Init and return an *Error otherwise, without entering MPI.
//
// A program that calls MPI itself from another thread (a C library linked
// into the same binary, say) must use InitThread(ThreadFunneled) or higher
// and declare it. The level requested and the level provided are recorded
// by reprobench run in the metadata (mpi_thread_requested,
// mpi_thread_provided).
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
// # Operations
//
// Every benchmarkable call is one row of the operation table (Ops, an Op
// per Call; ops.go): its name and family, the Observation fields it reads,
// its buffer-size rule and datatypes, its C entry, its Go reference
// semantics, the simulator model that package mpitest runs for it, and its
// expected result, which the checkers compare every observation with. The
// binding's C dispatch is generated from the same rows (rbmpi_ops.h), and
// "reprobench ops" prints them. ops.go says why the table lives here and
// names, rather than holds, what lives in C and in mpitest.
//
// # The critical path
//
// Observe runs one timed observation — wait for a barrier or a deadline,
// start timestamp, the MPI call, end timestamp — in a single cgo call, in C,
// reading the same counter as the Go clock it is given (timing.Source). A Go
// program that called into C once per MPI operation would be rescheduled
// around the calls and pay for it in the tail of the distribution.
//
// # Bandwidth and one-sided calls
//
// CallBW, CallBiBW and CallMBWMR time one window of Observation.BWWindow
// non-blocking messages (osu_bw, osu_bibw, osu_mbw_mr); CallPut, CallGet
// and CallAccumulate one RMA operation under Observation.RMASync (fence,
// lock, or flush inside lock_all). Their request arrays and MPI window are
// created by Prepare, once per experiment outside the timed part, and
// freed by its release; Observe refuses them unprepared. WindowBytes reads
// the target's window; messagesPerCall gives the messages of one window,
// from which bytes and messages per second derive (docs/data-format.md).
package mpi
