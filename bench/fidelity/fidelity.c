/*
 * fidelity: the field's baseline for reprobench's measurement engine, a
 * plain C loop as ReproMPI or a hand-written benchmark has it.
 *
 * It calls MPI_Init (thread level SINGLE, what every C benchmark gets),
 * then does what `reprobench run --proc-sync barrier --runtime local
 * --clock monotonic --datatype float64` does for one experiment: W
 * unrecorded warm-up observations, then N observations of
 *
 *     MPI_Barrier; t0 = CLOCK_MONOTONIC; call; t1 = CLOCK_MONOTONIC
 *
 * on every rank, the timestamps kept in preallocated arrays; after the
 * last observation the durations are gathered at rank 0, which writes the
 * local completion time, max over ranks of (t1 - t0), of each observation
 * in seconds, one per line under the header runtime_s.
 *
 * Calls, on BYTES bytes of MPI_DOUBLE per rank (BYTES/8 elements):
 *   allreduce  MPI_Allreduce, MPI_SUM
 *   bcast      MPI_Bcast from rank 0
 *   alltoall   MPI_Alltoall, BYTES/8 elements to each rank
 *   alltoallv  MPI_Alltoallv, BYTES/8 elements to and from each rank (uniform
 *              counts, contiguous displacements, both vectors built before
 *              the loop, as `reprobench run --calls MPI_Alltoallv` does)
 *   iallreduce MPI_Iallreduce, MPI_SUM, then MPI_Wait at once (nbc, #17)
 *   pingpong   rank 0 sends to rank 1, which receives into its receive
 *              buffer and answers from its send buffer (as osu_latency, IMB
 *              PingPong and reprobench do; with MPICH 4.0.2 answering from
 *              the buffer just received made a 64 KiB round trip 2.3x
 *              slower here); other ranks only take the timestamps
 *
 * An optional last argument "funneled" requests MPI_THREAD_FUNNELED with
 * MPI_Init_thread instead, to show what the thread level alone changes;
 * "split" creates and frees one communicator (MPI_Comm_split_type,
 * MPI_COMM_TYPE_SHARED) before the warm-up, as reprobench's launch check
 * did before it counted the node's ranks from processor names: with Open
 * MPI 4.1.4 that alone made the loop 3-6 % slower (issue 30; run.sh's
 * part "split").
 *
 * The environment variable PREHISTORY=K (default 0) sends, after the
 * warm-up and before the first recorded observation, K empty messages
 * from each even rank to the rank after it, as `reprobench run
 * --prehistory K` does: so that the C loop and the engine start from the
 * same transport state when one is asked for.
 *
 * usage: mpirun -np 2 ./fidelity CALL N W BYTES OUTFILE [funneled|split]
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "alloc.h"

static inline long long now_ns(void) {
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

enum { ALLREDUCE, BCAST, ALLTOALL, PINGPONG, ALLTOALLV /* vcoll */, IALLREDUCE /* nbc */ };

