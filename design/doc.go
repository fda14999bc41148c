// Package design plans randomized MPI benchmark experiments over several
// mpiruns, stores them as design files, and records the environment they
// ran in. Package campaign launches the mpiruns of a design.
//
// It is the first of the three stages of Stanisic et al. 2017, §V (design → engine →
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
// from a recorded seed: Hunold & Carpen-Amarie 2016, §6.1 Alg. 5 and Hunold et al. 2014, §5.1 Alg. 2
// (shuffle the experiments within each call to mpirun), because Hunold & Carpen-Amarie 2016
// §5.2 shows that the mpirun itself is a factor, so every configuration is
// measured in several mpiruns. The factors are those of Hunold &
// Carpen-Amarie 2016, Table VI. Message sizes may be lists, powers of two, or log-uniform random
// sizes 10^X, X ~ U(log10 a, log10 b) (Stanisic et al. 2017, §V.A, Eq. 1), which avoids
// measuring only at "round" sizes ([ParseSizes], [LogUniformSizes]).
//
// # Randomness
//
// Every random choice derives from one uint64 seed through PCG-DXSM
// (math/rand/v2's PCG, whose output is specified) and this package's own
// bounded-integer and Fisher–Yates code, so a seed gives the same design in
// every Go release (a test pins one). The streams are: shuffle of mpirun i:
// PCG(seed, i); log-uniform sizes: PCG(seed, 2^62); the seed passed
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
// # Environment
//
// [CollectEnvironment] records Table VI of Hunold & Carpen-Amarie 2016 and the environment
// capture of Stanisic et al. 2017, §V as far as the process can see it (compiler and
// cgo flags, CPU, frequency governor, TSC flags, kernel, MPI-related
// environment variables, the benchmark's git commit). What only MPI can
// report is added by the engine.
//
// This package never imports the MPI binding: the allowed values of a
// design's columns are injected as a [Vocabulary].
package design
