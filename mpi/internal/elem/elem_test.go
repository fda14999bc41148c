package elem

import (
	"testing"

	"github.com/reprobench/reprobench/mpi"
)

// TestRoundTrip: every datatype stores and returns a value it can hold, at
// its own offset, without touching the neighbouring elements.
func TestRoundTrip(t *testing.T) {
	for _, dt := range []mpi.Datatype{mpi.Byte, mpi.Int32, mpi.Int64, mpi.Float32, mpi.Float64} {
		b := make([]byte, 3*dt.Size())
		Put(dt, b, 1, 100)
		if got := Get(dt, b, 1); got != 100 {
			t.Errorf("%v: element 1 = %v, want 100", dt, got)
		}
		if Get(dt, b, 0) != 0 || Get(dt, b, 2) != 0 {
			t.Errorf("%v: neighbours changed: % x", dt, b)
		}
	}
	b := make([]byte, 4)
	Put(mpi.Int32, b, 0, -7.9)
	if got := Get(mpi.Int32, b, 0); got != -7 {
		t.Errorf("int32 of -7.9 = %v, want -7 (truncation)", got)
	}
}
