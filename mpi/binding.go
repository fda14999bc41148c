//go:build cgo && !nompi

package mpi

/*
#cgo LDFLAGS: -lm
#include "rbmpi.h"
*/
import "C"

import (
	"fmt"
	"math"
	"runtime"
	"strings"
	"time"
	"unsafe"

	"github.com/reprobench/reprobench/factor"
	"github.com/reprobench/reprobench/timing"
)

// TagInternal is the first tag reserved for the binding (ping-pong and
// dissemination barrier of Observe). User tags must be in [0, TagInternal).
const TagInternal = C.RB_TAG_INTERNAL

var world *comm

// Available reports whether this build links an MPI library.
const Available = true

// Init initializes MPI with MPI_Init_thread(MPI_THREAD_SINGLE), as a C
// program's MPI_Init does, and installs MPI_ERRORS_RETURN on
// MPI_COMM_WORLD and MPI_COMM_SELF. It is InitThread(ThreadSingle).
//
// Init locks the calling goroutine to its OS thread for the rest of the
// program: call it from the main goroutine (ideally from main itself), and
// make every later MPI call from that same goroutine. The package
// documentation ("Thread level") explains why SINGLE is then correct for a
// Go program; use InitThread(ThreadFunneled) to declare more.
func Init() error {
	_, err := InitThread(ThreadSingle)
	return err
}

// InitThread is Init with a chosen thread level; it returns the level the
// library granted and fails if that is below the one requested.
func InitThread(level ThreadLevel) (ThreadLevel, error) {
	if level < ThreadSingle || level > ThreadMultiple {
		return 0, &Error{Func: "MPI_Init_thread", Code: -1, Msg: fmt.Sprintf("unsupported thread level %v", level)}
	}
	if ok, _ := Initialized(); ok {
		return 0, &Error{Func: "MPI_Init_thread", Code: -1, Msg: "MPI is already initialized"}
	}
	if err := checkOpsHeader(); err != nil {
		return 0, err
	}
	runtime.LockOSThread()
	var provided C.int
	if err := check("MPI_Init_thread", C.rb_init(C.int(level), &provided)); err != nil {
		return 0, err
	}
	got := ThreadSingle
	for l := ThreadFunneled; l <= ThreadMultiple; l++ {
		if provided >= C.rb_thread_level(C.int(l)) {
			got = l
		}
	}
	if provided < C.rb_thread_level(C.int(level)) {
		return got, &Error{Func: "MPI_Init_thread", Code: -1,
			Msg: fmt.Sprintf("the library granted %s, below the requested %s", C.GoString(C.rb_thread_name(provided)), level.MPIName())}
	}
	c, err := newComm(C.rb_comm_world(), true)
	if err != nil {
		return got, err
	}
	world, grantedLevel, requestedLevel = c, got, level
	providedName = C.GoString(C.rb_thread_name(provided))
	return got, nil
}

// Thread returns the thread level granted at initialization.
func Thread() ThreadLevel { return grantedLevel }

// ThreadRequested returns the thread level requested at initialization.
func ThreadRequested() ThreadLevel { return requestedLevel }

// ThreadProvided returns the level MPI_Init_thread reported as provided,
// under MPI's name (MPI_THREAD_SINGLE … MPI_THREAD_MULTIPLE), or "" before
// Init. A library may provide more than was requested; Thread returns the
// part of it the binding uses.
func ThreadProvided() string { return providedName }

var (
	grantedLevel   ThreadLevel
	requestedLevel ThreadLevel
	providedName   string
)

// Finalize shuts MPI down (MPI_Finalize). No MPI call may follow.
func Finalize() error {
	if world != nil {
		world.release()
	}
	return check("MPI_Finalize", C.MPI_Finalize())
}

// Initialized reports whether MPI_Init has been called.
func Initialized() (bool, error) {
	var flag C.int
	err := check("MPI_Initialized", C.MPI_Initialized(&flag))
	return flag != 0, err
}

