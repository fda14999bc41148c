package mpi

import (
	"errors"
	"fmt"
	"strings"

	"github.com/reprobench/reprobench/factor"
	"github.com/reprobench/reprobench/timing"
)

// Datatype is the element type of a message buffer.
type Datatype int

// Supported datatypes.
const (
	Byte Datatype = iota
	Int32
	Int64
	Float32
	Float64
)

var datatypeNames = [...]string{"MPI_BYTE", "MPI_INT32_T", "MPI_INT64_T", "MPI_FLOAT", "MPI_DOUBLE"}
var datatypeSizes = [...]int{1, 4, 8, 4, 8}
var datatypeShort = [...]string{"byte", "int32", "int64", "float32", "float64"}

// Size returns the size of one element in bytes, or 0 for an invalid Datatype.
func (d Datatype) Size() int {
	if !d.Valid() {
		return 0
	}
	return datatypeSizes[d]
}

// Valid reports whether d is one of the supported datatypes.
func (d Datatype) Valid() bool { return d >= 0 && int(d) < len(datatypeSizes) }

// String returns the MPI name of the datatype, such as "MPI_DOUBLE".
func (d Datatype) String() string {
	if !d.Valid() {
		return fmt.Sprintf("Datatype(%d)", int(d))
	}
	return datatypeNames[d]
}

// ShortName returns the lower-case name used on the command line and in raw
// data ("byte", "int32", "int64", "float32", "float64").
func (d Datatype) ShortName() string {
	if !d.Valid() {
		return d.String()
	}
	return datatypeShort[d]
}

// ParseDatatype accepts a short name ("float64") or an MPI name ("MPI_DOUBLE").
func ParseDatatype(s string) (Datatype, error) {
	for i := range datatypeShort {
		if strings.EqualFold(s, datatypeShort[i]) || strings.EqualFold(s, datatypeNames[i]) {
			return Datatype(i), nil
		}
	}
	return 0, fmt.Errorf("mpi: unknown datatype %q (want one of %s)", s, strings.Join(datatypeShort[:], ", "))
}

// ReduceOp is a reduction operation.
type ReduceOp int

// Supported reductions.
const (
	Sum ReduceOp = iota
	Min
	Max
)

var opNames = [...]string{"MPI_SUM", "MPI_MIN", "MPI_MAX"}

// Valid reports whether op is a supported reduction.
func (op ReduceOp) Valid() bool { return op >= 0 && int(op) < len(opNames) }

// String returns the MPI name of the operation.
func (op ReduceOp) String() string {
	if !op.Valid() {
		return fmt.Sprintf("ReduceOp(%d)", int(op))
	}
	return opNames[op]
}

// CheckReduce reports whether op may be applied to elements of type d.
// Reductions are defined on the numeric types only: MPICH rejects MPI_SUM on
// MPI_BYTE, so we reject it everywhere for portable results.
func CheckReduce(d Datatype, op ReduceOp) error {
	if !d.Valid() {
		return fmt.Errorf("mpi: invalid datatype %v", d)
	}
	if !op.Valid() {
		return fmt.Errorf("mpi: invalid reduction %v", op)
	}
	if d == Byte {
		return fmt.Errorf("mpi: reduction %v is not defined on %v; use int32, int64, float32 or float64", op, d)
	}
	return nil
}

// SyncKind selects how an observation waits before its start timestamp.
type SyncKind int

// Ways to start an observation.
const (
	// SyncNone starts at once.
	SyncNone SyncKind = iota
	// SyncBarrier calls MPI_Barrier, then starts.
	SyncBarrier
	// SyncDoubleBarrier calls MPI_Barrier twice, then starts.
	SyncDoubleBarrier
	// SyncDissemination runs our own dissemination barrier (⌈log2 P⌉ rounds
	// of zero-byte sendrecv), then starts.
	SyncDissemination
	// SyncDeadline busy-waits until the clock reaches Observation.Deadline.
	SyncDeadline
)

var syncNames = [...]string{"none", "barrier", "double_barrier", "dissemination", "deadline"}

// String returns the name of the synchronization kind.
func (k SyncKind) String() string {
	if k < 0 || int(k) >= len(syncNames) {
		return fmt.Sprintf("SyncKind(%d)", int(k))
	}
	return syncNames[k]
}

