//go:build !rbcorrupt || !cgo || nompi

package mpi

// corruptBuilt is true only in a build with the tag rbcorrupt, whose
// binding corrupts results on purpose (corrupt_on.go). In every other
// build the hook is a no-op the compiler removes.
const corruptBuilt = false

func corruptResult(int, *Observation, int64) {}