// finalized reports whether MPI_Finalize has been called.
func finalized() (bool, error) {
	var flag C.int
	err := check("MPI_Finalized", C.MPI_Finalized(&flag))
	return flag != 0, err
}

// World returns MPI_COMM_WORLD, or nil before Init.
func World() Comm {
	if world == nil {
		return nil
	}
	return world
}

// Abort terminates every process of the job with the given error code
// (MPI_Abort on MPI_COMM_WORLD). It returns only if MPI_Abort fails.
func Abort(code int) error {
	return check("MPI_Abort", C.MPI_Abort(C.rb_comm_world(), C.int(code)))
}

// ProcessorName returns MPI_Get_processor_name.
func ProcessorName() (string, error) {
	buf := make([]byte, int(C.rb_max_processor_name())+1)
	var n C.int
	if err := check("MPI_Get_processor_name", C.MPI_Get_processor_name((*C.char)(unsafe.Pointer(&buf[0])), &n)); err != nil {
		return "", err
	}
	return string(buf[:n]), nil
}

// LibraryVersion returns MPI_Get_library_version, such as
// "Open MPI v4.1.4, package: Debian OpenMPI, …". It may be called before Init.
func LibraryVersion() (string, error) {
	buf := make([]byte, int(C.rb_max_library_version())+1)
	var n C.int
	if err := check("MPI_Get_library_version", C.MPI_Get_library_version((*C.char)(unsafe.Pointer(&buf[0])), &n)); err != nil {
		return "", err
	}
	for n > 0 && (buf[n-1] == 0 || buf[n-1] == '\n') {
		n--
	}
	return string(buf[:n]), nil
}

// Wtime returns MPI_Wtime, the time since an arbitrary origin in the past,
// rounded to the nanosecond (the reading of WtimeClock without its epoch).
// MPI_Wtime is a double of seconds: far from its origin it has lost
// sub-microsecond digits before the rounding.
func Wtime() time.Duration { return time.Duration(C.rb_wtime_ns()) }

// Wtick returns MPI_Wtick, the resolution of Wtime, rounded to the nearest
// nanosecond and at least 1 ns (Wtime rounds to the nanosecond).
func Wtick() time.Duration {
	return max(time.Duration(math.Round(float64(C.MPI_Wtick())*1e9)), time.Nanosecond)
}

// The C clock kinds of rb_now (rbmpi_types.h) are timing.SourceKind's
// values: each line fails to compile when a pair differs.
var (
	_ = [1]int{}[C.RB_CLK_NONE-int(timing.SourceNone)]
	_ = [1]int{}[C.RB_CLK_MONOTONIC-int(timing.SourceMonotonic)]
	_ = [1]int{}[C.RB_CLK_TSC-int(timing.SourceTSC)]
	_ = [1]int{}[C.RB_CLK_TSC_FENCED-int(timing.SourceTSCFenced)]
	_ = [1]int{}[C.RB_CLK_WTIME-int(timing.SourceWtime)]
	_ = [1]int{}[C.RB_CLK_MONOTONIC_RAW-int(timing.SourceMonotonicRaw)]
)

// wtimeClock is MPI_Wtime as a timing.Clock ticking in nanoseconds.
type wtimeClock struct {
	epoch int64
}

// WtimeClock returns MPI_Wtime as a timing.Clock: ticks are nanoseconds since
// the moment WtimeClock was called (C code reads the same value through
// Source). Its resolution is that of MPI_Wtime (see Wtick), and since
// MPI_Wtime returns a double, large Wtime values lose sub-microsecond digits.
func WtimeClock() timing.Clock {
	return &wtimeClock{epoch: int64(C.rb_wtime_ns())}
}

func (w *wtimeClock) Now() timing.Ticks { return timing.Ticks(int64(C.rb_wtime_ns()) - w.epoch) }
func (w *wtimeClock) Name() string      { return "mpi_wtime" }

// Freq returns 1 GHz: the clock ticks in nanoseconds.
func (w *wtimeClock) Freq() timing.Freq { return timing.NewFreq(1e9) }
func (w *wtimeClock) Source() timing.Source {
	return timing.Source{Kind: timing.SourceWtime, Epoch: w.epoch, Hz: 1e9}
}

