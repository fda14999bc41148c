/*
 * Preloaded into MPICH ranks on the virtual cluster (vcluster.LauncherArgs).
 *
 * MPICH 4.0.2 (ch4:ucx) closes every UCX endpoint in MPI_Finalize in flush
 * mode and only then enters its PMI barrier (MPIDI_UCX_mpi_finalize_hook).
 * With UCX 1.13's tcp transport, a rank that reaches MPI_Finalize after its
 * peers have closed their end of a connection waits for its flush forever:
 * the peers sit in the PMI barrier and no longer progress UCX. It happens on
 * one host as well (UCX_TLS=tcp, one rank 0.5 s late: 5 of 5 runs hung), so
 * it is not the namespaces. MPICH 4.1 moved the PMI barrier before the
 * disconnect; this shim does the same from outside, and more:
 *
 *  1. before the first ucp_disconnect_nb it enters a PMI-1 barrier of its
 *     own (cmd=barrier_in on PMI_FD, the fd MPICH's PMI client uses, idle at
 *     this point), so no rank closes an endpoint before every rank is in
 *     MPI_Finalize;
 *  2. from then on ucp_request_is_completed (called by MPICH only in that
 *     finalize loop) reports a close as complete 2 s after the barrier at
 *     the latest: once every rank is inside MPI_Finalize, a correct program
 *     has received every message it will receive, so nothing it needs is in
 *     flight; the barrier alone still loses the race to a slower rank.
 *
 * And one thing MPICH 4.0.2 has no setting for: with RBVC_MPICH_YIELD=1 in
 * the environment (LauncherArgs sets it), a call of ucp_worker_progress
 * that found nothing to do ends with sched_yield(), which is what Open
 * MPI's mpi_yield_when_idle does in its progress loop. More ranks than
 * cores busy-polling otherwise starve each other and the softirq that
 * moves the packets between namespaces (MPIR_CVAR_POLLS_BEFORE_YIELD
 * belongs to ch3's nemesis; ch4:ucx never yields).
 *
 * Types are opaque pointers so that no UCX headers are needed to build it.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

typedef void *ucp_ep_h;
typedef void *ucs_status_ptr_t;

static int in_finalize;
static struct timespec give_up;

/* pmi_barrier: the PMI-1 wire protocol's barrier (one line out, one in). */
static void pmi_barrier(void)
{
	const char *s = getenv("PMI_FD");
	if (s == NULL)
		return;
	int fd = atoi(s);
	const char msg[] = "cmd=barrier_in\n";
	size_t off = 0;
	while (off < sizeof msg - 1) {
		ssize_t n = write(fd, msg + off, sizeof msg - 1 - off);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return;
		off += (size_t)n;
	}
	char c;
	for (;;) { /* byte by byte: leave nothing for MPICH's reader */
		ssize_t n = read(fd, &c, 1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0 || c == '\n')
			return;
	}
}

ucs_status_ptr_t ucp_disconnect_nb(ucp_ep_h ep)
{
	static ucs_status_ptr_t (*real)(ucp_ep_h);
	if (real == NULL)
		real = (ucs_status_ptr_t(*)(ucp_ep_h))dlsym(RTLD_NEXT, "ucp_disconnect_nb");
	if (!in_finalize) {
		in_finalize = 1;
		pmi_barrier();
		clock_gettime(CLOCK_MONOTONIC, &give_up);
		give_up.tv_sec += 2;
	}
	return real(ep);
}

int ucp_request_is_completed(void *req)
{
	static int (*real)(void *);
	if (real == NULL)
		real = (int (*)(void *))dlsym(RTLD_NEXT, "ucp_request_is_completed");
	if (real(req))
		return 1;
	if (!in_finalize)
		return 0;
	struct timespec now;
	clock_gettime(CLOCK_MONOTONIC, &now);
	return now.tv_sec > give_up.tv_sec ||
	       (now.tv_sec == give_up.tv_sec && now.tv_nsec >= give_up.tv_nsec);
}

unsigned ucp_worker_progress(void *worker)
{
	static unsigned (*real)(void *);
	static int yield = -1;
	if (real == NULL)
		real = (unsigned (*)(void *))dlsym(RTLD_NEXT, "ucp_worker_progress");
	if (yield < 0) {
		const char *s = getenv("RBVC_MPICH_YIELD");
		yield = s != NULL && strcmp(s, "1") == 0;
	}
	unsigned n = real(worker);
	if (n == 0 && yield)
		sched_yield();
	return n;
}
