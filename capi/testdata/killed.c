/*
 * killed: a run that dies. Two regions per iteration for ITERS
 * iterations; the last rank kills itself with SIGKILL at the start of
 * iteration argv[2], so rbr_stop is never reached and only the spill
 * files remain. Output into argv[1].
 */
#include <mpi.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>

#include "rbregion.h"

#define ITERS 100000

int main(int argc, char **argv) {
	MPI_Init(&argc, &argv);
	int rank, size;
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	if (argc < 3 || rbr_start(MPI_COMM_WORLD, argv[1]) != 0) {
		fprintf(stderr, "killed: %s\n", argc < 3 ? "usage: killed DIR ITER" : rbr_error());
		MPI_Abort(MPI_COMM_WORLD, 1);
	}
	int kill_at = atoi(argv[2]);
	double x = rank, y = 0;
	for (int it = 0; it < ITERS; it++) {
		if (it == kill_at && rank == size - 1) {
			raise(SIGKILL);
		}
		rbr_iter(it);
		rbr_begin("work");
		for (int k = 0; k < 100; k++) {
			x = x * 0.999 + 1;
		}
		rbr_end("work");
		rbr_begin("sum");
		MPI_Allreduce(&x, &y, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
		rbr_end("sum");
	}
	rbr_stop();
	MPI_Finalize();
	return 0;
}
