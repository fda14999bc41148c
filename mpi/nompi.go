//go:build !cgo || nompi

package mpi

import (
	"time"

	"github.com/reprobench/reprobench/timing"
)

// Available reports whether this build links an MPI library.
const Available = false

// TagInternal is the first tag reserved for the binding. User tags must be
// in [0, TagInternal).
const TagInternal = 32000

// Init returns ErrNoMPI: this build has no MPI library.
func Init() error { return ErrNoMPI }

// InitThread returns ErrNoMPI: this build has no MPI library.
func InitThread(level ThreadLevel) (ThreadLevel, error) { return 0, ErrNoMPI }

// Thread returns ThreadSingle: this build has no MPI library.
func Thread() ThreadLevel { return ThreadSingle }

// ThreadRequested returns ThreadSingle: this build has no MPI library.
func ThreadRequested() ThreadLevel { return ThreadSingle }

// ThreadProvided returns "": this build has no MPI library.
func ThreadProvided() string { return "" }

// Finalize returns ErrNoMPI.
func Finalize() error { return ErrNoMPI }

// Initialized reports false: this build has no MPI library.
func Initialized() (bool, error) { return false, nil }

// World returns nil: this build has no MPI library.
func World() Comm { return nil }

// Abort returns ErrNoMPI.
func Abort(code int) error { return ErrNoMPI }

// ProcessorName returns ErrNoMPI.
func ProcessorName() (string, error) { return "", ErrNoMPI }

// LibraryVersion returns ErrNoMPI.
func LibraryVersion() (string, error) { return "", ErrNoMPI }

// Wtime returns 0: this build has no MPI library.
func Wtime() time.Duration { return 0 }

// Wtick returns 0: this build has no MPI library.
func Wtick() time.Duration { return 0 }

// WtimeClock returns nil: this build has no MPI library.
func WtimeClock() timing.Clock { return nil }

// BuildFlavor names the MPI library this binary is built against.
const BuildFlavor = "none"

// ControlVariables returns ErrNoMPI: this build has no MPI library.
func ControlVariables() ([]ControlVariable, error) { return nil, ErrNoMPI }

// Adopt returns ErrNoMPI: this build has no MPI library.
func Adopt(handle uintptr) (Comm, error) { return nil, ErrNoMPI }
