/*
 * window: the pure-C reference for the window quality of reprobench's
 * windowed process synchronization (issues 6 and 29).
 *
 * It runs, in one mpirun, the same two experiments bench/window/run.sh
 * compares: W unrecorded warm-up observations and then N observations of an
 * 8-byte MPI_Allreduce (MPI_DOUBLE, MPI_SUM), first under
 *
 *     MPI_Barrier; t0 = now; call; t1 = now
 *
 * and then under a fixed window of WINDOW_US microseconds (Alg. 1 of paper
 * 000): per batch of 100 observations rank 0 broadcasts a start time 50 µs
 * plus one window ahead, observation i of the batch busy-waits until
 * start + i*window, takes t0 at the first clock reading at or after that
 * deadline, calls, takes t1. An observation is late when t0 exceeds its
 * deadline by more than 1 µs on any rank and expired when t1 passes the
 * next deadline on any rank; the flags are reduced with MPI_MAX after every
 * batch, as the engine does.
 *
 * The global clock is perfect: on one host (every rank has the same
 * processor name) CLOCK_MONOTONIC, which all ranks read; on the nodes of a
 * virtual cluster (different names, one kernel: the same
 * /proc/sys/kernel/random/boot_id) CLOCK_REALTIME, which time namespaces
 * do not move (they offset CLOCK_MONOTONIC and CLOCK_BOOTTIME only). Ranks
 * on different kernels are refused. That is perfect clock synchronization,
 * the best case any clock synchronization algorithm can reach, and no Go
 * code is involved: what this program loses to late starts, the machine
 * loses. Rank 0 prints the clock it used.
 *
 * WAIT says what a rank does until GUARD_US before each deadline (the rest
 * is always the spin): "spin" (default) reads the clock and nothing else,
 * as the engine does; "iprobe" calls MPI_Iprobe on a tag nobody sends
 * (MPI progress); "yield" calls sched_yield(). They compare what the wait
 * costs or buys (issue 29: neither changed the valid median across the
 * virtual cluster's nodes).
 *
 * Rank 0 writes OUTFILE with one row per observation:
 *     method,rep,runtime_s,errorcode,late_rank0_s,late_rank1_s,...
 * runtime_s is the local completion time (max over ranks of t1 - t0);
 * errorcode is 0 valid, 1 late, 2 expired, 3 both (the engine's codes).
 *
 * usage: mpirun -np P ./window N WARMUP WINDOW_US OUTFILE [WAIT [GUARD_US]]
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sched.h>
#include <time.h>

static clockid_t global_clock = CLOCK_MONOTONIC;

static inline long long now_ns(void) {
	struct timespec ts;
	clock_gettime(global_clock, &ts);
	return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* boot_id names the running kernel: ranks that read the same one share
 * CLOCK_REALTIME, whatever their namespaces. */
static void boot_id(char *buf, size_t n) {
	FILE *f = fopen("/proc/sys/kernel/random/boot_id", "r");
	memset(buf, 0, n);
	if (f) {
		if (!fgets(buf, (int)n, f))
			buf[0] = 0;
		fclose(f);
	}
}

/* wait_until spins until deadline; with mode 1 (MPI_Iprobe) or 2
 * (sched_yield) it first does that until guard ns before it. */
