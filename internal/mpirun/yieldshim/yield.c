/*
 * Preloaded into MPICH ranks that run on more ranks than cores
 * (mpirun.Flavor.Args): a call of ucp_worker_progress that found nothing to
 * do ends with sched_yield(). MPICH 4.0.2's ch4:ucx polls without ever
 * yielding (MPIR_CVAR_POLLS_BEFORE_YIELD belongs to ch3's nemesis), so 8
 * busy-polling ranks on 2 cores wait for the scheduler's time slices at
 * every message: the binding's checks took 92 s at 8 ranks, 1.1 s with
 * this (issue #32). Open MPI does the same by itself when oversubscribed
 * (mpi_yield_when_idle). Nothing MPICH computes changes, only who runs.
 *
 * ucp_worker_progress is called once per pass of MPICH's progress loop
 * (ch4's netmod progress), also on one node where the shared-memory path
 * moves the data. Types are opaque so that no UCX headers are needed.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <sched.h>

unsigned ucp_worker_progress(void *worker)
{
	static unsigned (*real)(void *);
	if (real == 0)
		real = (unsigned (*)(void *))dlsym(RTLD_NEXT, "ucp_worker_progress");
	unsigned n = real(worker);
	if (n == 0)
		sched_yield();
	return n;
}
