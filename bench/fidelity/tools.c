/*
 * tools: a re-implementation of the timing loops of the OSU
 * micro-benchmarks and of the Intel MPI Benchmarks (IMB-MPI1), written from
 * their published descriptions, NOT the tools themselves (neither is
 * packaged by Debian and this machine reaches no other network). It is the
 * reference for `reprobench run --runtime osu` and `--runtime imb`.
 *
 * Both call MPI_Init, use MPI_Wtime, page-aligned buffers (as OSU) and the
 * datatypes of the tools: MPI_FLOAT/MPI_SUM for Allreduce, MPI_CHAR for
 * Bcast, Alltoall and the ping-pong. One measurement is one run of the
 * tool's loop at one message size, i.e. one line the tool prints; the
 * program makes R measurements and writes, on rank 0, the printed value of
 * each in seconds (header value_s).
 *
 * OSU (osu_latency; osu_allreduce, osu_bcast, osu_alltoall):
 *   latency:     MPI_Barrier; for i < skip+iter: rank 0 { if i == skip:
 *                t_start = MPI_Wtime(); MPI_Send; MPI_Recv } rank 1 {
 *                MPI_Recv; MPI_Send }; t_end = MPI_Wtime();
 *                value = (t_end - t_start) / (2 iter) on rank 0.
 *   collectives: MPI_Barrier; timer = 0; for i < skip+iter: { t0 =
 *                MPI_Wtime(); call; t1 = MPI_Wtime(); if i >= skip: timer +=
 *                t1 - t0; MPI_Barrier }; latency = timer / iter per rank;
 *                min, max and sum reduced to rank 0; value = sum / size
 *                (OSU's "Avg Latency").
 * IMB (IMB-MPI1 PingPong; Allreduce, Bcast, Alltoall):
 *   skip untimed calls (warm-up), MPI_Barrier, t1 = MPI_Wtime(), iter calls
 *   back to back, t2 = MPI_Wtime(), t = (t2 - t1) / iter per rank;
 *   value = t_avg over ranks (t_min and t_max are reduced too and written
 *   as extra columns); PingPong: rank 0's (t2 - t1) / (2 iter).
 *
 * usage: mpirun -np 2 ./tools osu|imb allreduce|bcast|alltoall|pingpong BYTES ITER SKIP R OUTFILE
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "alloc.h"

enum { ALLREDUCE, BCAST, ALLTOALL, PINGPONG };

static int rank, size;
static char *sbuf, *rbuf;
static int bytes;

static void call_once(int call) {
	switch (call) {
	case ALLREDUCE:
		MPI_Allreduce(sbuf, rbuf, bytes / 4, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
		break;
	case BCAST:
		MPI_Bcast(sbuf, bytes, MPI_CHAR, 0, MPI_COMM_WORLD);
		break;
	case ALLTOALL:
		MPI_Alltoall(sbuf, bytes, MPI_CHAR, rbuf, bytes, MPI_CHAR, MPI_COMM_WORLD);
		break;
	case PINGPONG:
		if (rank == 0) {
			MPI_Send(sbuf, bytes, MPI_CHAR, 1, 1, MPI_COMM_WORLD);
			MPI_Recv(rbuf, bytes, MPI_CHAR, 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		} else if (rank == 1) {
			MPI_Recv(rbuf, bytes, MPI_CHAR, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
			MPI_Send(sbuf, bytes, MPI_CHAR, 0, 1, MPI_COMM_WORLD);
		}
		break;
	}
}

/* osu returns the value OSU prints for one run of its loop (seconds), and
 * its min and max over ranks in *mn, *mx. */