static void wait_until(long long deadline, int mode, long long guard) {
	int flag;
	if (mode == 1)
		while (now_ns() < deadline - guard)
			MPI_Iprobe(MPI_ANY_SOURCE, 32767, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
	else if (mode == 2)
		while (now_ns() < deadline - guard)
			sched_yield();
}

#define BATCH 100

int main(int argc, char **argv) {
	int provided;
	MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
	int rank, size;
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	if (argc < 5 || argc > 7) {
		if (rank == 0)
			fprintf(stderr, "usage: %s N WARMUP WINDOW_US OUTFILE [spin|iprobe|yield [GUARD_US]]\n", argv[0]);
		MPI_Abort(MPI_COMM_WORLD, 2);
	}
	int n = atoi(argv[1]), warmup = atoi(argv[2]);
	long long window = (long long)(atof(argv[3]) * 1000.0);
	const char *wait = argc > 5 ? argv[5] : "spin";
	int mode = strcmp(wait, "iprobe") == 0 ? 1 : strcmp(wait, "yield") == 0 ? 2 : 0;
	long long guard = argc > 6 ? (long long)(atof(argv[6]) * 1000.0) : 20000;
	if (n <= 0 || warmup < 0 || window <= 0 || guard < 0 || (mode == 0 && strcmp(wait, "spin") != 0)) {
		if (rank == 0)
			fprintf(stderr, "N and WINDOW_US must be positive, WARMUP and GUARD_US not negative, WAIT spin, iprobe or yield\n");
		MPI_Abort(MPI_COMM_WORLD, 2);
	}

	/* A perfect global clock: CLOCK_MONOTONIC on one host, CLOCK_REALTIME
	 * across the namespaced nodes of one kernel. */
	char host[MPI_MAX_PROCESSOR_NAME] = {0}, *hosts = NULL, boot[64], *boots = NULL;
	int len;
	MPI_Get_processor_name(host, &len);
	boot_id(boot, sizeof boot);
	if (rank == 0) {
		hosts = calloc((size_t)size, MPI_MAX_PROCESSOR_NAME);
		boots = calloc((size_t)size, sizeof boot);
	}
	MPI_Gather(host, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, hosts, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, 0,
	           MPI_COMM_WORLD);
	MPI_Gather(boot, sizeof boot, MPI_CHAR, boots, sizeof boot, MPI_CHAR, 0, MPI_COMM_WORLD);
	int same[2] = {1, boot[0] != 0}; /* one host name, one kernel */
	if (rank == 0)
		for (int r = 1; r < size; r++) {
			same[0] &= strcmp(hosts, hosts + (size_t)r * MPI_MAX_PROCESSOR_NAME) == 0;
			same[1] &= strcmp(boots, boots + (size_t)r * sizeof boot) == 0;
		}
	MPI_Bcast(same, 2, MPI_INT, 0, MPI_COMM_WORLD);
	if (!same[0] && !same[1]) {
		if (rank == 0)
			fprintf(stderr, "all ranks must run on one host or one kernel (the reference needs a clock all ranks read)\n");
		MPI_Abort(MPI_COMM_WORLD, 2);
	}
	if (!same[0])
		global_clock = CLOCK_REALTIME;
	if (rank == 0) {
		printf("window: %d ranks, global clock %s (%s), wait: ", size,
		       same[0] ? "CLOCK_MONOTONIC" : "CLOCK_REALTIME", same[0] ? "one host" : "namespaced nodes of one kernel");
		if (mode)
			printf("%s until %.1f us before each start, then spin\n", wait, (double)guard / 1e3);
		else
			printf("spin (busy-wait on the clock)\n");
		fflush(stdout);
	}

	double sbuf = 1, rbuf = 0;
	/* [0] barrier, [1] window: durations, late seconds, codes per rank. */
	double *dur[2], *late = malloc(sizeof(double) * n);
	int *code = calloc((size_t)n, sizeof(int));
	dur[0] = malloc(sizeof(double) * n);
	dur[1] = malloc(sizeof(double) * n);

	for (int i = -warmup; i < n; i++) {
		MPI_Barrier(MPI_COMM_WORLD);
		long long t0 = now_ns();
		MPI_Allreduce(&sbuf, &rbuf, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
		long long t1 = now_ns();
		if (i >= 0)
			dur[0][i] = (double)(t1 - t0) / 1e9;
	}

	double flags[2 * BATCH], red[2 * BATCH];
	for (int first = -warmup; first < n; first += BATCH) {
		int b = n - first < BATCH ? n - first : BATCH;
		long long start = 0;
		if (rank == 0)
			start = now_ns() + 50000 + window;
		MPI_Bcast(&start, 1, MPI_LONG_LONG, 0, MPI_COMM_WORLD);
		for (int i = 0; i < b; i++) {
			long long deadline = start + (long long)i * window, t0, t1;
			wait_until(deadline, mode, guard);
			do {
				t0 = now_ns();
			} while (t0 < deadline);
			MPI_Allreduce(&sbuf, &rbuf, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
			t1 = now_ns();
			flags[i] = t0 - deadline > 1000 ? 1 : 0;
			flags[b + i] = t1 > deadline + window ? 1 : 0;
			int k = first + i;
			if (k >= 0) {
				dur[1][k] = (double)(t1 - t0) / 1e9;
				late[k] = (double)(t0 - deadline) / 1e9;
			}
		}
		MPI_Allreduce(flags, red, 2 * b, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
		for (int i = 0; i < b; i++)
			if (first + i >= 0)
				code[first + i] = (red[i] != 0 ? 1 : 0) | (red[b + i] != 0 ? 2 : 0);
	}

	double *all = rank == 0 ? malloc(sizeof(double) * (size_t)n * size) : NULL;
	double *alllate = rank == 0 ? malloc(sizeof(double) * (size_t)n * size) : NULL;
	double *allwin = rank == 0 ? malloc(sizeof(double) * (size_t)n * size) : NULL;
	MPI_Gather(dur[0], n, MPI_DOUBLE, all, n, MPI_DOUBLE, 0, MPI_COMM_WORLD);
	MPI_Gather(dur[1], n, MPI_DOUBLE, allwin, n, MPI_DOUBLE, 0, MPI_COMM_WORLD);
	MPI_Gather(late, n, MPI_DOUBLE, alllate, n, MPI_DOUBLE, 0, MPI_COMM_WORLD);
	if (rank == 0) {
		FILE *f = fopen(argv[4], "w");
		if (!f) {
			perror(argv[4]);
			MPI_Abort(MPI_COMM_WORLD, 1);
		}
		fprintf(f, "method,rep,runtime_s,errorcode");
		for (int r = 0; r < size; r++)
			fprintf(f, ",late_rank%d_s", r);
		fprintf(f, "\n");
		for (int m = 0; m < 2; m++) {
			double *d = m == 0 ? all : allwin;
			for (int i = 0; i < n; i++) {
				double mx = d[i];
				for (int r = 1; r < size; r++)
					if (d[(size_t)r * n + i] > mx)
						mx = d[(size_t)r * n + i];
				fprintf(f, "%s,%d,%.9g,%d", m == 0 ? "barrier" : "window", i, mx, m == 0 ? 0 : code[i]);
				for (int r = 0; r < size; r++)
					fprintf(f, ",%.9g", m == 0 ? 0.0 : alllate[(size_t)r * n + i]);
				fprintf(f, "\n");
			}
		}
		fclose(f);
	}
	MPI_Finalize();
	return 0;
}
