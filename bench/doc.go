// Package bench holds the project's benchmarks: each subdirectory is one,
// with a script or a Go program and its recorded output. The package itself
// only has a test, which compiles the pure-C reference programs the
// benchmarks compare the engine against (fidelity/fidelity.c,
// window/window.c) with each installed MPI library and runs them briefly,
// so that they keep building and producing what the scripts read.
package bench
