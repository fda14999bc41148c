package elem

import (
	"encoding/binary"
	"math"

	"github.com/reprobench/reprobench/mpi"
)

// Put stores v as element i of b, converted to dt (integers truncate).
func Put(dt mpi.Datatype, b []byte, i int, v float64) {
	ne := binary.NativeEndian
	switch dt {
	case mpi.Byte:
		b[i] = byte(int(v))
	case mpi.Int32:
		ne.PutUint32(b[4*i:], uint32(int32(v)))
	case mpi.Int64:
		ne.PutUint64(b[8*i:], uint64(int64(v)))
	case mpi.Float32:
		ne.PutUint32(b[4*i:], math.Float32bits(float32(v)))
	case mpi.Float64:
		ne.PutUint64(b[8*i:], math.Float64bits(v))
	}
}

// Get returns element i of b, of datatype dt, as a float64.
func Get(dt mpi.Datatype, b []byte, i int) float64 {
	ne := binary.NativeEndian
	switch dt {
	case mpi.Byte:
		return float64(b[i])
	case mpi.Int32:
		return float64(int32(ne.Uint32(b[4*i:])))
	case mpi.Int64:
		return float64(int64(ne.Uint64(b[8*i:])))
	case mpi.Float32:
		return float64(math.Float32frombits(ne.Uint32(b[4*i:])))
	}
	return math.Float64frombits(ne.Uint64(b[8*i:]))
}
