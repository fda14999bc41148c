// rbmpi.h: the C side of reprobench's MPI binding.
//
// Everything here is static and included by exactly one Go file (binding.go).
// Handles and constants that are macros in some MPI libraries (Open MPI
// defines MPI_COMM_WORLD as the address of a global) are wrapped in functions
// so that cgo never has to evaluate them. Every wrapper returns the MPI error
// code; communicators have MPI_ERRORS_RETURN installed, so errors come back
// here instead of aborting the job.
#ifndef RBMPI_H
#define RBMPI_H

#include <mpi.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <time.h>
#include <x86intrin.h>

// Must match mpi.Datatype, mpi.ReduceOp, mpi.Call, mpi.SyncKind and
// timing.SourceKind.
enum { RB_BYTE, RB_INT32, RB_INT64, RB_FLOAT32, RB_FLOAT64 };
enum { RB_SUM, RB_MIN, RB_MAX };
enum {
	RB_BARRIER, RB_BCAST, RB_REDUCE, RB_ALLREDUCE, RB_SCAN, RB_EXSCAN, RB_GATHER,
	RB_SCATTER, RB_ALLGATHER, RB_ALLTOALL, RB_REDUCE_SCATTER_BLOCK, RB_PINGPONG,
	// vcoll (rbmpi_vcoll.h)
	RB_ALLGATHERV, RB_ALLTOALLV, RB_GATHERV, RB_SCATTERV, RB_REDUCE_SCATTER, RB_SENDRECV, RB_NEIGHBOR_ALLTOALL,
	// guide (#18): the performance guidelines' mock-ups (rbmpi_guide.h)
	RB_REDUCE_BCAST, RB_REDUCE_SCATTER_BLOCK_ALLGATHER, RB_SCATTER_ALLGATHER, RB_GATHER_BCAST,
	RB_EXSCAN_REDUCE_LOCAL, RB_REDUCE_PLUS_SCATTER,
	// nbc
	RB_IBARRIER, RB_IBCAST, RB_IREDUCE, RB_IALLREDUCE, RB_IGATHER, RB_ISCATTER, RB_IALLGATHER, RB_IALLTOALL,
	RB_IREDUCE_SCATTER_BLOCK, RB_ISCAN,
	// end nbc
	// p2p (rbmpi_p2p.h):
	RB_BW, RB_BIBW, RB_MBW_MR, RB_PUT, RB_GET, RB_ACCUMULATE,
};
enum { RB_SYNC_NONE, RB_SYNC_BARRIER, RB_SYNC_DOUBLE_BARRIER, RB_SYNC_DISSEMINATION, RB_SYNC_DEADLINE };
enum { RB_CLK_NONE, RB_CLK_MONOTONIC, RB_CLK_TSC, RB_CLK_TSC_FENCED, RB_CLK_WTIME };

// Tags at and above RB_TAG_INTERNAL are reserved for the binding itself.
#define RB_TAG_INTERNAL 32000
#define RB_TAG_PINGPONG (RB_TAG_INTERNAL + 1)
#define RB_TAG_DISSEM (RB_TAG_INTERNAL + 2)

// RB_ERR_THREAD is returned, without entering MPI, by the observation
// paths when called from a thread other than the one that initialized MPI.
#define RB_ERR_THREAD (-7)

static MPI_Comm rb_comm_world(void) { return MPI_COMM_WORLD; }
static MPI_Comm rb_comm_null(void) { return MPI_COMM_NULL; }
static int rb_is_null(MPI_Comm c) { return c == MPI_COMM_NULL; }

static MPI_Datatype rb_dt(int d) {
	switch (d) {
	case RB_INT32: return MPI_INT32_T;
	case RB_INT64: return MPI_INT64_T;
	case RB_FLOAT32: return MPI_FLOAT;
	case RB_FLOAT64: return MPI_DOUBLE;
	default: return MPI_BYTE;
	}
}

static MPI_Op rb_op(int op) {
	switch (op) {
	case RB_MIN: return MPI_MIN;
	case RB_MAX: return MPI_MAX;
	default: return MPI_SUM;
	}
}