// comm is a real MPI communicator.
type comm struct {
	h       C.MPI_Comm
	rank    int
	size    int
	isWorld bool
	// scratch is C memory for the scalar helpers and Observe's timestamps,
	// so that they neither allocate nor pass Go pointers that must escape.
	scratch *[4]int64
	// args is C memory for the operation of Observe and ObserveBatch
	// (rb_args in rbmpi.h), filled from the Observation by setArgs.
	args  *C.rb_args
	freed bool
}

var _ Comm = (*comm)(nil)

// checkOpsHeader refuses a binding whose rbmpi_ops.h was not written from
// this operation table: the call numbers and C entries would disagree, and
// an observation would run another operation without any error.
func checkOpsHeader() error {
	if uint32(C.RB_OPS_HASH) != opsHash() || int(C.RB_NUM_CALLS) != int(numCalls) {
		return &Error{Func: "MPI_Init_thread", Code: -1, Msg: fmt.Sprintf("rbmpi_ops.h (%d calls, hash %#x) was not written from mpi/ops.go (%d calls, hash %#x); "+
			"regenerate it: go test -tags nompi ./mpi -run TestOpsHeader -update-ops-header", int(C.RB_NUM_CALLS), uint32(C.RB_OPS_HASH), int(numCalls), opsHash())}
	}
	return nil
}

var _ BatchObserver = (*comm)(nil)

func newComm(h C.MPI_Comm, isWorld bool) (*comm, error) {
	var r, s C.int
	if err := check("MPI_Comm_rank", C.rb_comm_rank_size(h, &r, &s)); err != nil {
		return nil, err
	}
	scratch := (*[4]int64)(C.calloc(4, 8))
	args := (*C.rb_args)(C.calloc(1, C.sizeof_rb_args))
	return &comm{h: h, rank: int(r), size: int(s), isWorld: isWorld, scratch: scratch, args: args}, nil
}

func (c *comm) release() {
	if c.args != nil {
		_ = c.releaseVColl() // vcoll: vectors and Cartesian communicator
	}
	if c.scratch != nil {
		C.free(unsafe.Pointer(c.scratch))
		c.scratch = nil
	}
	if c.args != nil {
		C.free(unsafe.Pointer(c.args))
		c.args = nil
	}
}

// setArgs fills c.args from a validated observation, and returns it.
func (c *comm) setArgs(o *Observation) *C.rb_args {
	a := c.args
	a.call = C.int(o.Call)
	a.n = C.int(o.Count)
	a.dt = C.int(o.Type)
	a.op = C.int(o.Op)
	a.root = C.int(o.Root)
	a.peer = C.int(o.Peer)
	a.bytes = C.int(o.Count * o.Type.Size())
	a.reps = C.int(max(o.Reps, 1))
	if o.NoCall {
		a.reps = 0 // rb_observe: no call between the timestamps
	}
	a.each = cbool(o.TimeEach)
	a.sync = C.int(o.Sync)
	a.size = C.int(c.size)
	for id := range factor.NumIDs {
		a.params[id] = C.int64_t(o.Params.Level(id))
	}
	// nbc
	a.overlap = cbool(o.Overlap)
	a.kernel_iters = C.int64_t(o.KernelIters)
	a.test_every = C.int64_t(o.TestEvery)
	a.timed_kernel = cbool(o.TimedKernel)
	// p2p:
	a.bw_window = C.int(o.Window())
	a.rma_sync = C.int(o.RMASync)
	return a
}

func (c *comm) Rank() int { return c.rank }
func (c *comm) Size() int { return c.size }

