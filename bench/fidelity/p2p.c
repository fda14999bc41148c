/*
 * p2p: the field's baseline for reprobench's bandwidth and one-sided calls
 * (issue #17 parts 3 and 4), two programs in one binary.
 *
 * 1. Plain C loops, as fidelity.c (same arguments, same output): MPI_Init,
 *    W unrecorded warm-up observations, then N observations of
 *
 *        MPI_Barrier; t0 = CLOCK_MONOTONIC; call; t1 = CLOCK_MONOTONIC
 *
 *    on every rank; rank 0 writes the local completion time, max over
 *    ranks of t1 - t0, in seconds under the header runtime_s. The calls,
 *    exactly what `reprobench run --calls bw|MPI_Put` executes per
 *    observation with its default flags (MPI_DOUBLE, root 0, peer 1):
 *
 *      bw        one window: rank 0 posts WINDOW (64) MPI_Isend of BYTES to
 *                rank 1, MPI_Waitall, then receives a zero-byte
 *                acknowledgement; rank 1 posts 64 MPI_Irecv into one
 *                buffer, MPI_Waitall, sends the acknowledgement. The
 *                request array is allocated once, before the loop.
 *      putfence  every rank MPI_Win_fence(0); rank 0 MPI_Put of BYTES to
 *                displacement 0 of rank 1's window; every rank
 *                MPI_Win_fence(0). The window (MPI_Win_allocate of BYTES
 *                per rank) is created before the loop and freed after it.
 *
 *    usage: mpirun -np 2 ./p2p bw|putfence N WARMUP BYTES OUTFILE [osuwin]
 *
 *    osuwin (putfence only): before the measured window, create and free
 *    one window (MPI_Win_allocate, disp_unit 1) of each size 1, 2, 4, …,
 *    BYTES/2 bytes, untimed: the windows osu_put_latency has created and
 *    freed by the time it measures BYTES (it allocates one per message size
 *    in its size loop, from 1 byte; it also runs its loop on each, which
 *    this does not). With Open MPI 4.1.4 the loop's median depends on
 *    whether its window is the process's first: one earlier window created
 *    and freed moved it by 1.02-1.12x in 12 of 12 alternating runs
 *    (docs/fidelity.md, "Put with fence: the first window"), and reprobench run
 *    measures in that state.
 *
 * 2. A RE-IMPLEMENTATION of osu_bw's timing loop (OSU micro-benchmarks
 *    5.x, osu_bw.c, written from its published source and documentation:
 *    NOT the tool itself, which Debian does not package and this machine
 *    cannot download), as tools.c does for osu_latency and osu_allreduce:
 *
 *      MPI_Barrier; for i < skip + iter: rank 0 { if i == skip: t_start =
 *      MPI_Wtime(); 64 × MPI_Isend(s_buf, BYTES, MPI_CHAR, 1, 100);
 *      MPI_Waitall; MPI_Recv(r_buf, 4, MPI_CHAR, 1, 101) } rank 1 { 64 ×
 *      MPI_Irecv(r_buf, BYTES, MPI_CHAR, 0, 100); MPI_Waitall;
 *      MPI_Send(s_buf, 4, MPI_CHAR, 0, 101) }; t_end = MPI_Wtime() on
 *      rank 0; osu_bw prints BYTES/1e6 × iter × 64 / (t_end - t_start) MB/s.
 *
 *    OSU's acknowledgement carries 4 bytes; reprobench's (and part 1's)
 *    carries none, as the issue specifies: one short eager message per
 *    window either way. Page-aligned buffers, as OSU. One measurement is
 *    one run of the loop (one line osu_bw prints); the program writes, on
 *    rank 0, the time per window (t_end - t_start)/iter in seconds under
 *    value_s (what `reprobench run --runtime osu` records per observation),
 *    and the bandwidth osu_bw would print under mb_s.
 *
 *    usage: mpirun -np 2 ./p2p osu bw BYTES ITER SKIP R OUTFILE
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "alloc.h"

#define WINDOW 64
#define RB_TAG 1

static inline long long now_ns(void) {
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static int rank, size;
static MPI_Request req[WINDOW];
static char ack;

static void bw_window(void *s, void *r, int bytes) {
	if (rank == 0) {
		for (int j = 0; j < WINDOW; j++)
			MPI_Isend(s, bytes, MPI_BYTE, 1, RB_TAG, MPI_COMM_WORLD, &req[j]);
		MPI_Waitall(WINDOW, req, MPI_STATUSES_IGNORE);
		MPI_Recv(&ack, 0, MPI_BYTE, 1, RB_TAG + 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
	} else if (rank == 1) {
		for (int j = 0; j < WINDOW; j++)
			MPI_Irecv(r, bytes, MPI_BYTE, 0, RB_TAG, MPI_COMM_WORLD, &req[j]);
		MPI_Waitall(WINDOW, req, MPI_STATUSES_IGNORE);
		MPI_Send(&ack, 0, MPI_BYTE, 0, RB_TAG + 1, MPI_COMM_WORLD);
	}
}

static int loops(int argc, char **argv) {
	int isbw = strcmp(argv[1], "bw") == 0;
	if (!isbw && strcmp(argv[1], "putfence") != 0) {
		if (rank == 0)
			fprintf(stderr, "unknown call %s\n", argv[1]);
		return 2;
	}
	int n = atoi(argv[2]), warmup = atoi(argv[3]), bytes = atoi(argv[4]);
	if (n < 1 || warmup < 0 || bytes < 8 || bytes % 8 != 0) {
		if (rank == 0)
			fprintf(stderr, "need N >= 1, WARMUP >= 0 and BYTES a positive multiple of 8\n");
		return 2;
	}
	double *sbuf = rb_alloc(bytes), *rbuf = rb_alloc(bytes); // as OSU allocates, written (alloc.h)
	if (!sbuf || !rbuf)
		return 1;
	memset(sbuf, 0, bytes);
	memset(rbuf, 0, bytes);
	double *dur = malloc(sizeof(double) * n);
	double *all = rank == 0 ? malloc(sizeof(double) * n * size) : NULL;
	MPI_Win win = MPI_WIN_NULL;
	void *base = NULL;
	if (!isbw && argc == 7) {
		if (strcmp(argv[6], "osuwin") != 0) {
			if (rank == 0)
				fprintf(stderr, "unknown option %s (want osuwin)\n", argv[6]);
			return 2;
		}
		for (int s = 1; s < bytes; s *= 2) { // osu_put_latency's windows before BYTES
			MPI_Win_allocate(s, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
			MPI_Win_free(&win);
		}
	} else if (argc == 7) {
		if (rank == 0)
			fprintf(stderr, "osuwin is an option of putfence only\n");
		return 2;
	}
	if (!isbw) {
		MPI_Win_allocate(bytes, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
		memset(base, 0, bytes);
		MPI_Barrier(MPI_COMM_WORLD);
	}
	for (int i = -warmup; i < n; i++) {
		MPI_Barrier(MPI_COMM_WORLD);
		long long t0 = now_ns();
		if (isbw) {
			bw_window(sbuf, rbuf, bytes);
		} else {
			MPI_Win_fence(0, win);
			if (rank == 0)
				MPI_Put(sbuf, bytes / 8, MPI_DOUBLE, 1, 0, bytes / 8, MPI_DOUBLE, win);
			MPI_Win_fence(0, win);
		}
		long long t1 = now_ns();
		if (i >= 0)
			dur[i] = (double)(t1 - t0) / 1e9;
	}
	if (!isbw)
		MPI_Win_free(&win);
	MPI_Gather(dur, n, MPI_DOUBLE, all, n, MPI_DOUBLE, 0, MPI_COMM_WORLD);
	if (rank == 0) {
		FILE *f = fopen(argv[5], "w");
		if (!f) {
			perror(argv[5]);
			return 1;
		}
		fprintf(f, "runtime_s\n");
		for (int i = 0; i < n; i++) {
			double m = all[i];
			for (int r = 1; r < size; r++)
				if (all[r * n + i] > m)
					m = all[r * n + i];
			fprintf(f, "%.9g\n", m);
		}
		fclose(f);
	}
	return 0;
}

/* osu_bw returns the time per window of one run of osu_bw's loop on rank 0
 * (broadcast to every rank). */
