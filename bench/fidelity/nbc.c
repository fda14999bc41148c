/*
 * nbc: a RE-IMPLEMENTATION of the timing loop of osu_iallreduce (the OSU
 * micro-benchmarks' non-blocking Allreduce with overlap), NOT the tool:
 * the OSU micro-benchmarks are not packaged by Debian 12 and this machine
 * reaches no other network. Written from OSU's published source structure
 * (osu_iallreduce.c and the non-blocking helpers of osu_util: dummy_compute,
 * do_compute_and_probe, do_compute_cpu, compute_on_host,
 * calculate_and_print_stats, print_stats_nbc). It is the reference for
 * `reprobench run --runtime osu --nbc-overlap --calls MPI_Iallreduce
 * --datatype float32 --clock mpi_wtime` (bench/fidelity/nbc.sh). Check our
 * numbers against the real tool wherever it is installed.
 *
 * One measurement = one run of OSU's loops at one message size = one line
 * osu_iallreduce prints:
 *
 *   phase 1 (pure): for i < skip + iter: t_start = MPI_Wtime();
 *       MPI_Iallreduce; MPI_Wait; t_stop = MPI_Wtime();
 *       if i >= skip: timer += t_stop - t_start; MPI_Barrier.
 *     latency = timer / iter on each rank (its own pure time).
 *   phase 2 (overlapped): for i < skip + iter: t_start = MPI_Wtime();
 *       MPI_Iallreduce; tcomp = MPI_Wtime();
 *       test = dummy_compute(latency, &request); tcomp = MPI_Wtime() - tcomp;
 *       MPI_Wait; t_stop = MPI_Wtime();
 *       if i >= skip: timer += t_stop - t_start, tcomp_total += tcomp,
 *       test_total += test; MPI_Barrier.
 *     dummy_compute: with P probes (OSU's -t), P times { compute for
 *       latency/P seconds; MPI_Test, its time added to test }; without,
 *       compute for latency seconds. "Compute for s seconds" is OSU's
 *       do_compute_cpu: while (elapsed < s) { t1 = MPI_Wtime();
 *       compute_on_host(); elapsed += MPI_Wtime() - t1 }, compute_on_host
 *       being x[i] = x[i] + a[i][j]*a[j][i] + y[j] over a DIM x DIM float
 *       matrix (DIM = 25 here; its value only sets the granularity of the
 *       time-targeted loop).
 *   Printed, each averaged over ranks (sum reduced to rank 0 / numprocs),
 *   per call: overall = timer/iter, compute = (tcomp - test)/iter,
 *   pure = latency, and overlap = max(0, 100 - (overall - compute) / pure
 *   * 100) %.
 *
 * MPI_Init, MPI_FLOAT / MPI_SUM, page-aligned 1 MiB buffers as OSU. Rank 0
 * writes R lines of pure_s,compute_s,total_s,overlap_frac (seconds, and the
 * overlap as a fraction) to OUTFILE.
 *
 * usage: mpirun -np 2 ./nbc osu BYTES ITER SKIP R OUTFILE [PROBES]
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define DIM 25
static float a[DIM][DIM], x[DIM], y[DIM];

static void compute_on_host(void) {
	for (int i = 0; i < DIM; i++)
		for (int j = 0; j < DIM; j++)
			x[i] = x[i] + a[i][j] * a[j][i] + y[j];
}

static void do_compute_cpu(double target) {
	double elapsed = 0;
	while (elapsed < target) {
		double t1 = MPI_Wtime();
		compute_on_host();
		elapsed += MPI_Wtime() - t1;
	}
}

static double dummy_compute(double seconds, MPI_Request *rq, int probes) {
	double test = 0;
	if (probes > 0) {
		for (int k = 0; k < probes; k++) {
			do_compute_cpu(seconds / probes);
			int flag;
			double t1 = MPI_Wtime();
			MPI_Test(rq, &flag, MPI_STATUS_IGNORE);
			test += MPI_Wtime() - t1;
		}
	} else {
		do_compute_cpu(seconds);
	}
	return test;
}

int main(int argc, char **argv) {
	MPI_Init(&argc, &argv);
	int rank, size;
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	if ((argc != 7 && argc != 8) || strcmp(argv[1], "osu") != 0) {
		if (rank == 0)
			fprintf(stderr, "usage: %s osu BYTES ITER SKIP R OUTFILE [PROBES]\n", argv[0]);
		MPI_Abort(MPI_COMM_WORLD, 2);
	}
	int bytes = atoi(argv[2]), iter = atoi(argv[3]), skip = atoi(argv[4]), R = atoi(argv[5]);
	int probes = argc == 8 ? atoi(argv[7]) : 0;
	if (bytes < 4 || bytes % 4 != 0 || iter < 1 || skip < 0 || R < 1 || probes < 0) {
		if (rank == 0)
			fprintf(stderr, "need BYTES a positive multiple of 4, ITER >= 1, SKIP >= 0, R >= 1, PROBES >= 0\n");
		MPI_Abort(MPI_COMM_WORLD, 2);
	}
	for (int i = 0; i < DIM; i++) {
		x[i] = y[i] = 1.0f;
		for (int j = 0; j < DIM; j++)
			a[i][j] = 2.0f;
	}
	/* As OSU allocates its collective buffers: page-aligned, its largest
	 * message size (1 MiB), so that glibc maps them with mmap, written
	 * before the first call (main's bench/fidelity/alloc.h does the same). */
	long page = sysconf(_SC_PAGESIZE);
	size_t len = bytes < (1 << 20) ? (1 << 20) : (size_t)bytes;
	void *sbuf = NULL, *rbuf = NULL;
	if (posix_memalign(&sbuf, page, len) || posix_memalign(&rbuf, page, len))
		MPI_Abort(MPI_COMM_WORLD, 1);
	memset(sbuf, 1, len);
	memset(rbuf, 0, len);
	int count = bytes / 4;
	FILE *f = NULL;
	if (rank == 0) {
		f = fopen(argv[6], "w");
		if (!f) {
			perror(argv[6]);
			MPI_Abort(MPI_COMM_WORLD, 1);
		}
		fprintf(f, "pure_s,compute_s,total_s,overlap_frac\n");
	}
	MPI_Request rq;
	for (int m = 0; m < R; m++) {
		MPI_Barrier(MPI_COMM_WORLD);
		double timer = 0;
		for (int i = 0; i < iter + skip; i++) {
			double t_start = MPI_Wtime();
			MPI_Iallreduce(sbuf, rbuf, count, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD, &rq);
			MPI_Wait(&rq, MPI_STATUS_IGNORE);
			double t_stop = MPI_Wtime();
			if (i >= skip)
				timer += t_stop - t_start;
			MPI_Barrier(MPI_COMM_WORLD);
		}
		MPI_Barrier(MPI_COMM_WORLD);
		double latency = timer / iter; /* this rank's pure time per call, s */
		double tcomp_total = 0, test_total = 0;
		timer = 0;
		for (int i = 0; i < iter + skip; i++) {
			double t_start = MPI_Wtime();
			MPI_Iallreduce(sbuf, rbuf, count, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD, &rq);
			double tcomp = MPI_Wtime();
			double test = dummy_compute(latency, &rq, probes);
			tcomp = MPI_Wtime() - tcomp;
			MPI_Wait(&rq, MPI_STATUS_IGNORE);
			double t_stop = MPI_Wtime();
			if (i >= skip) {
				timer += t_stop - t_start;
				tcomp_total += tcomp;
				test_total += test;
			}
			MPI_Barrier(MPI_COMM_WORLD);
		}
		/* calculate_and_print_stats: per call, summed over ranks at rank 0,
		 * divided by numprocs; print_stats_nbc's overlap. */
		double v[3] = {timer / iter, (tcomp_total - test_total) / iter, latency}, s[3];
		MPI_Reduce(v, s, 3, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
		if (rank == 0) {
			double overall = s[0] / size, compute = s[1] / size, pure = s[2] / size;
			double overlap = 1 - (overall - compute) / pure;
			if (overlap < 0)
				overlap = 0;
			fprintf(f, "%.9g,%.9g,%.9g,%.9g\n", pure, compute, overall, overlap);
		}
	}
	if (rank == 0)
		fclose(f);
	free(sbuf);
	free(rbuf);
	MPI_Finalize();
	return 0;
}
