/*
 * fidelity: the pure-C reference for reprobench's measurement engine.
 *
 * It does exactly what `reprobench run --proc-sync barrier --runtime local
 * --clock monotonic` does for one experiment: W unrecorded warm-up
 * observations, then N observations of
 *
 *     MPI_Barrier; t0 = CLOCK_MONOTONIC; call; t1 = CLOCK_MONOTONIC
 *
 * on every rank, the timestamps kept in preallocated arrays; after the
 * last observation the durations are gathered at rank 0, which writes the
 * local completion time max over ranks of (t1 - t0) of each observation,
 * in seconds, one per line.
 *
 * Calls: "allreduce" (MPI_Allreduce of count MPI_DOUBLE, MPI_SUM) and
 * "pingpong" (rank 0 sends count doubles to rank 1 and receives them back;
 * other ranks only take the timestamps).
 *
 * The thread level is requested as the engine does (MPI_Init_thread with
 * FUNNELED by default, SINGLE with THREAD=single): it is part of "the same",
 * because with Open MPI 4.1.4 FUNNELED alone costs 50-70 ns per 8-byte
 * allreduce and 170-210 ns per 8-byte ping-pong on the project's VMs.
 *
 * usage: mpirun -np 2 ./fidelity allreduce|pingpong N W BYTES OUTFILE [single|funneled]
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static inline long long now_ns(void) {
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

int main(int argc, char **argv) {
	int want = MPI_THREAD_FUNNELED, provided;
	if (argc == 7 && strcmp(argv[6], "single") == 0) want = MPI_THREAD_SINGLE;
	MPI_Init_thread(&argc, &argv, want, &provided);
	int rank, size;
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	if (argc != 6 && argc != 7) {
		if (rank == 0)
			fprintf(stderr, "usage: %s allreduce|pingpong N WARMUP BYTES OUTFILE [single|funneled]\n", argv[0]);
		MPI_Abort(MPI_COMM_WORLD, 2);
	}
	int pingpong = strcmp(argv[1], "pingpong") == 0;
	if (!pingpong && strcmp(argv[1], "allreduce") != 0) {
		if (rank == 0)
			fprintf(stderr, "unknown call %s\n", argv[1]);
		MPI_Abort(MPI_COMM_WORLD, 2);
	}
	int n = atoi(argv[2]), warmup = atoi(argv[3]), bytes = atoi(argv[4]);
	int count = bytes / 8;
	double *sbuf = calloc(count > 0 ? count : 1, 8), *rbuf = calloc(count > 0 ? count : 1, 8);
	double *dur = malloc(sizeof(double) * n);
	double *all = rank == 0 ? malloc(sizeof(double) * n * size) : NULL;
	for (int i = -warmup; i < n; i++) {
		MPI_Barrier(MPI_COMM_WORLD);
		long long t0 = now_ns();
		if (pingpong) {
			if (rank == 0) {
				MPI_Send(sbuf, count, MPI_DOUBLE, 1, 1, MPI_COMM_WORLD);
				MPI_Recv(rbuf, count, MPI_DOUBLE, 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
			} else if (rank == 1) {
				MPI_Recv(rbuf, count, MPI_DOUBLE, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
				MPI_Send(rbuf, count, MPI_DOUBLE, 0, 1, MPI_COMM_WORLD);
			}
		} else {
			MPI_Allreduce(sbuf, rbuf, count, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
		}
		long long t1 = now_ns();
		if (i >= 0)
			dur[i] = (double)(t1 - t0) / 1e9;
	}
	MPI_Gather(dur, n, MPI_DOUBLE, all, n, MPI_DOUBLE, 0, MPI_COMM_WORLD);
	if (rank == 0) {
		FILE *f = fopen(argv[5], "w");
		if (!f) {
			perror(argv[5]);
			MPI_Abort(MPI_COMM_WORLD, 1);
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
	MPI_Finalize();
	return 0;
}
