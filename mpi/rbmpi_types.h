// rbmpi_types.h: the C types and constants every part of the binding
// shares — the datatype, reduction, synchronization and clock codes, the
// call numbers of the operation table (rbmpi_ops.h, generated), the tags
// and error codes of the binding, the entry phases, and rb_args, what one
// observation executes.
//
// The headers form a tree, never a circle: this one includes only system
// headers and the generated rbmpi_ops.h; rbmpi_sync.h (clocks and waits)
// includes this one; each family header (rbmpi_coll.h, rbmpi_vcoll.h,
// rbmpi_guide.h, rbmpi_nbc.h, rbmpi_p2p.h) includes this one, and
// rbmpi_sync.h where it waits (rbmpi_nbc.h); rbmpi.h, which the Go files
// include, includes them all (TestCHeaders checks it).
#ifndef RBMPI_TYPES_H
#define RBMPI_TYPES_H

#include <mpi.h>
#include <stdint.h>

#include "rbmpi_ops.h"

// Must match mpi.Datatype, mpi.ReduceOp, mpi.SyncKind and
// timing.SourceKind. (The call numbers, RB_BARRIER …, come from
// rbmpi_ops.h, written from the Go table.)
enum { RB_BYTE, RB_INT32, RB_INT64, RB_FLOAT32, RB_FLOAT64 };
enum { RB_SUM, RB_MIN, RB_MAX };
enum { RB_SYNC_NONE, RB_SYNC_BARRIER, RB_SYNC_DOUBLE_BARRIER, RB_SYNC_DISSEMINATION, RB_SYNC_DEADLINE };
enum { RB_CLK_NONE, RB_CLK_MONOTONIC, RB_CLK_TSC, RB_CLK_TSC_FENCED, RB_CLK_WTIME, RB_CLK_MONOTONIC_RAW };

// The phases of a phased C entry (mpi.Op.Phased): one call in the timed
// part, and, outside it, what mpi.Prepare makes and its release frees.
enum { RB_PHASE_CALL, RB_PHASE_PREPARE, RB_PHASE_RELEASE };

// Tags at and above RB_TAG_INTERNAL are reserved for the binding itself.
#define RB_TAG_INTERNAL 32000
#define RB_TAG_PINGPONG (RB_TAG_INTERNAL + 1)
#define RB_TAG_DISSEM (RB_TAG_INTERNAL + 2)

// Error codes of the binding, returned without entering MPI (check in
// binding.go turns each into a message):
//   - RB_ERR_THREAD: an observation path called from a thread other than
//     the one that initialized MPI;
//   - RB_ERR_UNPREPARED: a call whose resources mpi.Prepare has not made;
//   - RB_ERR_UNSUPPORTED: a call this MPI library does not provide (an
//     entry's prepare phase refuses it, before any observation);
//   - RB_ERR_MOVED: a call on other buffers than those its prepare bound
//     (bound_s, bound_r);
//   - RB_ERR_OFFSET: an observation whose buffers do not start where its
//     buf_offset level says, modulo the 64-byte cache line (rb_observe).
#define RB_ERR_THREAD (-7)
#define RB_ERR_UNPREPARED (-8)
#define RB_ERR_UNSUPPORTED (-9)
#define RB_ERR_MOVED (-10)
#define RB_ERR_OFFSET (-11)

static MPI_Datatype rb_dt(int d) {
	switch (d) {
	case RB_INT32: return MPI_INT32_T;
	case RB_INT64: return MPI_INT64_T;
	case RB_FLOAT32: return MPI_FLOAT;
	case RB_FLOAT64: return MPI_DOUBLE;
	default: return MPI_BYTE;
	}
}

// rb_dt_size is the size of one element of d in bytes (mpi.Datatype.Size).
static inline int rb_dt_size(int d) {
	switch (d) {
	case RB_INT32: case RB_FLOAT32: return 4;
	case RB_INT64: case RB_FLOAT64: return 8;
	default: return 1;
	}
}

static MPI_Op rb_op(int op) {
	switch (op) {
	case RB_MIN: return MPI_MIN;
	case RB_MAX: return MPI_MAX;
	default: return MPI_SUM;
	}
}

