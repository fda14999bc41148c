// rbmpi_coll.h: the C entries of the coll family (mpi.FamilyColl): the
// blocking collectives and the ping-pong, one MPI call (or two messages)
// each. Every entry is an rb_entry (rbmpi_types.h); mpi/coll.go holds the
// same calls in Go, their reference semantics.
#ifndef RBMPI_COLL_H
#define RBMPI_COLL_H

#include <stdlib.h>

#include "rbmpi_types.h"

static inline int rb_barrier_call(const rb_args *a, void *s, void *r, int rank, MPI_Comm c) {
	return MPI_Barrier(c);
}

// The root broadcasts from its send buffer, every other rank receives into
// its receive buffer. The rooted entries take their root from
// rb_call_root (root_shift).
static inline int rb_bcast_call(const rb_args *a, void *s, void *r, int rank, MPI_Comm c) {
	const int root = rb_call_root(a);
	return MPI_Bcast(rank == root ? s : r, a->n, rb_dt(a->dt), root, c);
}

// in_place (factor.InPlace, OSU's -l): the calls that take it pass
// MPI_IN_PLACE where the standard allows it, the input then being what the
// receive buffer holds (mpi.InPlaceInput says where): the root's of
// MPI_Gather, every rank's of MPI_Allreduce, MPI_Allgather and
// MPI_Alltoall; the root of MPI_Scatter keeps its block in place.
// MPI_Reduce's row does not take it (MPICH 4.0.2 crashed on an in-place
// MPI_Reduce at root 1 of 2), so its branch here is not reached.
#define RB_IN_PLACE(a) ((a)->params[RB_F_IN_PLACE] != 0)

static inline int rb_reduce_call(const rb_args *a, void *s, void *r, int rank, MPI_Comm c) {
	const int root = rb_call_root(a);
	const void *in = RB_IN_PLACE(a) && rank == root ? MPI_IN_PLACE : s;
	return MPI_Reduce(in, r, a->n, rb_dt(a->dt), rb_op(a->op), root, c);
}

static inline int rb_allreduce_call(const rb_args *a, void *s, void *r, int rank, MPI_Comm c) {
	return MPI_Allreduce(RB_IN_PLACE(a) ? MPI_IN_PLACE : s, r, a->n, rb_dt(a->dt), rb_op(a->op), c);
}

static inline int rb_scan_call(const rb_args *a, void *s, void *r, int rank, MPI_Comm c) {
	return MPI_Scan(s, r, a->n, rb_dt(a->dt), rb_op(a->op), c);
}

static inline int rb_exscan_call(const rb_args *a, void *s, void *r, int rank, MPI_Comm c) {
	return MPI_Exscan(s, r, a->n, rb_dt(a->dt), rb_op(a->op), c);
}

static inline int rb_gather_call(const rb_args *a, void *s, void *r, int rank, MPI_Comm c) {
	const int root = rb_call_root(a);
	if (RB_IN_PLACE(a) && rank == root)
		return MPI_Gather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, r, a->n, rb_dt(a->dt), root, c);
	return MPI_Gather(s, a->n, rb_dt(a->dt), r, a->n, rb_dt(a->dt), root, c);
}

static inline int rb_scatter_call(const rb_args *a, void *s, void *r, int rank, MPI_Comm c) {
	const int root = rb_call_root(a);
	if (RB_IN_PLACE(a) && rank == root)
		return MPI_Scatter(s, a->n, rb_dt(a->dt), MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, root, c);
	return MPI_Scatter(s, a->n, rb_dt(a->dt), r, a->n, rb_dt(a->dt), root, c);
}

static inline int rb_allgather_call(const rb_args *a, void *s, void *r, int rank, MPI_Comm c) {
	if (RB_IN_PLACE(a)) return MPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, r, a->n, rb_dt(a->dt), c);
	return MPI_Allgather(s, a->n, rb_dt(a->dt), r, a->n, rb_dt(a->dt), c);
}

static inline int rb_alltoall_call(const rb_args *a, void *s, void *r, int rank, MPI_Comm c) {
	if (RB_IN_PLACE(a)) return MPI_Alltoall(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, r, a->n, rb_dt(a->dt), c);
	return MPI_Alltoall(s, a->n, rb_dt(a->dt), r, a->n, rb_dt(a->dt), c);
}

static inline int rb_reduce_scatter_block_call(const rb_args *a, void *s, void *r, int rank, MPI_Comm c) {
	return MPI_Reduce_scatter_block(s, r, a->n, rb_dt(a->dt), rb_op(a->op), c);
}

// The ping-pong: root sends its bytes to peer and receives peer's; the
// other ranks do nothing.
static inline int rb_pingpong_call(const rb_args *a, void *s, void *r, int rank, MPI_Comm c) {
	const int bytes = a->bytes, root = a->root, peer = a->peer;
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
}

// rb_allreduce_init is the persistent MPI_Allreduce (MPI-4.0 §6.12): its
// prepare phase makes the request from the buffers mpi.Prepare was given
// (MPI_Allreduce_init; Open MPI 4.1, an MPI-3.1 library, offers it as
// MPIX_Allreduce_init in its pcollreq extension), each call starts it and
// waits for it, and the release frees it. A library with neither refuses
// at prepare, before any observation (RB_ERR_UNSUPPORTED; building with
// -DRB_NO_PERSISTENT refuses as such a library does). The request keeps
// the buffers' addresses, so a call on others is refused (RB_ERR_MOVED).
#if defined(OPEN_MPI) && OPEN_MPI && !defined(RB_NO_PERSISTENT)
#include <mpi-ext.h>
#endif
static inline int rb_allreduce_init(rb_args *a, void *s, void *r, int rank, MPI_Comm c, int phase) {
	int err = MPI_SUCCESS;
	switch (phase) {
	case RB_PHASE_PREPARE:
		a->reqs = (MPI_Request *)calloc(1, sizeof(MPI_Request));
		if (a->reqs == NULL) return MPI_ERR_NO_MEM;
		a->reqs[0] = MPI_REQUEST_NULL;
		a->nreqs = 1;
#if defined(RB_NO_PERSISTENT)
		return RB_ERR_UNSUPPORTED;
#elif MPI_VERSION >= 4
		return MPI_Allreduce_init(s, r, a->n, rb_dt(a->dt), rb_op(a->op), c, MPI_INFO_NULL, &a->reqs[0]);
#elif defined(OMPI_HAVE_MPI_EXT_PCOLLREQ)
		return MPIX_Allreduce_init(s, r, a->n, rb_dt(a->dt), rb_op(a->op), c, MPI_INFO_NULL, &a->reqs[0]);
#else
		return RB_ERR_UNSUPPORTED;
#endif
	case RB_PHASE_RELEASE:
		if (a->reqs != NULL && a->reqs[0] != MPI_REQUEST_NULL) err = MPI_Request_free(&a->reqs[0]);
		free(a->reqs);
		a->reqs = NULL;
		a->nreqs = 0;
		return err;
	}
	if (!a->prepared || a->prepared_call != a->call || a->reqs == NULL) return RB_ERR_UNPREPARED;
	if ((uintptr_t)s != a->bound_s || (uintptr_t)r != a->bound_r) return RB_ERR_MOVED;
	err = MPI_Start(&a->reqs[0]);
	if (err != MPI_SUCCESS) return err;
	return MPI_Wait(&a->reqs[0], MPI_STATUS_IGNORE);
}

#endif
