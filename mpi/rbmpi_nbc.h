// rbmpi_nbc.h: the non-blocking collectives (issue #17, part 1; the C
// entry of mpi.FamilyNBC is rb_nbc_call) and their overlap measurement. See
// mpi/nbc.go for the definitions.
#ifndef RBMPI_NBC_H
#define RBMPI_NBC_H

#include "rbmpi_sync.h"
#include "rbmpi_types.h"

// rb_nbc_post posts the non-blocking collective a describes (the
// arguments of its blocking twin, as rb_call passes them).
// The rooted ones take their root from rb_call_root (root_shift), once
// per post.
static int rb_nbc_post(const rb_args *a, void *s, void *r, int rank, MPI_Comm c, MPI_Request *rq) {
	const int n = a->n;
	const MPI_Datatype dt = rb_dt(a->dt);
	const MPI_Op op = rb_op(a->op);
	int root;
	switch (a->call) {
	case RB_IBARRIER: return MPI_Ibarrier(c, rq);
	case RB_IBCAST:
		root = rb_call_root(a);
		return MPI_Ibcast(rank == root ? s : r, n, dt, root, c, rq);
	case RB_IREDUCE: return MPI_Ireduce(s, r, n, dt, op, rb_call_root(a), c, rq);
	case RB_IALLREDUCE: return MPI_Iallreduce(s, r, n, dt, op, c, rq);
	case RB_IGATHER: return MPI_Igather(s, n, dt, r, n, dt, rb_call_root(a), c, rq);
	case RB_ISCATTER: return MPI_Iscatter(s, n, dt, r, n, dt, rb_call_root(a), c, rq);
	case RB_IALLGATHER: return MPI_Iallgather(s, n, dt, r, n, dt, c, rq);
	case RB_IALLTOALL: return MPI_Ialltoall(s, n, dt, r, n, dt, c, rq);
	case RB_IREDUCE_SCATTER_BLOCK: return MPI_Ireduce_scatter_block(s, r, n, dt, op, c, rq);
	case RB_ISCAN: return MPI_Iscan(s, r, n, dt, op, c, rq);
	}
	return MPI_ERR_OTHER;
}

// rb_nbc_call is one execution of the latency measurement: post, then wait.
static inline int rb_nbc_call(const rb_args *a, void *s, void *r, int rank, MPI_Comm c) {
	MPI_Request rq;
	int err = rb_nbc_post(a, s, r, rank, c, &rq);
	if (err != MPI_SUCCESS) return err;
	return MPI_Wait(&rq, MPI_STATUS_IGNORE);
}

// rb_kernel_sink keeps the kernel's result alive, so that the compiler
// cannot drop the loop.
static volatile double rb_kernel_sink = 1.0;

// rb_kernel runs iters iterations of the compute kernel: a dependent chain
// of multiply-adds (one per iteration, so its time is proportional to iters
// and independent of the caches). With every > 0 it calls MPI_Test on *rq
// after every `every` iterations and adds the time of those calls to
// *test_ticks. It returns the MPI error of a failed MPI_Test.
static int rb_kernel(int64_t iters, int64_t every, MPI_Request *rq, int clk, int64_t epoch, int64_t *test_ticks) {
	double x = rb_kernel_sink;
	int64_t left = every;
	for (int64_t i = 0; i < iters; i++) {
		x = x * 0.999999999 + 1e-9;
		if (every > 0 && --left == 0) {
			left = every;
			int flag;
			int64_t t0 = rb_now(clk, epoch);
			int err = MPI_Test(rq, &flag, MPI_STATUS_IGNORE);
			*test_ticks += rb_now(clk, epoch) - t0;
			if (err != MPI_SUCCESS) return err;
		}
	}
	rb_kernel_sink = x;
	return MPI_SUCCESS;
}