static double osu(int call, int iter, int skip, double *mn, double *mx) {
	MPI_Barrier(MPI_COMM_WORLD);
	if (call == PINGPONG) {
		double t_start = 0;
		for (int i = 0; i < iter + skip; i++) {
			if (rank == 0 && i == skip)
				t_start = MPI_Wtime();
			call_once(call);
		}
		double v = (MPI_Wtime() - t_start) / (2.0 * iter);
		MPI_Bcast(&v, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
		*mn = *mx = v;
		return v;
	}
	double timer = 0;
	for (int i = 0; i < iter + skip; i++) {
		double t0 = MPI_Wtime();
		call_once(call);
		double t1 = MPI_Wtime();
		if (i >= skip)
			timer += t1 - t0;
		MPI_Barrier(MPI_COMM_WORLD);
	}
	double lat = timer / iter, sum;
	MPI_Reduce(&lat, mn, 1, MPI_DOUBLE, MPI_MIN, 0, MPI_COMM_WORLD);
	MPI_Reduce(&lat, mx, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
	MPI_Reduce(&lat, &sum, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
	return sum / size;
}

/* imb returns t_avg (collectives) or rank 0's half round trip (PingPong),
 * and t_min, t_max in *mn, *mx. */
static double imb(int call, int iter, int skip, double *mn, double *mx) {
	for (int i = 0; i < skip; i++)
		call_once(call);
	MPI_Barrier(MPI_COMM_WORLD);
	double t1 = MPI_Wtime();
	for (int i = 0; i < iter; i++)
		call_once(call);
	double t2 = MPI_Wtime();
	double t = (t2 - t1) / iter, sum;
	if (call == PINGPONG) {
		t /= 2;
		MPI_Bcast(&t, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
		*mn = *mx = t;
		return t;
	}
	MPI_Reduce(&t, mn, 1, MPI_DOUBLE, MPI_MIN, 0, MPI_COMM_WORLD);
	MPI_Reduce(&t, mx, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
	MPI_Reduce(&t, &sum, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
	return sum / size;
}

int main(int argc, char **argv) {
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	if (argc != 8) {
		if (rank == 0)
			fprintf(stderr, "usage: %s osu|imb allreduce|bcast|alltoall|pingpong BYTES ITER SKIP R OUTFILE\n",
			        argv[0]);
		MPI_Abort(MPI_COMM_WORLD, 2);
	}
	int isosu = strcmp(argv[1], "osu") == 0;
	if (!isosu && strcmp(argv[1], "imb") != 0) {
		if (rank == 0)
			fprintf(stderr, "unknown tool %s\n", argv[1]);
		MPI_Abort(MPI_COMM_WORLD, 2);
	}
	int call = -1;
	const char *names[] = {"allreduce", "bcast", "alltoall", "pingpong"};
	for (int i = 0; i < 4; i++)
		if (strcmp(argv[2], names[i]) == 0)
			call = i;
	bytes = atoi(argv[3]);
	int iter = atoi(argv[4]), skip = atoi(argv[5]), reps = atoi(argv[6]);
	if (call < 0 || bytes < 4 || bytes % 4 != 0 || iter < 1 || skip < 0 || reps < 1) {
		if (rank == 0)
			fprintf(stderr, "bad arguments (call, BYTES a positive multiple of 4, ITER >= 1, SKIP >= 0, R >= 1)\n");
		MPI_Abort(MPI_COMM_WORLD, 2);
	}
	size_t len = (size_t)bytes * (call == ALLTOALL ? size : 1);
	sbuf = rb_alloc(len);
	rbuf = rb_alloc(len);
	if (!sbuf || !rbuf)
		MPI_Abort(MPI_COMM_WORLD, 1);
	memset(sbuf, 1, len);
	memset(rbuf, 0, len);
	FILE *f = NULL;
	if (rank == 0) {
		f = fopen(argv[7], "w");
		if (!f) {
			perror(argv[7]);
			MPI_Abort(MPI_COMM_WORLD, 1);
		}
		fprintf(f, "value_s,min_s,max_s\n");
	}
	for (int r = 0; r < reps; r++) {
		double mn = 0, mx = 0, v = isosu ? osu(call, iter, skip, &mn, &mx) : imb(call, iter, skip, &mn, &mx);
		if (rank == 0)
			fprintf(f, "%.9g,%.9g,%.9g\n", v, mn, mx);
	}
	if (rank == 0)
		fclose(f);
	MPI_Finalize();
	return 0;
}
