// Package cache sets the cache state each observation of an MPI call
// starts in.
//
// A Mode selects warm caches (the same buffers back to back), cold caches
// (a buffer the size of the core's last private cache, PrivateBytes,
// overwritten before each observation, as in Hunold & Carpen-Amarie 2016,
// §5.8), or message buffers whose offsets within a larger allocation are
// cycled (Gropp & Lusk 1999) or randomized (Stanisic et al. 2017, §V).
// Buffers implements the modes without allocating per observation. Set
// as window.Sync.Buffers, they are applied inside each batch's single cgo
// call (mpi.Observation.Offsets and Flush): applied from Go between
// observations, the round trip to Go costs the tail (bench/cachemodes
// measures it).
package cache