// rb_thread_level maps mpi.ThreadLevel (0 single, 1 funneled, 2 serialized,
// 3 multiple) to MPI's.
static int rb_thread_level(int level) {
	switch (level) {
	case 1: return MPI_THREAD_FUNNELED;
	case 2: return MPI_THREAD_SERIALIZED;
	case 3: return MPI_THREAD_MULTIPLE;
	default: return MPI_THREAD_SINGLE;
	}
}

static const char *rb_thread_name(int provided) {
	if (provided == MPI_THREAD_SINGLE) return "MPI_THREAD_SINGLE";
	if (provided == MPI_THREAD_FUNNELED) return "MPI_THREAD_FUNNELED";
	if (provided == MPI_THREAD_SERIALIZED) return "MPI_THREAD_SERIALIZED";
	if (provided == MPI_THREAD_MULTIPLE) return "MPI_THREAD_MULTIPLE";
	return "unknown";
}

// rb_main is the thread that initialized MPI: the only one allowed to call
// it (the binding's contract at every thread level it requests). Weak, not
// static: every cgo file that includes this header is its own translation
// unit, and they must all see the one rb_main that rb_init set.
__attribute__((weak)) pthread_t rb_main;

// rb_on_main reports whether the calling thread is the one that called
// rb_init: cheap (pthread_self reads a register), so the observation paths
// check it before entering MPI.
static int rb_on_main(void) { return pthread_equal(pthread_self(), rb_main); }

static int rb_init(int level, int *provided) {
	rb_main = pthread_self();
	int err = MPI_Init_thread(NULL, NULL, rb_thread_level(level), provided);
	if (err != MPI_SUCCESS) return err;
	err = MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
	if (err != MPI_SUCCESS) return err;
	return MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
}

static void rb_error_string(int code, char *buf, int *len) {
	if (MPI_Error_string(code, buf, len) != MPI_SUCCESS) {
		*len = snprintf(buf, MPI_MAX_ERROR_STRING, "unknown MPI error %d", code);
	}
}
static int rb_max_error_string(void) { return MPI_MAX_ERROR_STRING; }
static int rb_max_processor_name(void) { return MPI_MAX_PROCESSOR_NAME; }
static int rb_max_library_version(void) { return MPI_MAX_LIBRARY_VERSION_STRING; }

// Point-to-point.
static int rb_send(const void *buf, int n, int dest, int tag, MPI_Comm c) {
	return MPI_Send(buf, n, MPI_BYTE, dest, tag, c);
}
static int rb_recv(void *buf, int n, int src, int tag, MPI_Comm c, int *got) {
	MPI_Status st;
	int err = MPI_Recv(buf, n, MPI_BYTE, src, tag, c, &st);
	if (err != MPI_SUCCESS) return err;
	return MPI_Get_count(&st, MPI_BYTE, got);
}
static int rb_sendrecv(const void *sb, int sn, int dest, int stag, void *rb, int rn, int src, int rtag,
                       MPI_Comm c, int *got) {
	MPI_Status st;
	int err = MPI_Sendrecv(sb, sn, MPI_BYTE, dest, stag, rb, rn, MPI_BYTE, src, rtag, c, &st);
	if (err != MPI_SUCCESS) return err;
	return MPI_Get_count(&st, MPI_BYTE, got);
}
static int rb_isend(const void *buf, int n, int dest, int tag, MPI_Comm c, MPI_Request *r) {
	return MPI_Isend(buf, n, MPI_BYTE, dest, tag, c, r);
}
static int rb_irecv(void *buf, int n, int src, int tag, MPI_Comm c, MPI_Request *r) {
	return MPI_Irecv(buf, n, MPI_BYTE, src, tag, c, r);
}
static MPI_Request *rb_new_request(void) { return (MPI_Request *)calloc(1, sizeof(MPI_Request)); }
static int rb_wait(MPI_Request *r) { return MPI_Wait(r, MPI_STATUS_IGNORE); }
static int rb_test(MPI_Request *r, int *flag) { return MPI_Test(r, flag, MPI_STATUS_IGNORE); }