// OSU's kernel for runtime osu (Observation.TimedKernel): one pass over a
// DIM x DIM float matrix, x[i] = x[i] + a[i][j]*a[j][i] + y[j], as
// osu_util's compute_on_host, DIM = 25 (OSU 5.x-7.x). Its duration sets
// the granularity of the time-targeted loop below, and so how far the
// compute time overshoots its target, which is part of what OSU prints.
#define RB_OSU_DIM 25
static float rb_osu_a[RB_OSU_DIM][RB_OSU_DIM], rb_osu_x[RB_OSU_DIM], rb_osu_y[RB_OSU_DIM];
static int rb_osu_ready;

// rb_osu_init gives the arrays OSU's values (x = y = 1, a = 2, as its
// allocate_host_arrays). It runs once, at run time: arrays the compiler
// sees never written are constants to it, and it folded them into a
// different loop (25 additions of 0 per row) than the one OSU runs.
static void rb_osu_init(void) {
	for (int i = 0; i < RB_OSU_DIM; i++) {
		rb_osu_x[i] = rb_osu_y[i] = 1.0f;
		for (int j = 0; j < RB_OSU_DIM; j++) rb_osu_a[i][j] = 2.0f;
	}
	rb_osu_ready = 1;
}

static void rb_osu_pass(void) {
	for (int i = 0; i < RB_OSU_DIM; i++)
		for (int j = 0; j < RB_OSU_DIM; j++)
			rb_osu_x[i] = rb_osu_x[i] + rb_osu_a[i][j] * rb_osu_a[j][i] + rb_osu_y[j];
}

// rb_osu_compute is osu_util's do_compute_cpu: passes until their timed
// sum reaches target ticks (the time between passes is not counted, so
// the loop lasts longer than its target, as OSU's does).
static void rb_osu_compute(int64_t target, int clk, int64_t epoch) {
	if (!rb_osu_ready) rb_osu_init();
	int64_t elapsed = 0;
	while (elapsed < target) {
		int64_t t1 = rb_now(clk, epoch);
		rb_osu_pass();
		elapsed += rb_now(clk, epoch) - t1;
	}
	rb_kernel_sink += rb_osu_x[0];
}

// rb_osu_kernel is osu_util's do_compute_and_probe on the CPU: without
// probes, compute for target ticks; with probes P > 0, P times (compute
// for target/P ticks; MPI_Test on *rq, its time added to *test_ticks).
static int rb_osu_kernel(int64_t target, int64_t probes, MPI_Request *rq, int clk, int64_t epoch, int64_t *test_ticks) {
	if (probes <= 0) {
		rb_osu_compute(target, clk, epoch);
		return MPI_SUCCESS;
	}
	for (int64_t k = 0; k < probes; k++) {
		rb_osu_compute(target / probes, clk, epoch);
		int flag;
		int64_t t0 = rb_now(clk, epoch);
		int err = MPI_Test(rq, &flag, MPI_STATUS_IGNORE);
		*test_ticks += rb_now(clk, epoch) - t0;
		if (err != MPI_SUCCESS) return err;
	}
	return MPI_SUCCESS;
}

// rb_nbc_sync is the wait before each phase of the overlap measurement
// (a barrier-type rb_args.sync; mpi.Validate refuses the deadline).
static int rb_nbc_sync(const rb_args *a, MPI_Comm c, int rank, int p) {
	switch (a->sync) {
	case RB_SYNC_BARRIER: return MPI_Barrier(c);
	case RB_SYNC_DOUBLE_BARRIER: {
		int err = MPI_Barrier(c);
		return err == MPI_SUCCESS ? MPI_Barrier(c) : err;
	}
	case RB_SYNC_DISSEMINATION: return rb_dissemination_barrier(c, rank, p);
	}
	return MPI_SUCCESS;
}

// rb_osu_reads keeps the clock reads of OSU's loop (below) alive.
static volatile int64_t rb_osu_reads;

