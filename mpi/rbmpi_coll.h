// rbmpi_coll.h: the C entries of the coll family (mpi.FamilyColl): the
// blocking collectives and the ping-pong, one MPI call (or two messages)
// each. Every entry is an rb_entry (rbmpi_types.h); mpi/coll.go holds the
// same calls in Go, their reference semantics.
#ifndef RBMPI_COLL_H
#define RBMPI_COLL_H

#include "rbmpi_types.h"

static inline int rb_barrier_call(const rb_args *a, void *s, void *r, int rank, MPI_Comm c) {
	return MPI_Barrier(c);
}

// The root broadcasts from its send buffer, every other rank receives into
// its receive buffer.
static inline int rb_bcast_call(const rb_args *a, void *s, void *r, int rank, MPI_Comm c) {
	return MPI_Bcast(rank == a->root ? s : r, a->n, rb_dt(a->dt), a->root, c);
}

static inline int rb_reduce_call(const rb_args *a, void *s, void *r, int rank, MPI_Comm c) {
	return MPI_Reduce(s, r, a->n, rb_dt(a->dt), rb_op(a->op), a->root, c);
}

static inline int rb_allreduce_call(const rb_args *a, void *s, void *r, int rank, MPI_Comm c) {
	return MPI_Allreduce(s, r, a->n, rb_dt(a->dt), rb_op(a->op), c);
}

static inline int rb_scan_call(const rb_args *a, void *s, void *r, int rank, MPI_Comm c) {
	return MPI_Scan(s, r, a->n, rb_dt(a->dt), rb_op(a->op), c);
}

static inline int rb_exscan_call(const rb_args *a, void *s, void *r, int rank, MPI_Comm c) {
	return MPI_Exscan(s, r, a->n, rb_dt(a->dt), rb_op(a->op), c);
}

static inline int rb_gather_call(const rb_args *a, void *s, void *r, int rank, MPI_Comm c) {
	return MPI_Gather(s, a->n, rb_dt(a->dt), r, a->n, rb_dt(a->dt), a->root, c);
}

static inline int rb_scatter_call(const rb_args *a, void *s, void *r, int rank, MPI_Comm c) {
	return MPI_Scatter(s, a->n, rb_dt(a->dt), r, a->n, rb_dt(a->dt), a->root, c);
}

static inline int rb_allgather_call(const rb_args *a, void *s, void *r, int rank, MPI_Comm c) {
	return MPI_Allgather(s, a->n, rb_dt(a->dt), r, a->n, rb_dt(a->dt), c);
}

static inline int rb_alltoall_call(const rb_args *a, void *s, void *r, int rank, MPI_Comm c) {
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

#endif
