// cloop.h: fidelity.c's timing loop, callable from a Go process, so that the
// loop of the field's baseline and reprobench's engine can be compared inside
// one process (one mpirun, hence one machine state). See main.go.
#ifndef SLOWMODE_CLOOP_H
#define SLOWMODE_CLOOP_H

#include <mpi.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static inline long long sm_now_ns(void) {
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

// sm_cloop is fidelity.c's loop for MPI_Allreduce of count doubles: per
// observation MPI_Barrier; t0; MPI_Allreduce; t1, with t0 and t1 in ns of
// CLOCK_MONOTONIC (one clock for every rank of a host) kept in arrays and
// stored after t1, as fidelity.c stores its durations.
static int sm_cloop(void *s, void *r, int count, int n, int64_t *t0s, int64_t *t1s) {
	for (int i = 0; i < n; i++) {
		MPI_Barrier(MPI_COMM_WORLD);
		long long t0 = sm_now_ns();
		MPI_Allreduce(s, r, count, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
		long long t1 = sm_now_ns();
		t0s[i] = t0;
		t1s[i] = t1;
	}
	return 0;
}

// sm_cloop_early is sm_cloop with t0 stored before the call, between the
// two clock readings, as the engine's rb_observe stores *start.
static int sm_cloop_early(void *s, void *r, int count, int n, int64_t *t0s, int64_t *t1s) {
	for (int i = 0; i < n; i++) {
		MPI_Barrier(MPI_COMM_WORLD);
		t0s[i] = sm_now_ns();
		MPI_Allreduce(s, r, count, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
		t1s[i] = sm_now_ns();
	}
	return 0;
}

// sm_alloc returns len bytes as alloc.h's rb_alloc does (page-aligned, at
// least 1 MiB, so glibc maps it with mmap), written once.
static void *sm_alloc(size_t len) {
	size_t n = len < (1 << 20) ? (1 << 20) : len;
	void *p = NULL;
	if (posix_memalign(&p, (size_t)sysconf(_SC_PAGESIZE), n) != 0) return NULL;
	memset(p, 0, n);
	return p;
}

#endif
