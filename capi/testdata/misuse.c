/*
 * misuse: one of each misuse the C marks count, on every rank, then a
 * clean region. argv[1] is the output directory; when rbr_start fails it
 * prints "start failed: <message>" and exits 3 (every rank gets the same
 * error).
 */
#include <mpi.h>
#include <stdio.h>

#include "rbregion.h"

int main(int argc, char **argv) {
	MPI_Init(&argc, &argv);
	if (rbr_start(MPI_COMM_WORLD, argc > 1 ? argv[1] : "out") != 0) {
		printf("start failed: %s\n", rbr_error());
		MPI_Finalize();
		return 3;
	}
	rbr_end("nothing"); /* end_without_begin */
	rbr_begin("a,b");   /* bad_name: not recorded */
	rbr_end("a,b");     /* closes nothing */
	rbr_begin("outer");
	rbr_end("inner"); /* end_mismatch: closes outer */
	rbr_begin("fine");
	rbr_end("fine");
	rbr_begin("open"); /* unclosed at rbr_stop */
	rbr_stop();
	MPI_Finalize();
	return 0;
}