// Observation describes one timed execution of an operation, and receives its
// result. It is the unit of the critical path: a Comm executes the whole
// sequence — wait (barrier or deadline), start timestamp, Reps calls of the
// operation, end timestamp — as one step, without returning to the Go
// scheduler in between (the real binding does it in a single cgo call).
//
// An Observation is reused across calls; Observe does not allocate.
type Observation struct {
	Call       Call
	Send, Recv []byte   // buffers; see BufferSizes
	Count      int      // elements per rank
	Type       Datatype // element type
	Op         ReduceOp // for reductions
	Root       int      // root of rooted collectives; first rank of a ping-pong
	Peer       int      // second rank of a ping-pong
	Reps       int      // calls between the timestamps; 0 means 1

	// CallIndex is the index of the call being executed among the
	// observation's calls, 0 … max(Reps, 1)−1: the Go loops that execute
	// them (ObserveGo, package mpitest) set it before each call, and the
	// Go reference semantics of a per-call factor read it (root_shift:
	// RootOf). The C path counts its calls itself (rb_args.rot), so after
	// a C observation it is left as it was.
	CallIndex int

	// TimeEach times each of the Reps calls on its own, as OSU's
	// benchmarks and IMB's collectives do: per call t0 = now; call; t1 =
	// now; sum += t1 − t0; then a barrier when Call.EachBarrier (the
	// collectives; not after a ping-pong or a bw window). End is then
	// Start + sum (the barriers excluded), not a timestamp.
	TimeEach bool

	Sync     SyncKind
	Deadline timing.Ticks // for SyncDeadline: local clock ticks at which to start

	// NoCall leaves the call out: the wait, the start timestamp and at
	// once the end timestamp, nothing between them. Call and the buffers
	// must still validate (CallBarrier needs no buffers). It measures what
	// the wait itself loses, such as the late starts of a window loop with
	// nothing to time (window.MeasureBaseline).
	NoCall bool

	// p2p (bw, bibw, mbw_mr and one-sided; p2p.go):
	//   - BWWindow is the number of messages of one bw, bibw or mbw_mr
	//     window (osu_bw's window size); 0 means defaultBWWindow;
	//   - RMASync is the synchronization of Put, Get and Accumulate.
	BWWindow int
	RMASync  RMASync

	// Params are the levels of the call parameters of the factor table
	// that Call takes (SetParams; package factor): unset for the others.
	// The binding copies every level into rb_args.params, and each
	// family's code reads the ones it implements (InPlace, …).
	Params factor.Values

	// For ObserveBatch only (Observe ignores them), so that cache control
	// stays in the batch's single cgo call:
	//   - Offsets, when not nil, gives each observation of the batch a
	//     byte offset into Send and Recv: observation i uses
	//     Send[Offsets[i]:] and Recv[Offsets[i]:] (buffers cycled or
	//     randomized within a larger allocation, Stanisic et al. 2017);
	//   - Flush, when not nil, is written (every 64th byte) before each
	//     observation's wait, to evict the caches (cold-cache mode).
	Offsets []int64
	Flush   []byte

	// vcoll: Skew makes the counts of a v-collective uneven: the heavy
	// rank (SkewRank, the last one) contributes Skew times Count
	// elements, every other rank Count (see SkewedBufferSizes for each
	// call). 0 and 1 mean uniform counts; other calls refuse Skew > 1.
	Skew int
	// nbc: the overlap measurement of a non-blocking
	// collective (see nbc.go and docs/data-format.md). With Overlap set, an
	// observation runs a pure phase (Reps × post, wait) and, after the
	// same synchronization again, the overlapped phase (Reps × post,
	// KernelIters iterations of the compute kernel, wait) between Start
	// and End; with TestEvery > 0 the kernel calls MPI_Test every
	// TestEvery iterations. Pure and Compute receive the pure phase's
	// time and the kernel's time without the MPI_Test calls, in ticks
	// (with TimeEach, sums of the per-call times as for End − Start).
	// TimedKernel replaces the KernelIters kernel by OSU's time-targeted
	// one (runtime osu): passes of OSU's matrix kernel until their timed
	// sum reaches this rank's mean pure time per call of the same
	// observation, TestEvery then being OSU's number of MPI_Test probes.
	Overlap     bool
	KernelIters int64
	TestEvery   int64
	TimedKernel bool
	Pure        timing.Ticks
	Compute     timing.Ticks

	// Results, in ticks of the clock given to Observe.
	Start timing.Ticks // first timestamp after the wait
	End   timing.Ticks // timestamp after the last call returned
}

