// A C++ program recording one region through rbregion.h (its extern "C"
// block): TestCXX in capi builds it with mpicxx and runs it at np 2.
#include "rbregion.h"
#include <cstdio>
#include <mpi.h>
#include <vector>

int main(int argc, char **argv) {
	MPI_Init(&argc, &argv);
	if (rbr_start(MPI_COMM_WORLD, argc > 1 ? argv[1] : "out") != 0) {
		std::fprintf(stderr, "cxx: %s\n", rbr_error());
		MPI_Abort(MPI_COMM_WORLD, 1);
	}
	std::vector<double> v(1024, 1.0);
	double sum = 0;
	for (int i = 0; i < 100; i++) {
		rbr_iter(i);
		rbr_begin("work");
		for (double x : v)
			sum += x;
		rbr_end("work");
	}
	if (rbr_stop() != 0) std::fprintf(stderr, "cxx: %s\n", rbr_error());
	std::printf("cxx: sum %g\n", sum);
	MPI_Finalize();
	return 0;
}
