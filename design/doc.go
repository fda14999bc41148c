// Package design plans randomized MPI benchmark experiments over several
// mpiruns, stores them as design files, launches the mpiruns, and records
// the environment they ran in.
//
// It is the first of the three stages of paper 004 §V (design → engine →
// analysis): the design is written to a file before anything is measured,
// so the order in which experiments run is decided, and recorded, up front,
// and the engine ("reprobench run") only executes it.
//
// # Experiments and factors
//
// A [Design] is a list of [Experiment] rows, each one configuration (MPI
// call, message size, process count, process and clock synchronization,
// window size, completion-time type, cache mode, user labels) measured Nrep
// times in one mpirun. [Generate] builds the full factorial of a [Plan]'s
// [Factors], replicates it, and gives every mpirun its own random order
// from a recorded seed: paper 000 §6.1 Alg. 5 and paper 001 §5.1 Alg. 2
// (shuffle the experiments within each call to mpirun), because paper 000
// §5.2 shows that the mpirun itself is a factor, so every configuration is
// measured in several mpiruns. The factors are those of Table VI of paper
// 000. Message sizes may be lists, powers of two, or log-uniform random
// sizes 10^X, X ~ U(log10 a, log10 b) (paper 004 §V.A, Eq. 1), which avoids
// measuring only at "round" sizes ([ParseSizes], [LogUniformSizes]).
//
// # Randomness
//
// Every random choice derives from one uint64 seed through PCG-DXSM
// (math/rand/v2's PCG, whose output is specified) and this package's own
// bounded-integer and Fisher–Yates code, so a seed gives the same design in
// every Go release (a test pins one). The streams are: shuffle of mpirun i:
// PCG(seed, i); log-uniform sizes: PCG(seed, StreamSizes); the seed passed
// to the run of mpirun i: [RunSeed](seed, i). The reference tools shuffled
// from the time without logging the seed; here the seed is always in the
// design file and in the campaign manifest.
//
// # Design files
//
// A design file is CSV (RFC 4180): comment lines starting with "#" (the
// first is "# reprobench design v1", one is "# seed=N"), a header naming
// the columns of [Columns] plus "label:KEY" columns for user factors, and
// one row per experiment; the rows of one mpirun are in execution order.
// Empty cells mean "use the run's flag default". Errors name the file,
// line and column ([ParseError]); see [Read] for the details.
//
// # The launcher and what it guarantees
//
// [Start] runs a [Campaign] of N mpiruns one after the other (mpirun i is
// 0-based), without a shell, each as
//
//	LAUNCHER… PROGRAM… --out DIR --run-id ID --mpirun i --seed S_i [--design FILE] RUNARGS…
//
// The run writes DIR/ID-mpirunNNN.csv (NNN = %03d), optionally
// DIR/ID-mpirunNNN.ranks.csv, and last the JSON sidecar
// DIR/ID-mpirunNNN.json, each first as NAME.partial, fsynced and renamed,
// never overwriting a final file. So mpirun i is complete if and only if
// its sidecar exists ([SidecarPath]); the launcher trusts nothing else.
//
// The campaign is recorded in DIR/ID-campaign.json ([Manifest]), rewritten
// atomically (temporary file, fsync, rename, fsync of the directory) after
// every change: the launcher template and expanded argv of every mpirun,
// N, np, the campaign seed and each mpirun's seed, the design file and its
// SHA-256, the launcher host's [Environment], and every attempt with its
// status (ok, failed with exit status or signal and the last 50 lines of
// stderr, timed_out, interrupted, or abandoned when the launcher died), its
// process group and duration. stdout and stderr of each attempt are kept in
// DIR/ID-logs/mpirunNNN-attemptK.{stdout,stderr}. A failed mpirun is
// recorded and the campaign goes on (unless Options.FailFast).
//
// Each mpirun runs in a process group of its own with Pdeathsig SIGKILL, so
// a launcher killed by SIGKILL takes its mpirun with it. A timeout (or an
// interrupt) kills the group and every descendant found in /proc — Open MPI
// gives every rank a process group of its own, so killing the group alone
// would leave the ranks running. After every attempt, and before a mpirun
// is run again, any process on this machine whose command line carries the
// campaign's --out, --run-id and that --mpirun is killed: orphaned ranks
// can never write into a retried mpirun's files. (Processes on other nodes,
// under srun, are out of reach; Slurm cleans up its steps itself.)
//
// [Resume] runs only the mpiruns whose sidecar is missing. Before it
// re-runs one, the leftovers of its earlier attempts — the .partial files
// of a killed run and any final .csv written before the sidecar — are
// moved, never deleted, to DIR/ID-aside/mpirunNNN-attemptK/ (recorded in
// the attempt's moved_aside). Completed mpiruns are never touched. An
// exclusive flock on DIR/ID-campaign.lock keeps two launchers off the same
// campaign; the kernel releases it when the launcher dies.
//
// # Environment
//
// [CollectEnvironment] records Table VI of paper 000 and the environment
// capture of paper 004 §V as far as the process can see it (compiler and
// cgo flags, CPU, frequency governor, TSC flags, kernel, MPI-related
// environment variables, the benchmark's git commit). What only MPI can
// report is added by the engine.
//
// This package never imports the MPI binding: the allowed values of a
// design's columns are injected as a [Vocabulary].
package design