// Validate checks the observation against a communicator of size p.
func (o *Observation) Validate(p int) error {
	if !o.Call.Valid() {
		return fmt.Errorf("mpi: invalid call %v", o.Call)
	}
	if !o.Type.Valid() {
		return fmt.Errorf("mpi: invalid datatype %v", o.Type)
	}
	if o.Count < 0 {
		return fmt.Errorf("mpi: negative count %d", o.Count)
	}
	if o.Reps < 0 {
		return fmt.Errorf("mpi: negative reps %d", o.Reps)
	}
	if o.Root < 0 || o.Root >= p {
		return fmt.Errorf("mpi: root %d out of range [0,%d)", o.Root, p)
	}
	op := o.Call.Op()
	if o.Call == CallPingPong {
		if o.Peer < 0 || o.Peer >= p || o.Peer == o.Root {
			return fmt.Errorf("mpi: ping-pong peer %d invalid (root %d, size %d)", o.Peer, o.Root, p)
		}
	}
	if err := op.CheckType(o.Type, o.Op); err != nil {
		return err
	}
	if err := o.validateParams(); err != nil {
		return err
	}
	if err := o.validateP2P(p); err != nil { // p2p
		return err
	}
	if err := op.CheckRanks(p); err != nil {
		return err
	}
	if o.NoCall && (o.Overlap || o.TimeEach) {
		return fmt.Errorf("mpi: an observation without a call cannot time each call or measure overlap")
	}
	if o.Sync < SyncNone || o.Sync > SyncDeadline {
		return fmt.Errorf("mpi: invalid sync kind %v", o.Sync)
	}
	if err := o.validateVColl(p); err != nil { // vcoll
		return err
	}
	if err := o.validateNBC(); err != nil { // nbc
		return err
	}
	s, r := SkewedBufferSizes(o.Call, o.Count, o.Type, p, o.Skew) // vcoll: BufferSizes when Skew ≤ 1
	if len(o.Send) < s {
		return fmt.Errorf("mpi: %v needs a %d-byte send buffer, have %d", o.Call, s, len(o.Send))
	}
	if len(o.Recv) < r {
		return fmt.Errorf("mpi: %v needs a %d-byte receive buffer, have %d", o.Call, r, len(o.Recv))
	}
	for i, off := range o.Offsets {
		if off < 0 || off+int64(s) > int64(len(o.Send)) || off+int64(r) > int64(len(o.Recv)) {
			return fmt.Errorf("mpi: offset %d of observation %d leaves no %d-byte send and %d-byte receive buffer in %d and %d bytes",
				off, i, s, r, len(o.Send), len(o.Recv))
		}
	}
	return nil
}

// flushCaches writes every 64th byte of b (Observation.Flush), so that
// its cache lines evict the measured buffers.
func flushCaches(b []byte) {
	if len(b) == 0 {
		return
	}
	v := b[len(b)/2] + 1
	for j := 0; j < len(b); j += 64 {
		b[j] = v
	}
}

// ErrNoMPI is returned by Init when the program was built without MPI (no
// cgo, or the build tag nompi).
var ErrNoMPI = errors.New("mpi: built without MPI support (cgo disabled or tag nompi); rebuild with cgo and an MPI library (pkg-config mpi or, with -tags mpich, pkg-config mpich)")

// Error is a failure reported by the MPI library or detected before calling it.
type Error struct {
	Func string // the MPI function, such as "MPI_Send"
	Code int    // the MPI error code, or -1 when the error was detected in Go
	Msg  string // MPI's error string
}

func (e *Error) Error() string {
	if e.Code < 0 {
		return fmt.Sprintf("mpi: %s: %s", e.Func, e.Msg)
	}
	return fmt.Sprintf("mpi: %s failed (code %d): %s", e.Func, e.Code, e.Msg)
}

// ThreadLevel is the MPI thread support level requested at initialization.
//
// ThreadSingle (the default of Init) is what a C benchmark that calls plain
// MPI_Init gets, and what the binding's usage guarantees: every MPI call is
// made by the one OS thread that Init locked (see the package
// documentation, "Thread level", for why the Go runtime's other threads do
// not break that). ThreadFunneled is the conservative declaration for
// programs that do more than the binding controls; ThreadSerialized and
// ThreadMultiple are accepted to measure what the library's locking costs
// (the binding still calls MPI from one thread). The level is a factor
// of the measurement: Open MPI 4.1.4 switches its internal locking on for
// every level above SINGLE (opal_uses_threads), which on the project's VMs
// made an 8-byte MPI_Allreduce 100-140 ns slower on a quiet VM (faster
// under a load of 30); MPICH 4.0.2 runs the
// same code at SINGLE and FUNNELED. Record it with the results.
type ThreadLevel int

// Thread levels.
const (
	ThreadSingle     ThreadLevel = 0 // MPI_THREAD_SINGLE
	ThreadFunneled   ThreadLevel = 1 // MPI_THREAD_FUNNELED
	ThreadSerialized ThreadLevel = 2 // MPI_THREAD_SERIALIZED
	ThreadMultiple   ThreadLevel = 3 // MPI_THREAD_MULTIPLE
)

var threadNames = [...]string{"single", "funneled", "serialized", "multiple"}

// MPIName returns MPI's name of the level, such as "MPI_THREAD_SINGLE".
func (l ThreadLevel) MPIName() string {
	if l < ThreadSingle || l > ThreadMultiple {
		return l.String()
	}
	return "MPI_THREAD_" + strings.ToUpper(threadNames[l])
}

// String returns "single", "funneled", "serialized" or "multiple".
func (l ThreadLevel) String() string {
	if l < ThreadSingle || l > ThreadMultiple {
		return fmt.Sprintf("ThreadLevel(%d)", int(l))
	}
	return threadNames[l]
}

// ParseThreadLevel accepts "single", "funneled", "serialized" or
// "multiple" (any case, with or without the MPI_THREAD_ prefix).
func ParseThreadLevel(s string) (ThreadLevel, error) {
	n := strings.ToLower(strings.TrimPrefix(strings.ToUpper(s), "MPI_THREAD_"))
	for i, name := range threadNames {
		if n == name {
			return ThreadLevel(i), nil
		}
	}
	return 0, fmt.Errorf("mpi: unknown thread level %q (want single, funneled, serialized or multiple)", s)
}
