package mpi

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
)

// Result checks of measured observations (engine.Experiment.VerifyResults,
// "reprobench run --check"): every rank fills its send buffer with a
// pattern every rank can compute (FillCheck), and after the observations
// compares its receive buffer with the row's Result (VerifyResult). The
// values are small integers, exact in every datatype and under every
// reduction in any order, so a correct result is equal byte for byte.

// checkValue is element i of rank q's send buffer under FillCheck: an
// integer in [1, 97].
func checkValue(q, i int) float64 { return float64((q*31+i)%97 + 1) }

// FillCheck writes checkValue(q, i) as element i of b, for every whole
// element of d in b (native byte order, as MPI reads it).
func FillCheck(b []byte, d Datatype, q int) {
	es := d.Size()
	if es <= 0 {
		return
	}
	ne := binary.NativeEndian
	for i := range len(b) / es {
		v := checkValue(q, i)
		switch d {
		case Byte:
			b[i] = byte(v)
		case Int32:
			ne.PutUint32(b[4*i:], uint32(int32(v)))
		case Int64:
			ne.PutUint64(b[8*i:], uint64(int64(v)))
		case Float32:
			ne.PutUint32(b[4*i:], math.Float32bits(float32(v)))
		case Float64:
			ne.PutUint64(b[8*i:], math.Float64bits(v))
		}
	}
}

// VerifyResult compares recv, rank's receive buffer after an observation
// of o on p ranks whose send buffers were filled by FillCheck (each at
// least as long as o's row's buffer rule says, Op.Buffers), with the row's
// Result. It returns the number of elements that differ and a description
// of the first, or 0 and "" when they agree or the row defines no result
// on this rank. A rooted call that rotates its root (root_shift) is
// checked against the root of the observation's last call
// (Observation.RootOf). Its cost is computing the result: O(p × send bytes) for
// the reductions and gathers, with one send buffer allocated at a time.
func VerifyResult(o *Observation, p, rank int, recv []byte) (bad int, first string) {
	if !o.Call.Valid() {
		return 0, ""
	}
	row := o.Call.Op()
	if row.Result == nil {
		return 0, ""
	}
	sendB, _ := SkewedBufferSizes(o.Call, o.Count, o.Type, p, o.Skew)
	want := row.Result(&Inputs{Count: o.Count, Type: o.Type, Op: o.Op, Root: o.RootOf(max(o.Reps, 1)-1, p), Peer: o.Peer, Skew: o.Skew,
		P: p, Rank: rank, Send: func(q int) []byte {
			b := make([]byte, sendB)
			FillCheck(b, o.Type, q)
			return b
		}})
	if want == nil {
		return 0, ""
	}
	es := o.Type.Size()
	if len(want) > len(recv) {
		return len(want) / es, fmt.Sprintf("the result has %d bytes, the receive buffer %d", len(want), len(recv))
	}
	for i := 0; i+es <= len(want); i += es {
		if !bytes.Equal(want[i:i+es], recv[i:i+es]) {
			if bad == 0 {
				first = fmt.Sprintf("element %d is %x, want %x", i/es, recv[i:i+es], want[i:i+es])
			}
			bad++
		}
	}
	return bad, first
}

// CorruptEnvName is the environment variable that arms the result
// corruption of a test build of the binding (build tag rbcorrupt):
// "CALL:RANK", e.g. "MPI_Allreduce:1", makes rank RANK flip a bit of every
// result of CALL, so that a test can show that the result check catches it
// under real MPI. Every other build ignores it.
const CorruptEnvName = "RB_CORRUPT_RESULT"
