// Code generated from the operation table of mpi/ops.go; DO NOT EDIT.
// Regenerate with: go test -tags nompi ./mpi -run TestOpsHeader -update-ops-header
//
// RB_OPS(X) is the table as C sees it, one X(ID, ENTRY, PHASED) per
// operation in the order of mpi.Call: ID its call number's name
// (mpi.Op.CEnum), ENTRY its C entry (mpi.Op.C), PHASED 1 when the entry
// takes a phase (mpi.Op.Phased). rb_call and rb_prepare (rbmpi.h) expand
// it into their switches. Included by rbmpi_types.h; includes nothing.
#ifndef RBMPI_OPS_H
#define RBMPI_OPS_H

#define RB_OPS(X) \
	X(RB_BARRIER, rb_barrier_call, 0) \
	X(RB_BCAST, rb_bcast_call, 0) \
	X(RB_REDUCE, rb_reduce_call, 0) \
	X(RB_ALLREDUCE, rb_allreduce_call, 0) \
	X(RB_SCAN, rb_scan_call, 0) \
	X(RB_EXSCAN, rb_exscan_call, 0) \
	X(RB_GATHER, rb_gather_call, 0) \
	X(RB_SCATTER, rb_scatter_call, 0) \
	X(RB_ALLGATHER, rb_allgather_call, 0) \
	X(RB_ALLTOALL, rb_alltoall_call, 0) \
	X(RB_REDUCE_SCATTER_BLOCK, rb_reduce_scatter_block_call, 0) \
	X(RB_PINGPONG, rb_pingpong_call, 0) \
	X(RB_ALLGATHERV, rb_vcoll_call, 0) \
	X(RB_ALLTOALLV, rb_vcoll_call, 0) \
	X(RB_GATHERV, rb_vcoll_call, 0) \
	X(RB_SCATTERV, rb_vcoll_call, 0) \
	X(RB_REDUCE_SCATTER, rb_vcoll_call, 0) \
	X(RB_SENDRECV, rb_vcoll_call, 0) \
	X(RB_NEIGHBOR_ALLTOALL, rb_vcoll_call, 0) \
	X(RB_REDUCE_PLUS_BCAST, rb_guide_call, 0) \
	X(RB_REDUCE_SCATTER_BLOCK_PLUS_ALLGATHER, rb_guide_call, 0) \
	X(RB_SCATTER_PLUS_ALLGATHER, rb_guide_call, 0) \
	X(RB_GATHER_PLUS_BCAST, rb_guide_call, 0) \
	X(RB_EXSCAN_PLUS_REDUCE_LOCAL, rb_guide_call, 0) \
	X(RB_REDUCE_PLUS_SCATTER, rb_guide_call, 0) \
	X(RB_IBARRIER, rb_nbc_call, 0) \
	X(RB_IBCAST, rb_nbc_call, 0) \
	X(RB_IREDUCE, rb_nbc_call, 0) \
	X(RB_IALLREDUCE, rb_nbc_call, 0) \
	X(RB_IGATHER, rb_nbc_call, 0) \
	X(RB_ISCATTER, rb_nbc_call, 0) \
	X(RB_IALLGATHER, rb_nbc_call, 0) \
	X(RB_IALLTOALL, rb_nbc_call, 0) \
	X(RB_IREDUCE_SCATTER_BLOCK, rb_nbc_call, 0) \
	X(RB_ISCAN, rb_nbc_call, 0) \
	X(RB_BW, rb_p2p_op, 1) \
	X(RB_BIBW, rb_p2p_op, 1) \
	X(RB_MBW_MR, rb_p2p_op, 1) \
	X(RB_PUT, rb_p2p_op, 1) \
	X(RB_GET, rb_p2p_op, 1) \
	X(RB_ACCUMULATE, rb_p2p_op, 1) \
	X(RB_ALLREDUCE_INIT, rb_allreduce_init, 1)

// The call numbers, mpi.Call's.
enum {
#define RB_OPS_ENUM(id, entry, phased) id,
	RB_OPS(RB_OPS_ENUM)
#undef RB_OPS_ENUM
	RB_NUM_CALLS
};

// The slots of rb_args.params: the factor table's rows in the order of
// factor.ID (factor.Factor.CName).
enum {
	RB_F_PROCSYNC,
	RB_F_WINDOW_S,
	RB_F_RUNTIME_TYPE,
	RB_F_CACHE,
	RB_F_CLOCKSYNC,
	RB_F_SKEW,
	RB_F_NOISE_GUARD,
	RB_F_BW_WINDOW,
	RB_F_RMA_SYNC,
	RB_F_IN_PLACE,
	RB_F_ROOT_SHIFT,
	RB_F_BUF_OFFSET,
	RB_F_ALGORITHM,
	RB_NUM_FACTORS
};

// RB_OPS_HASH is mpi.OpsHash() of the tables this file was written from;
// the binding refuses to start when the Go table says otherwise.
#define RB_OPS_HASH 0x727c62e5u

#endif
