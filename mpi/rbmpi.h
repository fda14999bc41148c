// rbmpi.h: the C side of reprobench's MPI binding.
//
// Everything here is static and included by the Go files of the binding.
// Handles and constants that are macros in some MPI libraries (Open MPI
// defines MPI_COMM_WORLD as the address of a global) are wrapped in functions
// so that cgo never has to evaluate them. Every wrapper returns the MPI error
// code; communicators have MPI_ERRORS_RETURN installed, so errors come back
// here instead of aborting the job.
//
// The shared types live in rbmpi_types.h, the clocks and waits in
// rbmpi_sync.h, each family's C entries in rbmpi_<family>.h; this header
// includes them all and dispatches to the entries through RB_OPS, the
// operation table of package mpi as rbmpi_ops.h spells it.
#ifndef RBMPI_H
#define RBMPI_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rbmpi_types.h"
#include "rbmpi_sync.h"
#include "rbmpi_coll.h"
#include "rbmpi_vcoll.h"
#include "rbmpi_guide.h"
#include "rbmpi_nbc.h"
#include "rbmpi_p2p.h"
#include "rbmpi_mpit.h"

static MPI_Comm rb_comm_world(void) { return MPI_COMM_WORLD; }
static MPI_Comm rb_comm_null(void) { return MPI_COMM_NULL; }
static int rb_is_null(MPI_Comm c) { return c == MPI_COMM_NULL; }

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

// rb_call executes one call of the operation a describes, with the send
// buffer s and the receive buffer r: a switch over RB_OPS that hands it to
// the row's C entry (a phased one in its call phase). The entries are
// static inline, so each case compiles to the MPI call itself.
#define RB_ENTRY_0(entry) entry(a, s, r, rank, c)
#define RB_ENTRY_1(entry) entry((rb_args *)a, s, r, rank, c, RB_PHASE_CALL)
static int rb_call(const rb_args *a, void *s, void *r, int rank, MPI_Comm c) {
	switch (a->call) {
#define RB_CALL_CASE(id, entry, phased) \
	case id: return RB_ENTRY_##phased(entry);
		RB_OPS(RB_CALL_CASE)
#undef RB_CALL_CASE
	}
	return MPI_ERR_OTHER;
}

// rb_phase runs phase of call's entry when it is phased (RB_PREP_1), and
// does nothing for the others.
#define RB_PREP_0(entry) MPI_SUCCESS
#define RB_PREP_1(entry) entry(a, s, r, rank, c, phase)
static int rb_phase(int call, rb_args *a, void *s, void *r, int rank, MPI_Comm c, int phase) {
	switch (call) {
#define RB_PREP_CASE(id, entry, phased) \
	case id: return RB_PREP_##phased(entry);
		RB_OPS(RB_PREP_CASE)
#undef RB_PREP_CASE
	}
	return MPI_ERR_OTHER;
}

// rb_prepare runs, outside the timed part, the prepare phase
// (RB_PHASE_PREPARE) of the entry of a's call — mpi.Prepare — or the release
// phase (RB_PHASE_RELEASE) of the entry whose prepare last succeeded — its
// release. A prepare that fails is released at once (what it made is
// freed). Collective when the entry's phase is.
static int rb_prepare(rb_args *a, void *s, void *r, int rank, MPI_Comm c, int phase) {
	if (!rb_on_main()) return RB_ERR_THREAD;
	if (phase == RB_PHASE_RELEASE) {
		if (!a->prepared) return MPI_SUCCESS;
		a->prepared = 0;
		return rb_phase(a->prepared_call, a, s, r, rank, c, RB_PHASE_RELEASE);
	}
	a->bound_s = (uintptr_t)s;
	a->bound_r = (uintptr_t)r;
	int err = rb_phase(a->call, a, s, r, rank, c, RB_PHASE_PREPARE);
	if (err != MPI_SUCCESS) {
		rb_phase(a->call, a, s, r, rank, c, RB_PHASE_RELEASE);
		return err;
	}
	a->prepared = 1;
	a->prepared_call = a->call;
	return MPI_SUCCESS;
}

// rb_call_once runs one call of a without timestamps (the Go path of
// observations whose clock C cannot read, for the calls Go cannot
// express).
static int rb_call_once(const rb_args *a, void *s, void *r, int rank, MPI_Comm c) {
	if (!rb_on_main()) return RB_ERR_THREAD;
	return rb_call(a, s, r, rank, c);
}

// rb_observe is the critical path of one observation (DESIGN.md): wait
// (barrier or deadline), start timestamp, reps calls (none when reps < 1), end timestamp, all in
// one C call so that the Go scheduler cannot intervene. With each set, the
// calls are timed one by one with a barrier after each (OSU's collective
// loop) and *end is *start plus the sum of their durations. *start and *end are
// in ticks of the clock (kind, epoch). With the deadline wait, start is the
// first clock reading at or after the deadline: if it exceeds the deadline by
// more than one loop iteration, the observation started late. A nonzero
// buf_offset level (factor.BufOffset) is checked against the buffers'
// addresses modulo 64 before the wait (RB_ERR_OFFSET), as the simulator
// checks it; level 0 is not checked (a program's own buffers).
static int rb_observe(MPI_Comm c, int rank, int p, const rb_args *a, void *s, void *r, int64_t deadline, int clk,
                      int64_t epoch, int64_t *start, int64_t *end) {
	if (!rb_on_main()) return RB_ERR_THREAD;
	const int64_t off = a->params[RB_F_BUF_OFFSET] % 64;
	if (off && ((s && (int64_t)((uintptr_t)s % 64) != off) || (r && (int64_t)((uintptr_t)r % 64) != off))) return RB_ERR_OFFSET;
	if (a->overlap) return rb_nbc_overlap(c, rank, p, (rb_args *)a, s, r, clk, epoch, start, end); // nbc
	int err = MPI_SUCCESS;
	int64_t t;
	const int sync = a->sync;
	int reps = a->reps;
	((rb_args *)a)->rot = 0; // root_shift counts this observation's calls (rb_call_root)
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
	if (reps < 1) {
		// Observation.NoCall (Go passes reps ≥ 1 otherwise): the wait and
		// the two timestamps only.
		*end = rb_now(clk, epoch);
		return MPI_SUCCESS;
	}
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
			if (barrier) {
				err = MPI_Barrier(c);
				if (err != MPI_SUCCESS) return err;
			}
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
