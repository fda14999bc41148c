package window

import (
	"testing"

	"github.com/reprobench/reprobench/mpi"
)

// RunFunc reaches funcComm.Observe only if funcComm is not an
// mpi.BatchObserver: mpi.ObserveBatch would run the built-in call instead.
func TestFuncCommIsNotBatchObserver(t *testing.T) {
	if _, ok := any(&funcComm{}).(mpi.BatchObserver); ok {
		t.Fatal("funcComm implements mpi.BatchObserver: RunFunc would time the built-in call, not the work")
	}
}
