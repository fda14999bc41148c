/*
 * rbregion.h: reprobench's region recorder for C programs (and, through
 * fortran/rbregion.f90, Fortran programs) that initialize MPI themselves.
 *
 * Set-up and teardown are one call each, collective over the communicator:
 *
 *   MPI_Init(&argc, &argv);
 *   if (rbr_start(MPI_COMM_WORLD, "out") != 0) { puts(rbr_error()); ... }
 *   ...
 *   rbr_begin("compute"); ... rbr_end("compute");
 *   ...
 *   rbr_stop();
 *   MPI_Finalize();
 *
 * rbr_start adopts the program's MPI (package mpi's Adopt: a duplicate of
 * the communicator), synchronizes the clocks with the library's default
 * (clocksync.Default), checks the output directory at once, and opens
 * each rank's spill file, as region.Start does in Go. rbr_stop
 * synchronizes again and writes the raw data and sidecar
 * DIR/PROGRAM-mpirun000.{csv,ranks.csv,json} on rank 0, as
 * region.Recorder.Stop does.
 *
 * rbr_begin, rbr_end and rbr_iter are inline and run in C: no call into
 * Go. They read CLOCK_MONOTONIC_RAW through clock_gettime minus the epoch
 * of the Go recorder's clock (timing.NewDefault), the clock whose offsets
 * the synchronization learned. A region name is checked when first seen
 * (not empty, no comma, quote or line break); a bad one, an rbr_end
 * without an open region and an rbr_end naming another region than the
 * innermost open one are counted as misuse and the first of each kind is
 * noted on standard error. A Begin on a full buffer (region.DefaultCapacity
 * records) or deeper than 64 levels records nothing and is counted as
 * dropped. Every rank writes its records to its spill file whenever it is
 * outside every region and has region.DefaultSpillEvery new ones
 * (reprobench recover reads them after a crash).
 *
 * Before rbr_start, after rbr_stop, or after rbr_start(comm, NULL) (the
 * disabled recorder), rbr_begin, rbr_end and rbr_iter return after one
 * load and branch. The recorder is for the thread that called rbr_start.
 */
#ifndef RBREGION_H
#define RBREGION_H

#include <mpi.h>
#include <stdint.h>
#include <string.h>
#include <time.h>

#ifdef __cplusplus
extern "C" {
#endif

/* rbr_start starts recording on comm into directory dir (created if
 * needed; NULL: the disabled recorder, which records and writes nothing
 * and communicates nothing). Collective over comm, after MPI_Init. It
 * returns 0, or a nonzero code with the same error on every rank
 * (rbr_error): an output file that exists, a directory that cannot be
 * written, a failed clock synchronization, a second rbr_start. */
int rbr_start(MPI_Comm comm, const char *dir);

/* rbr_stop ends the recording (collective over rbr_start's communicator,
 * before MPI_Finalize): synchronizes the clocks, writes the files on rank
 * 0 and prints its one-line account of misuse, drops and unclosed regions
 * there. It returns 0 or a nonzero code (rbr_error). */
int rbr_stop(void);

/* rbr_error returns the message of the last nonzero code ("" if none). */
const char *rbr_error(void);

/* Internal: the recorder's state, read by the inline functions below. */
#define RBR_MAX_DEPTH 64
#define RBR_CACHE 64
typedef struct {
	int64_t start, end, iter;
	int32_t name, parent;
	int16_t depth;
	int8_t closed;
} rbr_rec;
typedef struct {
	const char *p; /* the caller's pointer */
	const char *s; /* the interned copy */
	int32_t id;    /* name index, -1 for a bad name */
	int32_t len;
} rbr_cache_ent;
typedef struct {
	int on;
	int32_t n, cap, depth, spill_every, spilled;
	int spill_fd;
	rbr_rec *recs;
	int64_t iter, epoch;
	int32_t stack[RBR_MAX_DEPTH];
	const char **names; /* interned valid names, by id */
	rbr_cache_ent cache[RBR_CACHE];
} rbr_state;
extern rbr_state rbr_g;
int32_t rbr__intern(const char *name, int32_t len, rbr_cache_ent *e);
void rbr__begin_fail(int32_t id, const char *name, int32_t len);
void rbr__end_fail(const char *name, int32_t len, int32_t rec);
void rbr__spill(void);

static inline int64_t rbr__now(void) {
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
	return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec - rbr_g.epoch;
}

/* rbr__lookup returns the id of name (len bytes, or up to its NUL when len
 * is negative): a hit of the cache slot of its address whose interned
 * copy has the same contents, else the slow path. */
static inline int32_t rbr__lookup(const char *name, int32_t len) {
	rbr_cache_ent *e = &rbr_g.cache[((uintptr_t)name >> 3) % RBR_CACHE];
	if (e->p == name) {
		if (len < 0 ? strcmp(e->s, name) == 0
		            : (e->len == len && memcmp(e->s, name, (size_t)len) == 0)) {
			return e->id;
		}
	}
	return rbr__intern(name, len, e);
}

static inline void rbr__begin(const char *name, int32_t len) {
	rbr_state *s = &rbr_g;
	if (!s->on) {
		return;
	}
	int32_t id = rbr__lookup(name, len);
	if (id < 0 || s->depth == RBR_MAX_DEPTH || s->n == s->cap) {
		rbr__begin_fail(id, name, len);
		return;
	}
	int32_t i = s->n++;
	rbr_rec *p = &s->recs[i];
	p->name = id;
	p->iter = s->iter;
	p->depth = (int16_t)s->depth;
	p->closed = 0;
	p->parent = s->depth > 0 ? s->stack[s->depth - 1] : -1;
	s->stack[s->depth++] = i;
	p->start = rbr__now();
}

static inline void rbr__end(const char *name, int32_t len) {
	rbr_state *s = &rbr_g;
	if (!s->on) {
		return;
	}
	int64_t t = rbr__now();
	if (s->depth == 0) {
		rbr__end_fail(name, len, -1);
		return;
	}
	int32_t i = s->stack[--s->depth];
	if (i < 0) {
		return;
	}
	rbr_rec *p = &s->recs[i];
	p->end = t;
	p->closed = 1;
	if (rbr__lookup(name, len) != p->name) {
		rbr__end_fail(name, len, i);
	}
	if (s->depth == 0 && s->n - s->spilled >= s->spill_every) {
		rbr__spill();
	}
}

/* rbr_begin opens region name (reading the clock last). */
static inline void rbr_begin(const char *name) { rbr__begin(name, -1); }

/* rbr_end closes the innermost open region (reading the clock first);
 * name should be that region's. */
static inline void rbr_end(const char *name) { rbr__end(name, -1); }

/* rbr_iter sets the iteration stamped on the regions begun from now on
 * (the iter column; -1, the initial value, means none). */
static inline void rbr_iter(int64_t iter) {
	rbr_state *s = &rbr_g;
	if (!s->on) {
		return;
	}
	s->iter = iter;
	if (s->depth == 0 && s->n - s->spilled >= s->spill_every) {
		rbr__spill();
	}
}

#ifdef __cplusplus
}
#endif
#endif
