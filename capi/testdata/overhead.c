/*
 * overhead: the cost of the C recorder's marks, in C alone. It starts a
 * recorder on MPI_COMM_SELF (output into argv[1]) and measures, as the
 * smallest of ROUNDS rounds of PAIRS iterations each (interference only
 * adds time, so the minimum is the machine's cost):
 *   clock_ns     one read of the recorder's clock (rbr__now)
 *   pair_ns      one enabled rbr_begin/rbr_end pair (2 clock reads inside)
 *   disabled_ns  one rbr_begin/rbr_end pair of a disabled recorder
 *   spill_ns     one record's share of a spill of SPILL records
 * Every loop body has a compiler barrier, so that the state is read at
 * each mark as in a program where other code separates them; the empty
 * loop with the barrier is loop_ns. It prints one line of name=value.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#include "rbregion.h"

#define ROUNDS 31
#define PAIRS 4096
#define SPILL 1024
#define BARRIER() __asm__ volatile("" ::: "memory")

static double min_of(double *v, int n) {
	double m = v[0];
	for (int i = 1; i < n; i++) {
		if (v[i] < m) m = v[i];
	}
	return m;
}

int main(int argc, char **argv) {
	MPI_Init(&argc, &argv);
	if (argc < 2 || rbr_start(MPI_COMM_SELF, argv[1]) != 0) {
		fprintf(stderr, "overhead: %s\n", argc < 2 ? "usage: overhead DIR" : rbr_error());
		MPI_Abort(MPI_COMM_WORLD, 1);
	}
	double loop[ROUNDS], clk[ROUNDS], pair[ROUNDS], off[ROUNDS], spill[ROUNDS];
	int64_t sink = 0;
	int32_t every = rbr_g.spill_every;
	rbr_g.spill_every = 1 << 30; /* no spill inside the pair loop */
	for (int r = 0; r < ROUNDS; r++) {
		int64_t t0 = rbr__now();
		for (int i = 0; i < PAIRS; i++) {
			BARRIER();
		}
		int64_t t1 = rbr__now();
		loop[r] = (double)(t1 - t0) / PAIRS;

		t0 = rbr__now();
		for (int i = 0; i < PAIRS; i++) {
			sink += rbr__now();
			BARRIER();
		}
		t1 = rbr__now();
		clk[r] = (double)(t1 - t0) / PAIRS;

		rbr_g.n = 0;
		rbr_g.spilled = 0;
		t0 = rbr__now();
		for (int i = 0; i < PAIRS; i++) {
			rbr_begin("compute");
			rbr_end("compute");
			BARRIER();
		}
		t1 = rbr__now();
		pair[r] = (double)(t1 - t0) / PAIRS;

		rbr_g.on = 0;
		t0 = rbr__now();
		for (int i = 0; i < PAIRS; i++) {
			rbr_begin("compute");
			rbr_end("compute");
			BARRIER();
		}
		t1 = rbr__now();
		rbr_g.on = 1;
		off[r] = (double)(t1 - t0) / PAIRS;

		/* one spill of the last SPILL records */
		rbr_g.spilled = rbr_g.n - SPILL;
		t0 = rbr__now();
		rbr__spill();
		t1 = rbr__now();
		spill[r] = (double)(t1 - t0) / SPILL;
	}
	rbr_g.n = 0;
	rbr_g.spilled = 0;
	rbr_g.spill_every = every;
	printf("loop_ns=%.2f clock_ns=%.2f pair_ns=%.2f pair_minus_2clock_ns=%.2f disabled_ns=%.2f "
	       "spill_ns=%.1f sink=%d\n",
	       min_of(loop, ROUNDS), min_of(clk, ROUNDS), min_of(pair, ROUNDS),
	       min_of(pair, ROUNDS) - 2 * min_of(clk, ROUNDS), min_of(off, ROUNDS), min_of(spill, ROUNDS),
	       (int)(sink & 1));
	if (rbr_stop() != 0) {
		fprintf(stderr, "overhead: %s\n", rbr_error());
		MPI_Abort(MPI_COMM_WORLD, 1);
	}
	MPI_Finalize();
	return 0;
}
