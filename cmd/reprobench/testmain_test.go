package main

import (
	"fmt"
	"os"
	"testing"

	"github.com/reprobench/reprobench/internal/mpirun"
)

// TestMain removes the reprobench binaries that the MPI tests share
// (mpirun.BuildShared: one build per flavor, not one per test).
func TestMain(m *testing.M) {
	code := m.Run()
	if err := mpirun.RemoveBuilds(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		code = max(code, 1)
	}
	os.Exit(code)
}
