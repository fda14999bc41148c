// rbmpi_vcoll.h: the v-collectives, MPI_Reduce_scatter, the MPI_Sendrecv
// ring and MPI_Neighbor_alltoall (mpi.FamilyVColl; rb_vcoll_call is the C
// entry of each). Every count and displacement vector is built before the
// timed part (vcoll_binding.go), so one call here is one MPI call.
#ifndef RBMPI_VCOLL_H
#define RBMPI_VCOLL_H

#include "rbmpi_types.h"

// RB_TAG_RING is the tag of the MPI_Sendrecv ring.
#define RB_TAG_RING (RB_TAG_INTERNAL + 16)

// rb_vcoll_call executes one call of a vcoll operation; a's vc_ fields
// must describe it (vc_ready), which the Go side guarantees before every
// observation. The rooted ones take their root from rb_call_root
// (root_shift).
static inline int rb_vcoll_call(const rb_args *a, void *s, void *r, int rank, MPI_Comm c) {
	if (!a->vc_ready) return MPI_ERR_OTHER;
	const MPI_Datatype dt = rb_dt(a->dt);
	switch (a->call) {
	case RB_ALLGATHERV: return MPI_Allgatherv(s, a->vc_scount, dt, r, a->vc_rc, a->vc_rd, dt, c);
	case RB_ALLTOALLV: return MPI_Alltoallv(s, a->vc_sc, a->vc_sd, dt, r, a->vc_rc, a->vc_rd, dt, c);
	case RB_GATHERV: return MPI_Gatherv(s, a->vc_scount, dt, r, a->vc_rc, a->vc_rd, dt, rb_call_root(a), c);
	case RB_SCATTERV: return MPI_Scatterv(s, a->vc_sc, a->vc_sd, dt, r, a->vc_rcount, dt, rb_call_root(a), c);
	case RB_REDUCE_SCATTER: return MPI_Reduce_scatter(s, r, a->vc_rc, dt, rb_op(a->op), c);
	case RB_SENDRECV:
		return MPI_Sendrecv(s, a->n, dt, a->vc_next, RB_TAG_RING, r, a->n, dt, a->vc_prev, RB_TAG_RING, c,
		                    MPI_STATUS_IGNORE);
	case RB_NEIGHBOR_ALLTOALL: return MPI_Neighbor_alltoall(s, a->n, dt, r, a->n, dt, a->vc_cart);
	}
	return MPI_ERR_OTHER;
}

// rb_vcoll_cart creates the periodic 2-D Cartesian communicator of
// MPI_Neighbor_alltoall: MPI_Dims_create(p, 2), both dimensions periodic,
// no reordering (ranks keep their numbers).
static int rb_vcoll_cart(MPI_Comm c, int p, int *dims, MPI_Comm *out) {
	int periods[2] = {1, 1};
	dims[0] = dims[1] = 0;
	int err = MPI_Dims_create(p, 2, dims);
	if (err != MPI_SUCCESS) return err;
	err = MPI_Cart_create(c, 2, dims, periods, 0, out);
	if (err == MPI_SUCCESS && *out != MPI_COMM_NULL) err = MPI_Comm_set_errhandler(*out, MPI_ERRORS_RETURN);
	return err;
}

static int rb_vcoll_cart_free(MPI_Comm *c) { return MPI_Comm_free(c); }

#endif
