package mpi

import (
	"encoding/binary"
	"testing"
)

// TestVerifyResult: an MPI_Allreduce (sum) of FillCheck's int64 pattern on
// 3 ranks is, per element i, Σ_q ((31q+i) mod 97 + 1); VerifyResult
// accepts exactly that and counts one changed element.
func TestVerifyResult(t *testing.T) {
	const p, count = 3, 5
	o := &Observation{Call: CallAllreduce, Count: count, Type: Int64, Op: Sum}
	recv := make([]byte, 8*count)
	for i := range count {
		var s int64
		for q := range p {
			s += int64((31*q+i)%97 + 1)
		}
		binary.NativeEndian.PutUint64(recv[8*i:], uint64(s))
	}
	if bad, first := VerifyResult(o, p, 1, recv); bad != 0 {
		t.Fatalf("correct result: %d bad, %s", bad, first)
	}
	recv[8*3] ^= 1
	if bad, first := VerifyResult(o, p, 1, recv); bad != 1 || first == "" {
		t.Errorf("one element changed: %d bad (%q), want 1", bad, first)
	}
	if bad, _ := VerifyResult(&Observation{Call: CallBarrier}, p, 0, nil); bad != 0 {
		t.Errorf("barrier: %d bad, want 0 (no result)", bad)
	}
}
