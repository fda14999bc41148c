package mpi

import (
	"fmt"
	"hash/fnv"
	"unsafe"

	"github.com/reprobench/reprobench/timing"
)

// Comm is a communicator: the interface that clock synchronization, process
// synchronization and user benchmarks program against. It is implemented by
// the real cgo binding (World and the communicators derived from it) and by
// the simulated world of package mpitest.
//
// Buffers are byte slices; the generic helpers of this package (Send, Recv,
// Bcast, Allreduce, …) view []float64 and []int64 as bytes without copying.
// Empty buffers are valid. Methods return *Error on failure. A Comm is used by
// one goroutine (the one that called Init, for the real binding).
type Comm interface {
	// Rank returns the calling process's rank in the communicator.
	Rank() int
	// Size returns the number of ranks in the communicator.
	Size() int

	// Send sends buf to rank dest with the given tag (blocking, standard mode).
	Send(buf []byte, dest, tag int) error
	// Recv receives exactly len(buf) bytes from rank src with the given tag.
	Recv(buf []byte, src, tag int) error
	// Sendrecv sends sendbuf to dest and receives recvbuf from src at once.
	Sendrecv(sendbuf []byte, dest, sendtag int, recvbuf []byte, src, recvtag int) error
	// SendFloat64 sends one float64 without allocating.
	SendFloat64(v float64, dest, tag int) error
	// RecvFloat64 receives one float64 without allocating.
	RecvFloat64(src, tag int) (float64, error)
	// SendInt64 sends one int64 without allocating.
	SendInt64(v int64, dest, tag int) error
	// RecvInt64 receives one int64 without allocating.
	RecvInt64(src, tag int) (int64, error)
	// Isend starts a non-blocking send. buf must not be modified until the
	// request completes; the implementation keeps it valid (pinned) until then.
	Isend(buf []byte, dest, tag int) (Request, error)
	// Irecv starts a non-blocking receive into buf.
	Irecv(buf []byte, src, tag int) (Request, error)

	// Barrier blocks until every rank has entered it.
	Barrier() error
	// Bcast broadcasts count elements of type dt in buf from root.
	Bcast(buf []byte, count int, dt Datatype, root int) error
	// Reduce combines count elements from every rank into recv at root.
	Reduce(send, recv []byte, count int, dt Datatype, op ReduceOp, root int) error
	// Allreduce combines count elements from every rank into recv on all ranks.
	Allreduce(send, recv []byte, count int, dt Datatype, op ReduceOp) error
	// Scan computes the inclusive prefix reduction.
	Scan(send, recv []byte, count int, dt Datatype, op ReduceOp) error
	// Exscan computes the exclusive prefix reduction; recv on rank 0 is left unchanged.
	Exscan(send, recv []byte, count int, dt Datatype, op ReduceOp) error
	// Gather collects count elements from each rank into recv (size·count elements) at root.
	Gather(send, recv []byte, count int, dt Datatype, root int) error
	// Scatter sends count elements to each rank from send (size·count elements) at root.
	Scatter(send, recv []byte, count int, dt Datatype, root int) error
	// Allgather collects count elements from each rank into recv on all ranks.
	Allgather(send, recv []byte, count int, dt Datatype) error
	// Alltoall sends count elements to each rank and receives count from each.
	Alltoall(send, recv []byte, count int, dt Datatype) error
	// ReduceScatterBlock reduces size·count elements and scatters count to each rank.
	ReduceScatterBlock(send, recv []byte, count int, dt Datatype, op ReduceOp) error

	// Observe executes one timed observation (see Observation) reading clk for
	// the timestamps. The real binding runs the whole observation in one cgo
	// call when clk's Source can be read from C.
	Observe(o *Observation, clk timing.Clock) error

	// Split partitions the communicator by color, ordering ranks by key
	// (MPI_Comm_split). A negative color returns a nil Comm for this rank.
	Split(color, key int) (Comm, error)
	// Sub returns the communicator of the listed ranks, in that order, for
	// ranks in the list, and nil for the others. Every rank must call it
	// with the same list.
	Sub(ranks []int) (Comm, error)
	// SplitShared returns the communicator of the ranks that share memory
	// with the caller (the node), MPI_Comm_split_type(MPI_COMM_TYPE_SHARED).
	SplitShared() (Comm, error)
	// Free releases a derived communicator. Freeing the world is an error.
	Free() error
}

// Request is a pending non-blocking operation.
type Request interface {
	// Wait blocks until the operation completes.
	Wait() error
	// Test reports whether the operation has completed, without blocking.
	Test() (bool, error)
}

// Elem is the set of element types the generic helpers accept.
type Elem interface {
	~byte | ~int32 | ~int64 | ~float32 | ~float64
}

// TypeOf returns the Datatype of T.
func TypeOf[T Elem]() Datatype {
	var z T
	switch any(z).(type) {
	case byte:
		return Byte
	case int32:
		return Int32
	case int64:
		return Int64
	case float32:
		return Float32
	case float64:
		return Float64
	}
	// Named types with these underlying types: decide by size and kind.
	switch unsafe.Sizeof(z) {
	case 1:
		return Byte
	case 4:
		if isFloat[T]() {
			return Float32
		}
		return Int32
	default:
		if isFloat[T]() {
			return Float64
		}
		return Int64
	}
}

// isFloat reports whether T is a floating-point type: only there is 1/2 ≠ 0.
func isFloat[T Elem]() bool {
	var one T = 1
	return one/2 != 0
}

