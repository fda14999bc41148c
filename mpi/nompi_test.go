//go:build !cgo || nompi

package mpi

import (
	"errors"
	"testing"
)

func TestNoMPI(t *testing.T) {
	if err := Init(); !errors.Is(err, ErrNoMPI) {
		t.Fatalf("Init() = %v, want ErrNoMPI", err)
	}
	if World() != nil || WtimeClock() != nil || Available {
		t.Error("a build without MPI must have no world, no Wtime clock, Available false")
	}
	if _, err := LibraryVersion(); !errors.Is(err, ErrNoMPI) {
		t.Errorf("LibraryVersion error = %v", err)
	}
}