// check converts an MPI error code into *Error.
func check(fn string, code C.int) error {
	if code == 0 {
		return nil
	}
	switch code {
	case C.RB_ERR_THREAD:
		return &Error{Func: fn, Code: -1, Msg: "called from an OS thread other than the one that called Init " +
			"(make every MPI call from the goroutine that called Init)"}
	case C.RB_ERR_UNPREPARED:
		return ErrUnprepared(fn)
	case C.RB_ERR_UNSUPPORTED:
		return &Error{Func: fn, Code: -1, Msg: fmt.Sprintf("not provided by this MPI library (%s; \"reprobench ops\" says what the call needs)", libraryName())}
	case C.RB_ERR_MOVED:
		return ErrBoundBuffers(fn)
	case C.RB_ERR_OFFSET:
		return &Error{Func: fn, Code: -1, Msg: "the buffers do not start where the buf_offset level says (modulo 64 bytes)"}
	}
	buf := make([]byte, int(C.rb_max_error_string())+1)
	var n C.int
	C.rb_error_string(code, (*C.char)(unsafe.Pointer(&buf[0])), &n)
	return &Error{Func: fn, Code: int(code), Msg: string(buf[:n])}
}

// libraryName returns the first line of MPI_Get_library_version, or the
// build flavor when it cannot be read.
func libraryName() string {
	v, err := LibraryVersion()
	if err != nil || v == "" {
		return BuildFlavor
	}
	v, _, _ = strings.Cut(v, "\n")
	v, _, _ = strings.Cut(v, ",")
	return v
}

func errf(fn, format string, args ...any) error {
	return &Error{Func: fn, Code: -1, Msg: fmt.Sprintf(format, args...)}
}

func cbool(b bool) C.int {
	if b {
		return 1
	}
	return 0
}

// ptr returns the address of b's first byte, or nil for an empty slice.
func ptr(b []byte) unsafe.Pointer {
	if len(b) == 0 {
		return nil
	}
	return unsafe.Pointer(&b[0])
}

func (c *comm) live(fn string) error {
	if c.freed {
		return errf(fn, "communicator has been freed")
	}
	return nil
}

func (c *comm) checkP2P(fn string, peer, tag int) error {
	if err := c.live(fn); err != nil {
		return err
	}
	return CheckP2P(fn, c.size, peer, tag) // shared with mpitest (args.go)
}

func (c *comm) Send(buf []byte, dest, tag int) error {
	if err := c.checkP2P("MPI_Send", dest, tag); err != nil {
		return err
	}
	return check("MPI_Send", C.rb_send(ptr(buf), C.int(len(buf)), C.int(dest), C.int(tag), c.h))
}

func (c *comm) Recv(buf []byte, src, tag int) error {
	if err := c.checkP2P("MPI_Recv", src, tag); err != nil {
		return err
	}
	got := c.count()
	if err := check("MPI_Recv", C.rb_recv(ptr(buf), C.int(len(buf)), C.int(src), C.int(tag), c.h, got)); err != nil {
		return err
	}
	if int(*got) != len(buf) {
		return errf("MPI_Recv", "received %d bytes from rank %d, expected %d", int(*got), src, len(buf))
	}
	return nil
}

func (c *comm) Sendrecv(sendbuf []byte, dest, sendtag int, recvbuf []byte, src, recvtag int) error {
	if err := c.checkP2P("MPI_Sendrecv", dest, sendtag); err != nil {
		return err
	}
	if err := c.checkP2P("MPI_Sendrecv", src, recvtag); err != nil {
		return err
	}
	got := c.count()
	if err := check("MPI_Sendrecv", C.rb_sendrecv(ptr(sendbuf), C.int(len(sendbuf)), C.int(dest), C.int(sendtag),
		ptr(recvbuf), C.int(len(recvbuf)), C.int(src), C.int(recvtag), c.h, got)); err != nil {
		return err
	}
	if int(*got) != len(recvbuf) {
		return errf("MPI_Sendrecv", "received %d bytes from rank %d, expected %d", int(*got), src, len(recvbuf))
	}
	return nil
}

// count returns C memory for a received element count: a Go variable whose
// address is passed to C would escape to the heap, one allocation per call.
func (c *comm) count() *C.int { return (*C.int)(unsafe.Pointer(&c.scratch[3])) }

func (c *comm) scratchBytes() []byte {
	return unsafe.Slice((*byte)(unsafe.Pointer(c.scratch)), 8)
}