// Collectives.
static int rb_barrier(MPI_Comm c) { return MPI_Barrier(c); }
static int rb_bcast(void *b, int n, int dt, int root, MPI_Comm c) { return MPI_Bcast(b, n, rb_dt(dt), root, c); }
static int rb_reduce(const void *s, void *r, int n, int dt, int op, int root, MPI_Comm c) {
	return MPI_Reduce(s, r, n, rb_dt(dt), rb_op(op), root, c);
}
static int rb_allreduce(const void *s, void *r, int n, int dt, int op, MPI_Comm c) {
	return MPI_Allreduce(s, r, n, rb_dt(dt), rb_op(op), c);
}
static int rb_scan(const void *s, void *r, int n, int dt, int op, MPI_Comm c) {
	return MPI_Scan(s, r, n, rb_dt(dt), rb_op(op), c);
}
static int rb_exscan(const void *s, void *r, int n, int dt, int op, MPI_Comm c) {
	return MPI_Exscan(s, r, n, rb_dt(dt), rb_op(op), c);
}
static int rb_gather(const void *s, void *r, int n, int dt, int root, MPI_Comm c) {
	return MPI_Gather(s, n, rb_dt(dt), r, n, rb_dt(dt), root, c);
}
static int rb_scatter(const void *s, void *r, int n, int dt, int root, MPI_Comm c) {
	return MPI_Scatter(s, n, rb_dt(dt), r, n, rb_dt(dt), root, c);
}
static int rb_allgather(const void *s, void *r, int n, int dt, MPI_Comm c) {
	return MPI_Allgather(s, n, rb_dt(dt), r, n, rb_dt(dt), c);
}
static int rb_alltoall(const void *s, void *r, int n, int dt, MPI_Comm c) {
	return MPI_Alltoall(s, n, rb_dt(dt), r, n, rb_dt(dt), c);
}
static int rb_reduce_scatter_block(const void *s, void *r, int n, int dt, int op, MPI_Comm c) {
	return MPI_Reduce_scatter_block(s, r, n, rb_dt(dt), rb_op(op), c);
}

// Communicator management.
static int rb_comm_rank_size(MPI_Comm c, int *rank, int *size) {
	int err = MPI_Comm_rank(c, rank);
	if (err != MPI_SUCCESS) return err;
	return MPI_Comm_size(c, size);
}
static int rb_comm_split(MPI_Comm c, int color, int key, MPI_Comm *out) {
	int err = MPI_Comm_split(c, color < 0 ? MPI_UNDEFINED : color, key, out);
	if (err == MPI_SUCCESS && *out != MPI_COMM_NULL) err = MPI_Comm_set_errhandler(*out, MPI_ERRORS_RETURN);
	return err;
}
static int rb_comm_split_shared(MPI_Comm c, int key, MPI_Comm *out) {
	int err = MPI_Comm_split_type(c, MPI_COMM_TYPE_SHARED, key, MPI_INFO_NULL, out);
	if (err == MPI_SUCCESS && *out != MPI_COMM_NULL) err = MPI_Comm_set_errhandler(*out, MPI_ERRORS_RETURN);
	return err;
}
static int rb_comm_create_incl(MPI_Comm c, const int *ranks, int n, MPI_Comm *out) {
	MPI_Group g, sub;
	int err = MPI_Comm_group(c, &g);
	if (err != MPI_SUCCESS) return err;
	err = MPI_Group_incl(g, n, ranks, &sub);
	MPI_Group_free(&g);
	if (err != MPI_SUCCESS) return err;
	err = MPI_Comm_create(c, sub, out);
	MPI_Group_free(&sub);
	if (err == MPI_SUCCESS && *out != MPI_COMM_NULL) err = MPI_Comm_set_errhandler(*out, MPI_ERRORS_RETURN);
	return err;
}
static int rb_comm_free(MPI_Comm *c) { return MPI_Comm_free(c); }

// Clocks. rb_now must read exactly what the Go timing package reads for the
// same source, so that Go and C timestamps are comparable.
static inline int64_t rb_wtime_ns(void) { return (int64_t)llround(MPI_Wtime() * 1e9); }

static inline int64_t rb_now(int kind, int64_t epoch) {
	struct timespec ts;
	unsigned int aux;
	switch (kind) {
	case RB_CLK_TSC:
		return (int64_t)__rdtscp(&aux) - epoch;
	case RB_CLK_TSC_FENCED:
		_mm_lfence();
		return (int64_t)__rdtsc() - epoch;
	case RB_CLK_WTIME:
		return rb_wtime_ns() - epoch;
	default:
		clock_gettime(CLOCK_MONOTONIC, &ts);
		return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec - epoch;
	}
}