// rb_args is what one observation executes, as mpi.Observation describes it,
// except the buffers, which are Go memory and therefore passed as arguments:
// an rb_args lives in C memory (one per communicator, comm.args in
// binding.go) and must never hold a Go pointer. An operation family that
// needs more (a count vector, an RMA window, a request array) appends its
// fields at the end, and C-allocated resources may be pointers here.
typedef struct rb_args {
	int call;  // RB_BARRIER ... (rbmpi_ops.h)
	int n;     // elements per rank
	int dt;    // RB_BYTE ...
	int op;    // RB_SUM ...
	int root;  // root of rooted collectives; first rank of a ping-pong
	int peer;  // second rank of a ping-pong
	int bytes; // n times the element size
	int reps;  // calls between the timestamps, at least 1; 0: none (Observation.NoCall)
	int each;  // time each call on its own (Observation.TimeEach)
	int sync;  // RB_SYNC_NONE ...
	int size;  // the communicator's size
	// params are the levels of the factor table's call parameters
	// (mpi.Observation.Params), indexed by RB_F_… (rbmpi_ops.h): each
	// family's entries read the ones they implement.
	int64_t params[RB_NUM_FACTORS];
	// rot counts the calls of the current observation that rb_call_root
	// rotated (root_shift); rb_observe and rb_nbc_overlap set it to 0
	// before an observation's calls; the binding's Go path sets it to
	// the call's index (mpi.Observation.CallIndex) before rb_call_once.
	int rot;
	// prepared says that a phased entry's prepare phase succeeded for
	// prepared_call and its release has not run yet; bound_s and bound_r
	// are the addresses of the buffers that prepare was given (numbers,
	// not pointers: the binding pins the buffers until the release). An
	// entry whose resources keep those addresses, such as a persistent
	// request, refuses a call on other buffers with RB_ERR_MOVED
	// (rb_prepare sets them before the entry's prepare phase runs).
	int prepared, prepared_call;
	uintptr_t bound_s, bound_r;
	// vcoll: the count and displacement vectors and the Cartesian
	// communicator of rbmpi_vcoll.h, built outside the timed part
	// (prepareVColl in vcoll_binding.go). vc_ready says they match
	// (vc_call, vc_n, vc_skew).
	int vc_ready, vc_call, vc_n, vc_skew;
	int vc_scount, vc_rcount, vc_next, vc_prev;
	int *vc_sc, *vc_sd, *vc_rc, *vc_rd; // C arrays of p ints, or NULL
	MPI_Comm vc_cart;                    // Neighbor_alltoall's, when vc_has_cart
	int vc_has_cart;
	// nbc: the overlap measurement (mpi.Observation.Overlap …); pure and
	// compute are outputs, in ticks.
	int overlap;
	int64_t kernel_iters;
	int64_t test_every;
	// timed_kernel: OSU's time-targeted kernel (Observation.TimedKernel);
	// kernel_target is its target per call in ticks, set by rb_nbc_overlap
	// from the pure phase.
	int timed_kernel;
	int64_t kernel_target;
	int64_t pure;
	int64_t compute;
	// end nbc
	// Requests a phased entry's prepare made (C memory; p2p's window of
	// requests, a persistent request), or NULL; its release frees them.
	MPI_Request *reqs;
	int nreqs;
	// p2p (rbmpi_p2p.h): set by setArgs, except the resources, which
	// the prepare phase of rb_p2p_op makes and its release frees.
	int bw_window;     // messages per bw window (Observation.Window)
	int rma_sync;      // RB_RMA_FENCE ...
	MPI_Win win;       // valid when has_win
	int has_win;
	int locked_all;    // an MPI_Win_lock_all epoch is open on win
	void *win_base;    // this rank's part of win
	int64_t win_bytes;
	// end p2p
} rb_args;

// rb_call_root returns the root of the call a rooted entry is about to
// make: a->root, or, with root_shift on (factor.RootShift, IMB's
// -root_shift, OSU's -k rotate), (a->root + i) mod size for the i-th call
// of the observation (i from 0, counted in a->rot), as
// mpi.Observation.RootOf. Only the entries of the rows that take
// root_shift call it, once per call, so the others' loops are unchanged.
// It advances a->rot through a const pointer: rb_args is the binding's
// C allocation, never const memory, and rot is the one field an entry
// changes.
static inline int rb_call_root(const rb_args *a) {
	if (!a->params[RB_F_ROOT_SHIFT]) return a->root;
	rb_args *m = (rb_args *)a;
	return (a->root + m->rot++) % a->size;
}

// A C entry (mpi.Op.C) executes one call of the operation a describes,
// with the send buffer s and the receive buffer r, on rank of c:
//
//	int entry(const rb_args *a, void *s, void *r, int rank, MPI_Comm c);
//
// A phased entry (mpi.Op.Phased) takes the phase (RB_PHASE_CALL …) as a
// sixth argument and a non-const a. rb_call and rb_prepare (rbmpi.h)
// dispatch to them through RB_OPS.

#endif
