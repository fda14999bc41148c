//go:build cgo && !nompi && mpich

package mpi

// MPICH, selected with the build tag mpich.

// #cgo pkg-config: mpich
import "C"

// BuildFlavor names the MPI library this binary is built against.
const BuildFlavor = "mpich"