func (c *comm) SendInt64(v int64, dest, tag int) error {
	if err := c.live("MPI_Send"); err != nil {
		return err
	}
	c.scratch[0] = v
	return c.Send(c.scratchBytes(), dest, tag)
}

func (c *comm) RecvInt64(src, tag int) (int64, error) {
	if err := c.live("MPI_Recv"); err != nil {
		return 0, err
	}
	err := c.Recv(c.scratchBytes(), src, tag)
	return c.scratch[0], err
}

func (c *comm) SendFloat64(v float64, dest, tag int) error {
	return c.SendInt64(int64(math.Float64bits(v)), dest, tag)
}

func (c *comm) RecvFloat64(src, tag int) (float64, error) {
	v, err := c.RecvInt64(src, tag)
	return math.Float64frombits(uint64(v)), err
}

// request is a pending Isend or Irecv. The buffer is pinned until completion
// so that the garbage collector neither frees nor moves it while MPI uses it.
type request struct {
	r      *C.MPI_Request // C memory: MPI may keep the request's address
	pin    runtime.Pinner
	fn     string
	done   bool
	expect int
}

func (c *comm) newRequest(fn string, buf []byte) *request {
	rq := &request{r: C.rb_new_request(), fn: fn}
	if len(buf) > 0 {
		rq.pin.Pin(&buf[0])
	}
	return rq
}

func (rq *request) finish() {
	rq.done = true
	rq.pin.Unpin()
	C.free(unsafe.Pointer(rq.r))
	rq.r = nil
}

func (c *comm) Isend(buf []byte, dest, tag int) (Request, error) {
	if err := c.checkP2P("MPI_Isend", dest, tag); err != nil {
		return nil, err
	}
	rq := c.newRequest("MPI_Isend", buf)
	if err := check("MPI_Isend", C.rb_isend(ptr(buf), C.int(len(buf)), C.int(dest), C.int(tag), c.h, rq.r)); err != nil {
		rq.finish()
		return nil, err
	}
	return rq, nil
}

func (c *comm) Irecv(buf []byte, src, tag int) (Request, error) {
	if err := c.checkP2P("MPI_Irecv", src, tag); err != nil {
		return nil, err
	}
	rq := c.newRequest("MPI_Irecv", buf)
	if err := check("MPI_Irecv", C.rb_irecv(ptr(buf), C.int(len(buf)), C.int(src), C.int(tag), c.h, rq.r)); err != nil {
		rq.finish()
		return nil, err
	}
	return rq, nil
}

func (rq *request) Wait() error {
	if rq.done {
		return nil
	}
	err := check("MPI_Wait", C.rb_wait(rq.r))
	rq.finish()
	return err
}

func (rq *request) Test() (bool, error) {
	if rq.done {
		return true, nil
	}
	var flag C.int
	if err := check("MPI_Test", C.rb_test(rq.r, &flag)); err != nil {
		rq.finish()
		return true, err
	}
	if flag != 0 {
		rq.finish()
		return true, nil
	}
	return false, nil
}

func (c *comm) Barrier() error {
	if err := c.live("MPI_Barrier"); err != nil {
		return err
	}
	return check("MPI_Barrier", C.rb_barrier(c.h))
}

// checkColl validates the arguments every collective shares (CheckColl,
// shared with mpitest).
func (c *comm) checkColl(fn string, count int, dt Datatype, root int) error {
	if err := c.live(fn); err != nil {
		return err
	}
	_, err := CheckColl(fn, c.size, count, dt, root)
	return err
}

func needBytes(fn, which string, b []byte, n int) error { return CheckBuffer(fn, which, b, n) }

func (c *comm) checkReduce(fn string, send, recv []byte, count int, dt Datatype, op ReduceOp, root int, recvHere bool) error {
	if err := c.checkColl(fn, count, dt, root); err != nil {
		return err
	}
	if err := CheckOp(fn, dt, op); err != nil {
		return err
	}
	n := count * dt.Size()
	if err := needBytes(fn, "send", send, n); err != nil {
		return err
	}
	if recvHere {
		return needBytes(fn, "receive", recv, n)
	}
	return nil
}