// rb_dissemination_barrier is a dissemination barrier: in round k every rank
// sends a zero-byte message to (rank + 2^k) mod p and receives one from
// (rank - 2^k) mod p; after ceil(log2 p) rounds every rank has heard from
// every other rank, transitively (Hensgen, Finkel and Manber 1988).
static int rb_dissemination_barrier(MPI_Comm c, int rank, int p) {
	char s = 0, r = 0;
	for (int d = 1; d < p; d <<= 1) {
		int err = MPI_Sendrecv(&s, 0, MPI_BYTE, (rank + d) % p, RB_TAG_DISSEM, &r, 0, MPI_BYTE,
		                       (rank - d + p) % p, RB_TAG_DISSEM, c, MPI_STATUS_IGNORE);
		if (err != MPI_SUCCESS) return err;
	}
	return MPI_SUCCESS;
}

// rb_args is what one observation executes, as mpi.Observation describes it,
// except the buffers, which are Go memory and therefore passed as arguments:
// an rb_args lives in C memory (one per communicator, comm.args in
// binding.go) and must never hold a Go pointer. An operation family that
// needs more (a count vector, an RMA window, a request array) appends its
// fields at the end, and C-allocated resources may be pointers here.
typedef struct rb_args {
	int call;
	int n;     // elements per rank
	int dt;    // RB_BYTE ...
	int op;    // RB_SUM ...
	int root;  // root of rooted collectives; first rank of a ping-pong
	int peer;  // second rank of a ping-pong
	int bytes; // n times the element size
	int reps;  // calls between the timestamps, at least 1
	int each;  // time each call on its own (Observation.TimeEach)
	int sync;  // RB_SYNC_NONE ...
	// vcoll: the count and displacement vectors and the Cartesian
	// communicator of rbmpi_vcoll.h, built outside the timed part
	// (prepareVColl in vcoll_binding.go). vc_ready says they match
	// (vc_call, vc_n, vc_skew).
	int vc_ready, vc_call, vc_n, vc_skew;
	int vc_scount, vc_rcount, vc_next, vc_prev;
	int *vc_sc, *vc_sd, *vc_rc, *vc_rd; // C arrays of p ints, or NULL
	MPI_Comm vc_cart;                    // Neighbor_alltoall's, when vc_has_cart
	int vc_has_cart;
	int size; // guide: the communicator's size (the mock-ups split and gather by it)
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
	// p2p (rbmpi_p2p.h): set by setArgs, except the resources, which
	// p2pPrepare creates and releases.
	int np;            // communicator size
	int bw_window;     // messages per bw window (Observation.Window)
	int rma_sync;      // RB_RMA_FENCE ...
	MPI_Request *reqs; // nreqs requests (C memory), or NULL
	int nreqs;
	MPI_Win win;       // valid when has_win
	int has_win;
	int locked_all;    // an MPI_Win_lock_all epoch is open on win
	void *win_base;    // this rank's part of win
	int64_t win_bytes;
	// end p2p
} rb_args;

#include "rbmpi_vcoll.h"
#include "rbmpi_guide.h"
#include "rbmpi_nbc.h" // nbc
#include "rbmpi_p2p.h"