static double osu_bw(char *s_buf, char *r_buf, int bytes, int iter, int skip) {
	double t_start = 0, t_end = 0;
	MPI_Barrier(MPI_COMM_WORLD);
	if (rank == 0) {
		for (int i = 0; i < iter + skip; i++) {
			if (i == skip)
				t_start = MPI_Wtime();
			for (int j = 0; j < WINDOW; j++)
				MPI_Isend(s_buf, bytes, MPI_CHAR, 1, 100, MPI_COMM_WORLD, &req[j]);
			MPI_Waitall(WINDOW, req, MPI_STATUSES_IGNORE);
			MPI_Recv(r_buf, 4, MPI_CHAR, 1, 101, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		}
		t_end = MPI_Wtime();
	} else if (rank == 1) {
		for (int i = 0; i < iter + skip; i++) {
			for (int j = 0; j < WINDOW; j++)
				MPI_Irecv(r_buf, bytes, MPI_CHAR, 0, 100, MPI_COMM_WORLD, &req[j]);
			MPI_Waitall(WINDOW, req, MPI_STATUSES_IGNORE);
			MPI_Send(s_buf, 4, MPI_CHAR, 0, 101, MPI_COMM_WORLD);
		}
	}
	double v = (t_end - t_start) / iter;
	MPI_Bcast(&v, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
	return v;
}

static int tool(int argc, char **argv) {
	if (argc != 8 || strcmp(argv[2], "bw") != 0) {
		if (rank == 0)
			fprintf(stderr, "usage: %s osu bw BYTES ITER SKIP R OUTFILE\n", argv[0]);
		return 2;
	}
	int bytes = atoi(argv[3]), iter = atoi(argv[4]), skip = atoi(argv[5]), reps = atoi(argv[6]);
	if (bytes < 4 || iter < 1 || skip < 0 || reps < 1) {
		if (rank == 0)
			fprintf(stderr, "bad arguments (BYTES >= 4, ITER >= 1, SKIP >= 0, R >= 1)\n");
		return 2;
	}
	char *s_buf, *r_buf;
	s_buf = rb_alloc(bytes);
	r_buf = rb_alloc(bytes);
	if (!s_buf || !r_buf)
		return 1;
	memset(s_buf, 'a', bytes);
	memset(r_buf, 'b', bytes);
	FILE *f = NULL;
	if (rank == 0) {
		f = fopen(argv[7], "w");
		if (!f) {
			perror(argv[7]);
			return 1;
		}
		fprintf(f, "value_s,mb_s\n");
	}
	for (int r = 0; r < reps; r++) {
		double v = osu_bw(s_buf, r_buf, bytes, iter, skip);
		if (rank == 0)
			fprintf(f, "%.9g,%.6g\n", v, bytes / 1e6 * WINDOW / v);
	}
	if (rank == 0)
		fclose(f);
	return 0;
}

int main(int argc, char **argv) {
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	int rc;
	if (argc >= 2 && strcmp(argv[1], "osu") == 0) {
		rc = tool(argc, argv);
	} else if (argc == 6 || argc == 7) {
		rc = loops(argc, argv);
	} else {
		if (rank == 0)
			fprintf(stderr, "usage: %s bw|putfence N WARMUP BYTES OUTFILE [osuwin]\n       %s osu bw BYTES ITER SKIP R OUTFILE\n",
			        argv[0], argv[0]);
		rc = 2;
	}
	if (rc != 0)
		MPI_Abort(MPI_COMM_WORLD, rc);
	MPI_Finalize();
	return 0;
}