func (c *comm) Bcast(buf []byte, count int, dt Datatype, root int) error {
	if err := c.checkColl("MPI_Bcast", count, dt, root); err != nil {
		return err
	}
	if err := needBytes("MPI_Bcast", "", buf, count*dt.Size()); err != nil {
		return err
	}
	return check("MPI_Bcast", C.rb_bcast(ptr(buf), C.int(count), C.int(dt), C.int(root), c.h))
}

func (c *comm) Reduce(send, recv []byte, count int, dt Datatype, op ReduceOp, root int) error {
	if err := c.checkReduce("MPI_Reduce", send, recv, count, dt, op, root, c.rank == root); err != nil {
		return err
	}
	return check("MPI_Reduce", C.rb_reduce(ptr(send), ptr(recv), C.int(count), C.int(dt), C.int(op), C.int(root), c.h))
}

func (c *comm) Allreduce(send, recv []byte, count int, dt Datatype, op ReduceOp) error {
	if err := c.checkReduce("MPI_Allreduce", send, recv, count, dt, op, 0, true); err != nil {
		return err
	}
	return check("MPI_Allreduce", C.rb_allreduce(ptr(send), ptr(recv), C.int(count), C.int(dt), C.int(op), c.h))
}

func (c *comm) Scan(send, recv []byte, count int, dt Datatype, op ReduceOp) error {
	if err := c.checkReduce("MPI_Scan", send, recv, count, dt, op, 0, true); err != nil {
		return err
	}
	return check("MPI_Scan", C.rb_scan(ptr(send), ptr(recv), C.int(count), C.int(dt), C.int(op), c.h))
}

func (c *comm) Exscan(send, recv []byte, count int, dt Datatype, op ReduceOp) error {
	if err := c.checkReduce("MPI_Exscan", send, recv, count, dt, op, 0, true); err != nil {
		return err
	}
	return check("MPI_Exscan", C.rb_exscan(ptr(send), ptr(recv), C.int(count), C.int(dt), C.int(op), c.h))
}

func (c *comm) Gather(send, recv []byte, count int, dt Datatype, root int) error {
	if err := c.checkColl("MPI_Gather", count, dt, root); err != nil {
		return err
	}
	n := count * dt.Size()
	if err := needBytes("MPI_Gather", "send", send, n); err != nil {
		return err
	}
	if c.rank == root {
		if err := needBytes("MPI_Gather", "receive", recv, n*c.size); err != nil {
			return err
		}
	}
	return check("MPI_Gather", C.rb_gather(ptr(send), ptr(recv), C.int(count), C.int(dt), C.int(root), c.h))
}

func (c *comm) Scatter(send, recv []byte, count int, dt Datatype, root int) error {
	if err := c.checkColl("MPI_Scatter", count, dt, root); err != nil {
		return err
	}
	n := count * dt.Size()
	if c.rank == root {
		if err := needBytes("MPI_Scatter", "send", send, n*c.size); err != nil {
			return err
		}
	}
	if err := needBytes("MPI_Scatter", "receive", recv, n); err != nil {
		return err
	}
	return check("MPI_Scatter", C.rb_scatter(ptr(send), ptr(recv), C.int(count), C.int(dt), C.int(root), c.h))
}

func (c *comm) Allgather(send, recv []byte, count int, dt Datatype) error {
	if err := c.checkColl("MPI_Allgather", count, dt, 0); err != nil {
		return err
	}
	n := count * dt.Size()
	if err := needBytes("MPI_Allgather", "send", send, n); err != nil {
		return err
	}
	if err := needBytes("MPI_Allgather", "receive", recv, n*c.size); err != nil {
		return err
	}
	return check("MPI_Allgather", C.rb_allgather(ptr(send), ptr(recv), C.int(count), C.int(dt), c.h))
}