// rb_call executes one call of the operation a describes, with the send
// buffer s and the receive buffer r.
static int rb_call(const rb_args *a, void *s, void *r, int rank, MPI_Comm c) {
	const int n = a->n, dt = a->dt, op = a->op, root = a->root, peer = a->peer, bytes = a->bytes;
	switch (a->call) {
	case RB_BARRIER: return MPI_Barrier(c);
	case RB_BCAST: return MPI_Bcast(rank == root ? s : r, n, rb_dt(dt), root, c);
	case RB_REDUCE: return MPI_Reduce(s, r, n, rb_dt(dt), rb_op(op), root, c);
	case RB_ALLREDUCE: return MPI_Allreduce(s, r, n, rb_dt(dt), rb_op(op), c);
	case RB_SCAN: return MPI_Scan(s, r, n, rb_dt(dt), rb_op(op), c);
	case RB_EXSCAN: return MPI_Exscan(s, r, n, rb_dt(dt), rb_op(op), c);
	case RB_GATHER: return MPI_Gather(s, n, rb_dt(dt), r, n, rb_dt(dt), root, c);
	case RB_SCATTER: return MPI_Scatter(s, n, rb_dt(dt), r, n, rb_dt(dt), root, c);
	case RB_ALLGATHER: return MPI_Allgather(s, n, rb_dt(dt), r, n, rb_dt(dt), c);
	case RB_ALLTOALL: return MPI_Alltoall(s, n, rb_dt(dt), r, n, rb_dt(dt), c);
	case RB_REDUCE_SCATTER_BLOCK: return MPI_Reduce_scatter_block(s, r, n, rb_dt(dt), rb_op(op), c);
	case RB_REDUCE_BCAST: case RB_REDUCE_SCATTER_BLOCK_ALLGATHER: case RB_SCATTER_ALLGATHER: // guide
	case RB_GATHER_BCAST: case RB_EXSCAN_REDUCE_LOCAL: case RB_REDUCE_PLUS_SCATTER:
		return rb_guide_call(a, s, r, rank, c);
	case RB_IBARRIER: case RB_IBCAST: case RB_IREDUCE: case RB_IALLREDUCE: case RB_IGATHER: case RB_ISCATTER:
	case RB_IALLGATHER: case RB_IALLTOALL: case RB_IREDUCE_SCATTER_BLOCK: case RB_ISCAN: // nbc
		return rb_nbc_call(a, s, r, rank, c);
	case RB_PINGPONG:
		if (rank == root) {
			int err = MPI_Send(s, bytes, MPI_BYTE, peer, RB_TAG_PINGPONG, c);
			if (err != MPI_SUCCESS) return err;
			return MPI_Recv(r, bytes, MPI_BYTE, peer, RB_TAG_PINGPONG, c, MPI_STATUS_IGNORE);
		} else if (rank == peer) {
			int err = MPI_Recv(r, bytes, MPI_BYTE, root, RB_TAG_PINGPONG, c, MPI_STATUS_IGNORE);
			if (err != MPI_SUCCESS) return err;
			return MPI_Send(s, bytes, MPI_BYTE, root, RB_TAG_PINGPONG, c);
		}
		return MPI_SUCCESS;
	case RB_ALLGATHERV: case RB_ALLTOALLV: case RB_GATHERV: case RB_SCATTERV: case RB_REDUCE_SCATTER:
	case RB_SENDRECV: case RB_NEIGHBOR_ALLTOALL: // vcoll
		return rb_vcoll_call(a, s, r, root, c);
	case RB_BW: case RB_BIBW: case RB_MBW_MR: case RB_PUT: case RB_GET: case RB_ACCUMULATE: // p2p
		return rb_p2p_call(a, s, r, rank, c);
	}
	return MPI_ERR_OTHER;
}

// rb_observe is the critical path of one observation (DESIGN.md): wait
// (barrier or deadline), start timestamp, reps calls, end timestamp, all in
// one C call so that the Go scheduler cannot intervene. With each set, the
// calls are timed one by one with a barrier after each (OSU's collective
// loop) and *end is *start plus the sum of their durations. *start and *end are
// in ticks of the clock (kind, epoch). With the deadline wait, start is the
// first clock reading at or after the deadline: if it exceeds the deadline by
// more than one loop iteration, the observation started late.
static int rb_observe(MPI_Comm c, int rank, int p, const rb_args *a, void *s, void *r, int64_t deadline, int clk,
                      int64_t epoch, int64_t *start, int64_t *end) {
	if (!rb_on_main()) return RB_ERR_THREAD;
	if (a->overlap) return rb_nbc_overlap(c, rank, p, (rb_args *)a, s, r, clk, epoch, start, end); // nbc
	int err = MPI_SUCCESS;
	int64_t t;
	const int sync = a->sync;
	int reps = a->reps;
	switch (sync) {
	case RB_SYNC_BARRIER:
		err = MPI_Barrier(c);
		break;
	case RB_SYNC_DOUBLE_BARRIER:
		err = MPI_Barrier(c);
		if (err == MPI_SUCCESS) err = MPI_Barrier(c);
		break;
	case RB_SYNC_DISSEMINATION:
		err = rb_dissemination_barrier(c, rank, p);
		break;
	}
	if (err != MPI_SUCCESS) return err;
	if (sync == RB_SYNC_DEADLINE) {
		do {
			t = rb_now(clk, epoch);
		} while (t < deadline);
	} else {
		t = rb_now(clk, epoch);
	}
	*start = t;
	if (reps < 1) reps = 1;
	if (a->each) {
		// OSU's loops and IMB's collective ones: each call timed alone, a
		// barrier after it unless the call is a ping-pong or a bw window
		// (mpi.Call.EachBarrier).
		const int barrier = a->call != RB_PINGPONG && a->call != RB_BW && a->call != RB_BIBW && a->call != RB_MBW_MR;
		int64_t sum = 0;
		for (int i = 0; i < reps; i++) {
			int64_t t0 = rb_now(clk, epoch);
			err = rb_call(a, s, r, rank, c);
			int64_t t1 = rb_now(clk, epoch);
			if (err != MPI_SUCCESS) return err;
			sum += t1 - t0;
			err = MPI_Barrier(c);
			if (err != MPI_SUCCESS) return err;
		}
		*end = t + sum;
		return MPI_SUCCESS;
	}
	for (int i = 0; i < reps; i++) {
		err = rb_call(a, s, r, rank, c);
		if (err != MPI_SUCCESS) return err;
	}
	*end = rb_now(clk, epoch);
	return MPI_SUCCESS;
}

