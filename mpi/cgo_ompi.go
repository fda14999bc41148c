//go:build cgo && !nompi && !mpich

package mpi

// Open MPI (or whichever library the "mpi" pkg-config module names; on
// Debian that is the default MPI alternative).

// #cgo pkg-config: mpi
import "C"

// BuildFlavor names the MPI library this binary is built against.
const BuildFlavor = "openmpi"
