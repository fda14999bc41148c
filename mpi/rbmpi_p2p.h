// rbmpi_p2p.h: bandwidth (bw, bibw, mbw_mr) and one-sided (MPI_Put, MPI_Get,
// MPI_Accumulate) calls of the binding, issue #17 parts 3 and 4: rb_p2p_op
// is the phased C entry of every row of mpi.FamilyP2P. mpi/p2p.go
// documents the semantics, docs/data-format.md the exact definitions.
#ifndef RBMPI_P2P_H
#define RBMPI_P2P_H

#include <stdlib.h>
#include <string.h>

#include "rbmpi_types.h"

// Must match mpi.RMASync.
enum { RB_RMA_FENCE, RB_RMA_LOCK, RB_RMA_FLUSH };

#define RB_TAG_BW (RB_TAG_INTERNAL + 16)
#define RB_TAG_BW_ACK (RB_TAG_INTERNAL + 17)

static char rb_bw_ack;

// MPICH defines MPI_STATUSES_IGNORE as (MPI_Status *)1, which GCC mistakes
// for a zero-sized status array passed to MPI_Waitall.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wstringop-overflow"

// rb_bw_pair is one osu_bw window between sender and receiver: the sender
// posts w MPI_Isend of the same buffer, waits for all of them and receives a
// zero-byte acknowledgement; the receiver posts w MPI_Irecv into the same
// buffer, waits for all of them and sends the acknowledgement.
static int rb_bw_pair(const rb_args *a, void *s, void *r, int sender, int partner, MPI_Comm c) {
	const int w = a->bw_window, b = a->bytes;
	MPI_Request *q = a->reqs;
	int err;
	if (sender) {
		for (int j = 0; j < w; j++) {
			err = MPI_Isend(s, b, MPI_BYTE, partner, RB_TAG_BW, c, &q[j]);
			if (err != MPI_SUCCESS) return err;
		}
		err = MPI_Waitall(w, q, MPI_STATUSES_IGNORE);
		if (err != MPI_SUCCESS) return err;
		return MPI_Recv(&rb_bw_ack, 0, MPI_BYTE, partner, RB_TAG_BW_ACK, c, MPI_STATUS_IGNORE);
	}
	for (int j = 0; j < w; j++) {
		err = MPI_Irecv(r, b, MPI_BYTE, partner, RB_TAG_BW, c, &q[j]);
		if (err != MPI_SUCCESS) return err;
	}
	err = MPI_Waitall(w, q, MPI_STATUSES_IGNORE);
	if (err != MPI_SUCCESS) return err;
	return MPI_Send(&rb_bw_ack, 0, MPI_BYTE, partner, RB_TAG_BW_ACK, c);
}

// rb_bibw is one osu_bibw window on one of the two ranks: w MPI_Irecv, w
// MPI_Isend to the other rank, then MPI_Waitall of the sends and of the
// receives.
static int rb_bibw(const rb_args *a, void *s, void *r, int other, MPI_Comm c) {
	const int w = a->bw_window, b = a->bytes;
	MPI_Request *q = a->reqs; // q[0..w) sends, q[w..2w) receives
	int err;
	for (int j = 0; j < w; j++) {
		err = MPI_Irecv(r, b, MPI_BYTE, other, RB_TAG_BW, c, &q[w + j]);
		if (err != MPI_SUCCESS) return err;
	}
	for (int j = 0; j < w; j++) {
		err = MPI_Isend(s, b, MPI_BYTE, other, RB_TAG_BW, c, &q[j]);
		if (err != MPI_SUCCESS) return err;
	}
	err = MPI_Waitall(w, q, MPI_STATUSES_IGNORE);
	if (err != MPI_SUCCESS) return err;
	return MPI_Waitall(w, q + w, MPI_STATUSES_IGNORE);
}

// rb_rma_op issues the one-sided operation of a from the origin to
// displacement 0 of target's window.
static int rb_rma_op(const rb_args *a, void *s, void *r, int target) {
	const MPI_Datatype t = rb_dt(a->dt);
	switch (a->call) {
	case RB_PUT: return MPI_Put(s, a->n, t, target, 0, a->n, t, a->win);
	case RB_GET: return MPI_Get(r, a->n, t, target, 0, a->n, t, a->win);
	case RB_ACCUMULATE: return MPI_Accumulate(s, a->n, t, target, 0, a->n, t, rb_op(a->op), a->win);
	}
	return MPI_ERR_OTHER;
}