// rb_nbc_overlapped is one execution of the overlapped phase: post,
// kernel, wait; the kernel's time without MPI_Test is added to *compute.
//
// With OSU's time-targeted kernel (runtime osu) it also reads the clock
// where osu_iallreduce's timed loop does and we need no reading: before
// and after the post (its init_time) and before and after the wait (its
// wait_time). Those four reads lie inside OSU's overall time; without
// them ours read 0.92-0.93x osu_iallreduce's overall time on Open MPI
// (15 pairs, 2026-11-27) and the overlap 8-16 points higher.
static inline int rb_nbc_overlapped(const rb_args *a, void *s, void *r, int rank, MPI_Comm c, int clk, int64_t epoch,
                                    int64_t *compute) {
	MPI_Request rq;
	int64_t test = 0;
	const int osu = a->timed_kernel;
	if (osu) rb_osu_reads += rb_now(clk, epoch);
	int err = rb_nbc_post(a, s, r, rank, c, &rq);
	if (osu) rb_osu_reads += rb_now(clk, epoch);
	if (err != MPI_SUCCESS) return err;
	int64_t k0 = rb_now(clk, epoch);
	if (osu)
		err = rb_osu_kernel(a->kernel_target, a->test_every, &rq, clk, epoch, &test);
	else
		err = rb_kernel(a->kernel_iters, a->test_every, &rq, clk, epoch, &test);
	int64_t k1 = rb_now(clk, epoch);
	*compute += k1 - k0 - test;
	if (err != MPI_SUCCESS) return err;
	if (osu) rb_osu_reads += rb_now(clk, epoch);
	err = MPI_Wait(&rq, MPI_STATUS_IGNORE);
	if (osu) rb_osu_reads += rb_now(clk, epoch);
	return err;
}

// rb_nbc_overlap is the critical path of one observation of the overlap
// measurement (mpi/nbc.go): wait, pure phase (reps × post; wait), wait,
// start, overlapped phase (reps × post; kernel; wait), end, in one C call.
// With a->each every execution of both phases is timed on its own and
// followed by MPI_Barrier (OSU's loop, as osu_iallreduce), and *end is
// *start plus the sum of the overlapped executions' times.
static int rb_nbc_overlap(MPI_Comm c, int rank, int p, rb_args *a, void *s, void *r, int clk, int64_t epoch,
                          int64_t *start, int64_t *end) {
	const int reps = a->reps < 1 ? 1 : a->reps;
	int64_t pure = 0, compute = 0;
	a->pure = 0;
	a->compute = 0;
	int err = rb_nbc_sync(a, c, rank, p);
	if (err != MPI_SUCCESS) return err;
	a->rot = 0; // each phase rotates the root from a->root (root_shift)
	if (a->each) {
		for (int i = 0; i < reps; i++) {
			int64_t t0 = rb_now(clk, epoch);
			err = rb_nbc_call(a, s, r, rank, c);
			int64_t t1 = rb_now(clk, epoch);
			if (err != MPI_SUCCESS) return err;
			pure += t1 - t0;
			if ((err = MPI_Barrier(c)) != MPI_SUCCESS) return err;
		}
	} else {
		int64_t t0 = rb_now(clk, epoch);
		for (int i = 0; i < reps; i++) {
			if ((err = rb_nbc_call(a, s, r, rank, c)) != MPI_SUCCESS) return err;
		}
		pure = rb_now(clk, epoch) - t0;
	}
	a->pure = pure;
	a->kernel_target = pure / reps; // OSU's latency: this rank's mean pure time per call
	if ((err = rb_nbc_sync(a, c, rank, p)) != MPI_SUCCESS) return err;
	a->rot = 0;
	int64_t t = rb_now(clk, epoch);
	*start = t;
	if (a->each) {
		int64_t sum = 0;
		for (int i = 0; i < reps; i++) {
			int64_t t0 = rb_now(clk, epoch);
			err = rb_nbc_overlapped(a, s, r, rank, c, clk, epoch, &compute);
			int64_t t1 = rb_now(clk, epoch);
			if (err != MPI_SUCCESS) return err;
			sum += t1 - t0;
			if ((err = MPI_Barrier(c)) != MPI_SUCCESS) return err;
		}
		*end = t + sum;
	} else {
		for (int i = 0; i < reps; i++) {
			if ((err = rb_nbc_overlapped(a, s, r, rank, c, clk, epoch, &compute)) != MPI_SUCCESS) return err;
		}
		*end = rb_now(clk, epoch);
	}
	a->compute = compute;
	return MPI_SUCCESS;
}

#endif