int main(int argc, char **argv) {
	int provided;
	if (argc == 7 && strcmp(argv[6], "funneled") == 0)
		MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
	else
		MPI_Init(&argc, &argv);
	int rank, size;
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	if (argc != 6 && (argc != 7 || (strcmp(argv[6], "funneled") != 0 && strcmp(argv[6], "split") != 0))) {
		if (rank == 0)
			fprintf(stderr,
			        "usage: %s allreduce|bcast|alltoall|alltoallv|pingpong|iallreduce N WARMUP BYTES OUTFILE [funneled|split]\n",
			        argv[0]);
		MPI_Abort(MPI_COMM_WORLD, 2);
	}
	int call;
	if (strcmp(argv[1], "allreduce") == 0)
		call = ALLREDUCE;
	else if (strcmp(argv[1], "bcast") == 0)
		call = BCAST;
	else if (strcmp(argv[1], "alltoall") == 0)
		call = ALLTOALL;
	else if (strcmp(argv[1], "pingpong") == 0)
		call = PINGPONG;
	else if (strcmp(argv[1], "alltoallv") == 0) // vcoll
		call = ALLTOALLV;
	else if (strcmp(argv[1], "iallreduce") == 0) // nbc
		call = IALLREDUCE;
	else {
		if (rank == 0)
			fprintf(stderr, "unknown call %s\n", argv[1]);
		MPI_Abort(MPI_COMM_WORLD, 2);
		return 2;
	}
	int n = atoi(argv[2]), warmup = atoi(argv[3]), bytes = atoi(argv[4]);
	if (n < 1 || warmup < 0 || bytes < 8 || bytes % 8 != 0) {
		if (rank == 0)
			fprintf(stderr, "need N >= 1, WARMUP >= 0 and BYTES a positive multiple of 8\n");
		MPI_Abort(MPI_COMM_WORLD, 2);
	}
	int count = bytes / 8;
	size_t elems = (size_t)count * (call == ALLTOALL || call == ALLTOALLV ? size : 1);
	int *counts = malloc(sizeof(int) * size), *displs = malloc(sizeof(int) * size); // vcoll: alltoallv
	for (int r = 0; r < size; r++) {
		counts[r] = count;
		displs[r] = r * count;
	}
	double *sbuf = rb_alloc(elems * 8), *rbuf = rb_alloc(elems * 8);
	if (!sbuf || !rbuf)
		MPI_Abort(MPI_COMM_WORLD, 1);
	memset(sbuf, 0, elems * 8);
	memset(rbuf, 0, elems * 8);
	if (argc == 7 && strcmp(argv[6], "split") == 0) {
		MPI_Comm node;
		MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &node);
		MPI_Comm_free(&node);
	}
	double *dur = malloc(sizeof(double) * n);
	double *all = rank == 0 ? malloc(sizeof(double) * n * size) : NULL;
	const char *ph = getenv("PREHISTORY");
	int prehistory = ph ? atoi(ph) : 0;
	for (int i = -warmup; i < n; i++) {
		if (i == 0)
			for (int k = 0; k < prehistory; k++) {
				if (rank % 2 == 0 && rank + 1 < size)
					MPI_Send(NULL, 0, MPI_BYTE, rank + 1, 0, MPI_COMM_WORLD);
				else if (rank % 2 == 1)
					MPI_Recv(NULL, 0, MPI_BYTE, rank - 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
			}
		MPI_Barrier(MPI_COMM_WORLD);
		long long t0 = now_ns();
		switch (call) {
		case ALLREDUCE:
			MPI_Allreduce(sbuf, rbuf, count, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
			break;
		case BCAST:
			MPI_Bcast(rank == 0 ? sbuf : rbuf, count, MPI_DOUBLE, 0, MPI_COMM_WORLD);
			break;
		case ALLTOALL:
			MPI_Alltoall(sbuf, count, MPI_DOUBLE, rbuf, count, MPI_DOUBLE, MPI_COMM_WORLD);
			break;
		case ALLTOALLV: // vcoll
			MPI_Alltoallv(sbuf, counts, displs, MPI_DOUBLE, rbuf, counts, displs, MPI_DOUBLE, MPI_COMM_WORLD);
			break;
		case IALLREDUCE: { // nbc
			MPI_Request rq;
			MPI_Iallreduce(sbuf, rbuf, count, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD, &rq);
			MPI_Wait(&rq, MPI_STATUS_IGNORE);
			break;
		}
		case PINGPONG:
			if (rank == 0) {
				MPI_Send(sbuf, count, MPI_DOUBLE, 1, 1, MPI_COMM_WORLD);
				MPI_Recv(rbuf, count, MPI_DOUBLE, 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
			} else if (rank == 1) {
				MPI_Recv(rbuf, count, MPI_DOUBLE, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
				MPI_Send(sbuf, count, MPI_DOUBLE, 0, 1, MPI_COMM_WORLD);
			}
			break;
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