func (c *comm) Alltoall(send, recv []byte, count int, dt Datatype) error {
	if err := c.checkColl("MPI_Alltoall", count, dt, 0); err != nil {
		return err
	}
	n := count * dt.Size() * c.size
	if err := needBytes("MPI_Alltoall", "send", send, n); err != nil {
		return err
	}
	if err := needBytes("MPI_Alltoall", "receive", recv, n); err != nil {
		return err
	}
	return check("MPI_Alltoall", C.rb_alltoall(ptr(send), ptr(recv), C.int(count), C.int(dt), c.h))
}

func (c *comm) ReduceScatterBlock(send, recv []byte, count int, dt Datatype, op ReduceOp) error {
	const fn = "MPI_Reduce_scatter_block"
	if err := c.checkColl(fn, count, dt, 0); err != nil {
		return err
	}
	if err := CheckOp(fn, dt, op); err != nil {
		return err
	}
	n := count * dt.Size()
	if err := needBytes(fn, "send", send, n*c.size); err != nil {
		return err
	}
	if err := needBytes(fn, "receive", recv, n); err != nil {
		return err
	}
	return check(fn, C.rb_reduce_scatter_block(ptr(send), ptr(recv), C.int(count), C.int(dt), C.int(op), c.h))
}

func (c *comm) Observe(o *Observation, clk timing.Clock) error {
	const fn = "Observe"
	if err := c.live(fn); err != nil {
		return err
	}
	if err := o.Validate(c.size); err != nil {
		return errf(fn, "%v", err)
	}
	if err := c.ensureVColl(o); err != nil { // vcoll: count vectors, outside the timed part
		return err
	}
	if err := c.checkPrepared(fn, o); err != nil { // p2p
		return err
	}
	src := clk.Source()
	if src.Kind == timing.SourceNone {
		return observeGo(c, o, clk)
	}
	err := check(o.Call.String(), C.rb_observe(c.h, C.int(c.rank), C.int(c.size), c.setArgs(o),
		ptr(o.Send), ptr(o.Recv), C.int64_t(o.Deadline), C.int(src.Kind), C.int64_t(src.Epoch),
		(*C.int64_t)(unsafe.Pointer(&c.scratch[0])), (*C.int64_t)(unsafe.Pointer(&c.scratch[1]))))
	o.Start, o.End = timing.Ticks(c.scratch[0]), timing.Ticks(c.scratch[1])
	o.Pure, o.Compute = timing.Ticks(c.args.pure), timing.Ticks(c.args.compute) // nbc
	if corruptBuilt && err == nil {
		corruptResult(c.rank, o, 0)
	}
	return err
}

// ObserveBatch implements BatchObserver: the whole batch runs in one cgo call.
func (c *comm) ObserveBatch(o *Observation, clk timing.Clock, deadlines, starts, ends []timing.Ticks) error {
	const fn = "ObserveBatch"
	if err := c.live(fn); err != nil {
		return err
	}
	if err := o.Validate(c.size); err != nil {
		return errf(fn, "%v", err)
	}
	if err := checkBatch(o, deadlines, starts, ends); err != nil {
		return err
	}
	if err := c.ensureVColl(o); err != nil { // vcoll: count vectors, outside the timed part
		return err
	}
	if err := c.checkPrepared(fn, o); err != nil { // p2p
		return err
	}
	src := clk.Source()
	if src.Kind == timing.SourceNone || len(starts) == 0 {
		return observeBatchGo(c, o, clk, deadlines, starts, ends)
	}
	if o.Overlap { // nbc: one cgo call per observation, so that Pure and Compute can be read after each
		return observeEach(c, o, clk, deadlines, starts, ends, c.Observe)
	}
	var dl *C.int64_t
	if o.Sync == SyncDeadline {
		dl = (*C.int64_t)(unsafe.Pointer(&deadlines[0]))
	}
	var offs *C.int64_t
	if o.Offsets != nil {
		offs = (*C.int64_t)(unsafe.Pointer(&o.Offsets[0]))
	}
	var flush *C.uchar
	if len(o.Flush) > 0 {
		flush = (*C.uchar)(unsafe.Pointer(&o.Flush[0]))
	}
	done := c.count()
	err := check(o.Call.String(), C.rb_observe_batch(c.h, C.int(c.rank), C.int(c.size), c.setArgs(o),
		ptr(o.Send), ptr(o.Recv), dl, C.int(len(starts)), C.int(src.Kind), C.int64_t(src.Epoch),
		(*C.int64_t)(unsafe.Pointer(&starts[0])), (*C.int64_t)(unsafe.Pointer(&ends[0])), offs, flush,
		C.int64_t(len(o.Flush)), done))
	if n := int(*done); n > 0 {
		o.Start, o.End = starts[n-1], ends[n-1]
		if o.Sync == SyncDeadline {
			o.Deadline = deadlines[n-1]
		}
		if corruptBuilt && err == nil {
			off := int64(0)
			if o.Offsets != nil {
				off = o.Offsets[n-1]
			}
			corruptResult(c.rank, o, off)
		}
	}
	return err
}