// rb_p2p_call is rb_call for the calls of this file.
static int rb_p2p_call(const rb_args *a, void *s, void *r, int rank, MPI_Comm c) {
	const int root = a->root, peer = a->peer;
	int err;
	switch (a->call) {
	case RB_BW:
	case RB_BIBW:
	case RB_MBW_MR:
		if (a->reqs == NULL || a->nreqs < 2 * a->bw_window) return RB_ERR_UNPREPARED;
		if (a->call == RB_MBW_MR) {
			const int half = a->size / 2;
			return rank < half ? rb_bw_pair(a, s, r, 1, rank + half, c) : rb_bw_pair(a, s, r, 0, rank - half, c);
		}
		if (rank != root && rank != peer) return MPI_SUCCESS;
		if (a->call == RB_BIBW) return rb_bibw(a, s, r, rank == root ? peer : root, c);
		return rb_bw_pair(a, s, r, rank == root, rank == root ? peer : root, c);
	case RB_PUT:
	case RB_GET:
	case RB_ACCUMULATE:
		if (!a->has_win) return RB_ERR_UNPREPARED;
		switch (a->rma_sync) {
		case RB_RMA_FENCE:
			err = MPI_Win_fence(0, a->win);
			if (err == MPI_SUCCESS && rank == root) err = rb_rma_op(a, s, r, peer);
			if (err != MPI_SUCCESS) return err;
			return MPI_Win_fence(0, a->win);
		case RB_RMA_LOCK:
			if (rank != root) return MPI_SUCCESS;
			err = MPI_Win_lock(MPI_LOCK_SHARED, peer, 0, a->win);
			if (err == MPI_SUCCESS) err = rb_rma_op(a, s, r, peer);
			if (err != MPI_SUCCESS) return err;
			return MPI_Win_unlock(peer, a->win);
		case RB_RMA_FLUSH:
			if (rank != root) return MPI_SUCCESS;
			err = rb_rma_op(a, s, r, peer);
			if (err != MPI_SUCCESS) return err;
			return MPI_Win_flush(peer, a->win);
		}
	}
	return MPI_ERR_OTHER;
}

// rb_p2p_prepare creates what the call of a needs, outside the timed part:
// nreqs requests, and, with win_bytes >= 0, an MPI window of win_bytes bytes
// per rank (MPI_Win_allocate, zeroed, MPI_ERRORS_RETURN), locked with
// MPI_Win_lock_all when a->rma_sync is RB_RMA_FLUSH. Collective when it
// creates a window.
static int rb_p2p_prepare(rb_args *a, MPI_Comm c, int nreqs, int64_t win_bytes) {
	if (nreqs > 0) {
		a->reqs = (MPI_Request *)calloc((size_t)nreqs, sizeof(MPI_Request));
		if (a->reqs == NULL) return MPI_ERR_NO_MEM;
		for (int i = 0; i < nreqs; i++) a->reqs[i] = MPI_REQUEST_NULL;
		a->nreqs = nreqs;
	}
	if (win_bytes < 0) return MPI_SUCCESS;
	void *base = NULL;
	int err = MPI_Win_allocate((MPI_Aint)win_bytes, 1, MPI_INFO_NULL, c, &base, &a->win);
	if (err != MPI_SUCCESS) return err;
	a->has_win = 1;
	a->win_base = base;
	a->win_bytes = win_bytes;
	err = MPI_Win_set_errhandler(a->win, MPI_ERRORS_RETURN);
	if (err != MPI_SUCCESS) return err;
	if (win_bytes > 0) memset(base, 0, (size_t)win_bytes);
	// No origin may reach this rank's window before it is zeroed.
	err = MPI_Barrier(c);
	if (err != MPI_SUCCESS) return err;
	if (a->rma_sync == RB_RMA_FLUSH) {
		err = MPI_Win_lock_all(0, a->win);
		if (err != MPI_SUCCESS) return err;
		a->locked_all = 1;
	}
	return MPI_SUCCESS;
}

// rb_p2p_release frees what rb_p2p_prepare created (collective when there
// is a window). The first error is returned; everything is freed anyway.
static int rb_p2p_release(rb_args *a) {
	int err = MPI_SUCCESS, e;
	if (a->has_win) {
		if (a->locked_all) {
			e = MPI_Win_unlock_all(a->win);
			if (err == MPI_SUCCESS) err = e;
			a->locked_all = 0;
		}
		e = MPI_Win_free(&a->win);
		if (err == MPI_SUCCESS) err = e;
		a->has_win = 0;
		a->win_base = NULL;
		a->win_bytes = 0;
	}
	free(a->reqs);
	a->reqs = NULL;
	a->nreqs = 0;
	return err;
}

// rb_p2p_op is the phased C entry of the p2p rows: one call; or, before
// the timed part, the request array of 2·bw_window requests (bandwidth) or
// the window of one message per rank (one-sided); or their release.
static int rb_p2p_op(rb_args *a, void *s, void *r, int rank, MPI_Comm c, int phase) {
	switch (phase) {
	case RB_PHASE_PREPARE:
		if (a->call == RB_BW || a->call == RB_BIBW || a->call == RB_MBW_MR)
			return rb_p2p_prepare(a, c, 2 * a->bw_window, -1);
		return rb_p2p_prepare(a, c, 0, (int64_t)a->bytes);
	case RB_PHASE_RELEASE:
		return rb_p2p_release(a);
	}
	return rb_p2p_call(a, s, r, rank, c);
}

#pragma GCC diagnostic pop

#endif