// rb_observe_batch runs nobs observations back to back in one C call, the
// i-th waiting for deadlines[i] when sync is the deadline wait (deadlines may
// be NULL otherwise). A Go program that returns to the runtime between
// observations pays for it in the tail: while a cgo call is in progress the
// runtime's monitor thread wakes up every 20 µs, and on a loaded machine
// those wake-ups preempt the measuring thread. *done is the number of
// observations completed, also on error.
//
// Cache control stays in the call too: offs, when not NULL, shifts the
// buffers of observation i by offs[i] bytes, and flush, when not NULL, has
// every 64th of its flush_len bytes written before each observation's
// wait (Observation.Offsets and Flush).
static int rb_observe_batch(MPI_Comm c, int rank, int p, const rb_args *a, void *s, void *r,
                            const int64_t *deadlines, int nobs, int clk, int64_t epoch, int64_t *starts, int64_t *ends,
                            const int64_t *offs, unsigned char *flush, int64_t flush_len, int *done) {
	*done = 0;
	if (!rb_on_main()) return RB_ERR_THREAD;
	for (int i = 0; i < nobs; i++) {
		char *si = (char *)s, *ri = (char *)r;
		if (offs) {
			if (si) si += offs[i];
			if (ri) ri += offs[i];
		}
		if (flush && flush_len > 0) {
			unsigned char v = (unsigned char)(flush[flush_len / 2] + 1);
			for (int64_t j = 0; j < flush_len; j += 64) flush[j] = v;
		}
		int err = rb_observe(c, rank, p, a, si, ri, deadlines ? deadlines[i] : 0, clk, epoch, &starts[i], &ends[i]);
		if (err != MPI_SUCCESS) return err;
		*done = i + 1;
	}
	return MPI_SUCCESS;
}

// rb_pingpong_loop times n 8-byte ping-pongs between ranks 0 and 1 entirely
// in C, writing each round trip in nanoseconds (CLOCK_MONOTONIC) to out on
// rank 0. It is the reference the Go-driven loop is compared against.
static int rb_pingpong_loop(MPI_Comm c, int rank, int n, int bytes, void *buf, int64_t *out) {
	for (int i = 0; i < n; i++) {
		int64_t t0 = rb_now(RB_CLK_MONOTONIC, 0);
		int err;
		if (rank == 0) {
			err = MPI_Send(buf, bytes, MPI_BYTE, 1, RB_TAG_PINGPONG, c);
			if (err == MPI_SUCCESS) err = MPI_Recv(buf, bytes, MPI_BYTE, 1, RB_TAG_PINGPONG, c, MPI_STATUS_IGNORE);
		} else if (rank == 1) {
			err = MPI_Recv(buf, bytes, MPI_BYTE, 0, RB_TAG_PINGPONG, c, MPI_STATUS_IGNORE);
			if (err == MPI_SUCCESS) err = MPI_Send(buf, bytes, MPI_BYTE, 0, RB_TAG_PINGPONG, c);
		} else {
			err = MPI_SUCCESS;
		}
		if (err != MPI_SUCCESS) return err;
		out[i] = rb_now(RB_CLK_MONOTONIC, 0) - t0;
	}
	return MPI_SUCCESS;
}

static void rb_empty(void) {}

#endif
