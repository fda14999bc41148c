//go:build cgo && !nompi && mpich

package main

// #cgo pkg-config: mpich
import "C"
