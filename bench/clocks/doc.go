// Package clocks is the side-by-side benchmark of clock reads: the TSC read
// from Go assembly (package timing) and from C in the same binary
// (bench/internal/ctsc), CLOCK_MONOTONIC and CLOCK_MONOTONIC_RAW from Go and C,
// time.Now, and MPI_Wtime
// through package mpi. It has no code of its own; run
//
//	go -C bench test -run 'Test' -bench . -benchtime 200ms ./clocks
//
// BenchmarkRead gives each reader's cost per read (ns/op) in the usual
// way. BenchmarkSideBySide interleaves all readers in rounds of 1000 reads and
// reports each one's median ns/read; BenchmarkGoVsC pairs a Go round with a C
// round and reports the median ratio "go/c", as does
// TestGoTSCReadCost, which fails above it.
//
// MPI_Wtime is measured when the binary links MPI (mpi.Available) and
// mpi.Init succeeds as a singleton; it is called from the benchmark
// goroutine, which MPI_THREAD_FUNNELED does not strictly allow, but MPI_Wtime
// only reads a clock in Open MPI and MPICH.
package clocks