func (c *comm) Split(color, key int) (Comm, error) {
	if err := c.live("MPI_Comm_split"); err != nil {
		return nil, err
	}
	var h C.MPI_Comm
	if err := check("MPI_Comm_split", C.rb_comm_split(c.h, C.int(color), C.int(key), &h)); err != nil {
		return nil, err
	}
	return wrapNew(h)
}

func (c *comm) Sub(ranks []int) (Comm, error) {
	const fn = "MPI_Comm_create"
	if err := c.live(fn); err != nil {
		return nil, err
	}
	seen := make(map[int]bool, len(ranks))
	cr := make([]C.int, len(ranks))
	for i, r := range ranks {
		if err := checkPeer(fn, c.size, r); err != nil {
			return nil, err
		}
		if seen[r] {
			return nil, errf(fn, "rank %d listed twice", r)
		}
		seen[r] = true
		cr[i] = C.int(r)
	}
	var p *C.int
	if len(cr) > 0 {
		p = &cr[0]
	}
	var h C.MPI_Comm
	if err := check(fn, C.rb_comm_create_incl(c.h, p, C.int(len(cr)), &h)); err != nil {
		return nil, err
	}
	return wrapNew(h)
}

func (c *comm) SplitShared() (Comm, error) {
	if err := c.live("MPI_Comm_split_type"); err != nil {
		return nil, err
	}
	var h C.MPI_Comm
	if err := check("MPI_Comm_split_type", C.rb_comm_split_shared(c.h, C.int(c.rank), &h)); err != nil {
		return nil, err
	}
	return wrapNew(h)
}

// wrapNew wraps a newly created handle; MPI_COMM_NULL becomes a nil Comm
// (an untyped nil, so that callers can compare with nil).
func wrapNew(h C.MPI_Comm) (Comm, error) {
	if C.rb_is_null(h) != 0 {
		return nil, nil
	}
	nc, err := newComm(h, false)
	if err != nil {
		return nil, err
	}
	return nc, nil
}

func (c *comm) Free() error {
	if c.isWorld {
		return errf("MPI_Comm_free", "cannot free MPI_COMM_WORLD")
	}
	if err := c.live("MPI_Comm_free"); err != nil {
		return err
	}
	c.freed = true
	c.release()
	return check("MPI_Comm_free", C.rb_comm_free(&c.h))
}

// emptyCall is an empty cgo call, the floor of every binding call's cost.
func emptyCall() { C.rb_empty() }

// pingPongC times n ping-pongs of the given size between ranks 0 and 1 in
// a loop written in C; out[i] receives the round trip in nanoseconds on
// rank 0. It is the reference for the Go-driven loop in benchmarks.
func pingPongC(c Comm, n, size int, buf []byte, out []int64) error {
	cc, ok := c.(*comm)
	if !ok {
		return errf("pingPongC", "not a real communicator")
	}
	if len(out) < n || len(buf) < size {
		return errf("pingPongC", "buffers too small")
	}
	return check("pingPongC", C.rb_pingpong_loop(cc.h, C.int(cc.rank), C.int(n), C.int(size), ptr(buf),
		(*C.int64_t)(unsafe.Pointer(&out[0]))))
}
