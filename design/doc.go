// Package design plans randomized MPI benchmark experiments over several
// mpiruns, stores them as design files, launches the mpiruns, and records
// the environment they ran in.
//
// It is the first of the three stages of paper 004 (design → engine →
// analysis): the design is written to a file before anything is measured,
// so the order in which experiments run is decided, and recorded, up front.
//
// # Experiments and factors
//
// A [Design] is a list of [Experiment] rows, each one configuration (MPI
// call, message size, process count, process and clock synchronization,
// window size, completion-time type, cache mode, user labels) measured Nrep
// times in one mpirun. [Generate] builds the full factorial of a [Plan]'s
// [Factors], replicates it, and gives every mpirun its own random order
// from a recorded seed: paper 000 Alg. 5 (shuffle the experiments within
// each call to mpirun), and paper 000 §5.2 / paper 001 §5, which show that
// the mpirun itself is a factor, so every configuration is measured in
// several mpiruns. Message sizes may be lists, powers of two, or
// log-uniform random sizes 10^U(log10 a, log10 b) as paper 004 §V
// recommends to avoid measuring only at "nice" sizes ([ParseSizes]).
//
// # Randomness
//
// Every random choice derives from one uint64 seed through PCG-DXSM
// (math/rand/v2's PCG, whose output is specified) and this package's own
// bounded-integer and shuffle code, so a seed gives the same design in
// every Go release. The streams are: shuffle of mpirun i: PCG(seed, i);
// log-uniform sizes: PCG(seed, StreamSizes); seed passed to the run of
// mpirun i: PCG(seed, StreamRunSeeds+i).
//
// # Design files
//
// A design file is CSV: comment lines starting with "#" (the first is
// "# reprobench design v1", one is "# seed=N"), a header naming the
// columns of [Columns] plus "label:KEY" columns for user factors, and one
// row per experiment; see [Read]. Empty cells mean "use the run's flag
// default". Errors name the file, line and column ([ParseError]).
//
// # The launcher
//
// [Campaign] runs N mpiruns one after the other, without a shell, each
// under a timeout that kills its whole process group, and records the
// campaign in a manifest written atomically. A mpirun is complete if and
// only if its JSON metadata sidecar exists; resuming runs only the
// incomplete ones and never overwrites completed data (see [Campaign.Run]).
//
// # Environment
//
// [CollectEnvironment] records Table VI of paper 000 as far as the process
// can see it (compiler, CPU, frequency governor, TSC flags, kernel,
// MPI-related environment variables, the benchmark's git commit).
//
// This package never imports the MPI binding: the allowed values of a
// design's columns are injected as a [Vocabulary].
package design
