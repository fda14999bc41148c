// Package mpirun finds the MPI libraries installed on this machine and runs
// programs under their launchers, for integration tests and benchmarks.
//
// Two flavors are known: Open MPI (the default build, pkg-config "mpi",
// launched with mpirun.openmpi or mpirun) and MPICH (build tag "mpich",
// pkg-config "mpich", launched with mpiexec.mpich). Tests call Flavors and
// skip when none is installed, unless RB_REQUIRE_MPI=1 is set (make test and
// CI set it), in which case a missing library is a failure. RB_MPI_FLAVORS
// (for example "openmpi") restricts the flavors used.
//
// More ranks than cores (Flavor.Args) make the ranks yield the CPU when
// they find nothing to do: Open MPI through --oversubscribe (which turns on
// its mpi_yield_when_idle), MPICH 4.0's ch4:ucx, which has no such setting,
// through a small preloaded shim (yieldshim/yield.c, built once per machine
// into the user's cache directory). Without it 8 busy-polling MPICH ranks on
// 2 cores ran the binding's checks in 92 s instead of 1.1 s.
package mpirun
