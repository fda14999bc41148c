// rbmpi_guide.h: the mock-ups of the performance guidelines (issue #18),
// the C entry of every row of mpi.FamilyGuide. Each executes the
// right-hand side of a guideline as one call of the critical path, so that
// rb_observe times the composition as a whole. mpi/guide.go documents the
// buffers and where each result lands; ExecuteGuide there is the reference
// in Go.
#ifndef RBMPI_GUIDE_H
#define RBMPI_GUIDE_H

#include <string.h>

#include "rbmpi_types.h"

static int rb_guide_call(const rb_args *a, void *s, void *r, int rank, MPI_Comm c) {
	const int n = a->n, root = a->root, p = a->size, es = rb_dt_size(a->dt);
	const MPI_Datatype dt = rb_dt(a->dt);
	const MPI_Op op = rb_op(a->op);
	const int m = p > 0 ? (n + p - 1) / p : n; // block of the split mock-ups
	char *rc = (char *)r;
	int err;
	switch (a->call) {
	case RB_REDUCE_PLUS_BCAST: // Allreduce(n) <= Reduce(n) + Bcast(n)
		err = MPI_Reduce(s, r, n, dt, op, root, c);
		if (err != MPI_SUCCESS) return err;
		return MPI_Bcast(r, n, dt, root, c);
	case RB_REDUCE_SCATTER_BLOCK_PLUS_ALLGATHER: // Allreduce(n) <= Reduce_scatter_block(n/p) + Allgather(n/p)
		err = MPI_Reduce_scatter_block(s, rc + (size_t)rank * m * es, m, dt, op, c);
		if (err != MPI_SUCCESS) return err;
		return MPI_Allgather(MPI_IN_PLACE, 0, dt, r, m, dt, c);
	case RB_SCATTER_PLUS_ALLGATHER: // Bcast(n) <= Scatter(n/p) + Allgather(n/p)
		err = MPI_Scatter(s, m, dt, rc + (size_t)rank * m * es, m, dt, root, c);
		if (err != MPI_SUCCESS) return err;
		return MPI_Allgather(MPI_IN_PLACE, 0, dt, r, m, dt, c);
	case RB_GATHER_PLUS_BCAST: // Allgather(n) <= Gather(n) + Bcast(p·n)
		err = MPI_Gather(s, n, dt, r, n, dt, root, c);
		if (err != MPI_SUCCESS) return err;
		return MPI_Bcast(r, n * p, dt, root, c);
	case RB_EXSCAN_PLUS_REDUCE_LOCAL: // Scan(n) <= Exscan(n) + a local reduction
		err = MPI_Exscan(s, r, n, dt, op, c);
		if (err != MPI_SUCCESS) return err;
		if (rank == 0) {
			if (n > 0) memcpy(r, s, (size_t)n * es);
			return MPI_SUCCESS;
		}
		return MPI_Reduce_local(s, r, n, dt, op);
	case RB_REDUCE_PLUS_SCATTER: // Reduce_scatter_block(n) <= Reduce(p·n) + Scatter(n)
		err = MPI_Reduce(s, r, n * p, dt, op, root, c);
		if (err != MPI_SUCCESS) return err;
		err = MPI_Scatter(r, n, dt, rank == root ? MPI_IN_PLACE : r, n, dt, root, c);
		if (err != MPI_SUCCESS) return err;
		if (rank == root && root != 0 && n > 0) memmove(r, rc + (size_t)root * n * es, (size_t)n * es);
		return MPI_SUCCESS;
	}
	return MPI_ERR_OTHER;
}

#endif