// Bytes views a slice of elements as bytes, without copying.
func Bytes[T Elem](s []T) []byte {
	if len(s) == 0 {
		return nil
	}
	return unsafe.Slice((*byte)(unsafe.Pointer(&s[0])), len(s)*int(unsafe.Sizeof(s[0])))
}

// Send sends the elements of x to dest.
func Send[T Elem](c Comm, x []T, dest, tag int) error { return c.Send(Bytes(x), dest, tag) }

// Recv receives len(x) elements from src.
func Recv[T Elem](c Comm, x []T, src, tag int) error { return c.Recv(Bytes(x), src, tag) }

// Sendrecv sends s to dest and receives r from src.
func Sendrecv[T Elem](c Comm, s []T, dest, stag int, r []T, src, rtag int) error {
	return c.Sendrecv(Bytes(s), dest, stag, Bytes(r), src, rtag)
}

// Bcast broadcasts x from root.
func Bcast[T Elem](c Comm, x []T, root int) error {
	return c.Bcast(Bytes(x), len(x), TypeOf[T](), root)
}

// Reduce combines send from every rank into recv at root.
func Reduce[T Elem](c Comm, send, recv []T, op ReduceOp, root int) error {
	if c.Rank() == root && len(recv) < len(send) {
		return lenErr("MPI_Reduce", len(send), len(recv))
	}
	return c.Reduce(Bytes(send), Bytes(recv), len(send), TypeOf[T](), op, root)
}

// Allreduce combines send from every rank into recv on every rank.
func Allreduce[T Elem](c Comm, send, recv []T, op ReduceOp) error {
	if len(recv) < len(send) {
		return lenErr("MPI_Allreduce", len(send), len(recv))
	}
	return c.Allreduce(Bytes(send), Bytes(recv), len(send), TypeOf[T](), op)
}

// Gather collects send from each rank into recv (Size()·len(send) elements) at root.
func Gather[T Elem](c Comm, send, recv []T, root int) error {
	if c.Rank() == root && len(recv) < len(send)*c.Size() {
		return lenErr("MPI_Gather", len(send)*c.Size(), len(recv))
	}
	return c.Gather(Bytes(send), Bytes(recv), len(send), TypeOf[T](), root)
}

// Scatter sends len(recv) elements to each rank from send at root.
func Scatter[T Elem](c Comm, send, recv []T, root int) error {
	if c.Rank() == root && len(send) < len(recv)*c.Size() {
		return lenErr("MPI_Scatter", len(recv)*c.Size(), len(send))
	}
	return c.Scatter(Bytes(send), Bytes(recv), len(recv), TypeOf[T](), root)
}

// Allgather collects send from each rank into recv on every rank.
func Allgather[T Elem](c Comm, send, recv []T) error {
	if len(recv) < len(send)*c.Size() {
		return lenErr("MPI_Allgather", len(send)*c.Size(), len(recv))
	}
	return c.Allgather(Bytes(send), Bytes(recv), len(send), TypeOf[T]())
}

func lenErr(fn string, want, have int) error {
	return &Error{Func: fn, Code: -1, Msg: fmt.Sprintf("receive buffer holds %d elements, need %d", have, want)}
}

// NodeSize returns how many ranks of c run on the caller's node (the size
// of the communicator SplitShared would return), without creating a
// communicator; collective. A rank's node is its MPI processor name
// (MPI_Get_processor_name: the host name with Open MPI and MPICH); the
// ranks allgather 52-bit FNV-1a hashes of the names (as AllEqual compares
// them). A communicator that knows its nodes answers itself, through a
// method NodeSize() (int, error) (mpitest's simulated nodes: the same
// messages, without every rank holding every rank's hash).
//
// Why not SplitShared: creating a communicator changes how the process
// measures afterwards (with Open MPI 4.1.4, an 8-byte MPI_Allreduce loop
// after MPI_Comm_split_type read up to 1.06× the same loop without it;
// docs/fidelity.md), and a program that checks its launch before measuring
// (pipeline.CheckLaunch) must leave no such trace.
func NodeSize(c Comm) (int, error) {
	if n, ok := c.(interface{ NodeSize() (int, error) }); ok {
		return n.NodeSize()
	}
	name, err := ProcessorName()
	if err != nil {
		return 0, err
	}
	v := Hash52(name)
	all := make([]float64, c.Size())
	if err := Allgather(c, []float64{v}, all); err != nil {
		return 0, err
	}
	n := 0
	for _, w := range all {
		if w == v {
			n++
		}
	}
	return n, nil
}

// AllEqual reports, on every rank of c, whether every rank passed the same
// s; collective. With s = ProcessorName() it tells whether all ranks run
// on one host, where they read one CLOCK_MONOTONIC. It compares 52-bit
// FNV-1a hashes of s, so unequal strings pass as equal with probability
// about 2^-52 per pair.
func AllEqual(c Comm, s string) (bool, error) {
	v := Hash52(s)
	out := make([]float64, 2) // max v and −min v
	if err := Allreduce(c, []float64{v, -v}, out, Max); err != nil {
		return false, err
	}
	return out[0] == -out[1], nil
}

// Hash52 is the 52-bit FNV-1a hash of s as a float64 (exact: 52 bits fit
// its mantissa), so that ranks can compare strings with one float64
// collective (AllEqual, NodeSize); unequal strings hash equal with
// probability about 2^-52 per pair.
func Hash52(s string) float64 {
	h := fnv.New64a()
	h.Write([]byte(s))
	return float64(h.Sum64() >> 12)
}
