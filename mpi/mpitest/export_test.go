package mpitest

// Names the external tests and examples use, unexported in the package.

type DeadlockError = deadlockError
