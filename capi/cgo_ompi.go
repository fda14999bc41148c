//go:build cgo && !nompi && !mpich

package main

// #cgo pkg-config: mpi
import "C"
