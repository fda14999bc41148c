/*
 * stencil: a 2-D Jacobi solver on a grid of rows split across the ranks
 * (1-D decomposition), with three regions recorded by reprobench's C API:
 * compute (the sweep), halo (the exchange of boundary rows with
 * MPI_Sendrecv) and residual (the MPI_Allreduce of the residual).
 *
 *   make MPI=openmpi
 *   mpirun -np 2 ./stencil-openmpi -out /tmp/cst
 *   reprobench analyze /tmp/cst/stencil-openmpi-mpirun000.csv
 *
 * Arguments: -n N (columns and rows per rank, default 256), -iters K
 * (default 500), -out DIR (default "out").
 */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rbregion.h"

int main(int argc, char **argv) {
	int n = 256, iters = 500;
	const char *out = "out";
	for (int i = 1; i + 1 < argc; i += 2) {
		if (strcmp(argv[i], "-n") == 0) {
			n = atoi(argv[i + 1]);
		} else if (strcmp(argv[i], "-iters") == 0) {
			iters = atoi(argv[i + 1]);
		} else if (strcmp(argv[i], "-out") == 0) {
			out = argv[i + 1];
		}
	}
	MPI_Init(&argc, &argv);
	int rank, size;
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	if (rbr_start(MPI_COMM_WORLD, out) != 0) {
		fprintf(stderr, "stencil: %s\n", rbr_error());
		MPI_Abort(MPI_COMM_WORLD, 1);
	}
	/* n interior rows of n columns, and a ghost row above and below. */
	size_t w = (size_t)n + 2;
	double *u = calloc(w * (size_t)(n + 2), sizeof *u);
	double *v = calloc(w * (size_t)(n + 2), sizeof *v);
	for (size_t i = 0; i < w * (size_t)(n + 2); i++) {
		u[i] = v[i] = rank;
	}
	int up = rank > 0 ? rank - 1 : MPI_PROC_NULL;
	int down = rank < size - 1 ? rank + 1 : MPI_PROC_NULL;
	double res = 0;
	for (int it = 0; it < iters; it++) {
		rbr_iter(it);
		rbr_begin("halo");
		MPI_Sendrecv(&u[w], n + 2, MPI_DOUBLE, up, 0, &u[(size_t)(n + 1) * w], n + 2, MPI_DOUBLE,
		             down, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		MPI_Sendrecv(&u[(size_t)n * w], n + 2, MPI_DOUBLE, down, 1, &u[0], n + 2, MPI_DOUBLE, up, 1,
		             MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		rbr_end("halo");
		rbr_begin("compute");
		double local = 0;
		for (int i = 1; i <= n; i++) {
			for (int j = 1; j <= n; j++) {
				size_t k = (size_t)i * w + (size_t)j;
				v[k] = 0.25 * (u[k - 1] + u[k + 1] + u[k - w] + u[k + w]);
				local += (v[k] - u[k]) * (v[k] - u[k]);
			}
		}
		double *t = u;
		u = v;
		v = t;
		rbr_end("compute");
		rbr_begin("residual");
		MPI_Allreduce(&local, &res, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
		rbr_end("residual");
	}
	if (rank == 0) {
		printf("residual after %d iterations: %g\n", iters, sqrt(res));
	}
	if (rbr_stop() != 0) {
		fprintf(stderr, "stencil: %s\n", rbr_error());
		MPI_Abort(MPI_COMM_WORLD, 1);
	}
	free(u);
	free(v);
	MPI_Finalize();
	return 0;
}
