/*
 * alloc.h: measurement buffers allocated as the suites users compare with
 * allocate theirs.
 *
 * OSU allocates one page-aligned buffer of its largest message size
 * (posix_memalign; 1 MiB for the collectives, 4 MiB for point-to-point),
 * IMB one of its largest message length (4 MiB), and reprobench's buffers
 * live in the Go heap. All three are memory that glibc or the Go runtime
 * maps with mmap, not memory from the brk heap. That matters: with
 * MPICH 4.0.2 (UCX, single-copy rendezvous through the kernel) on these
 * VMs, a 64 KiB ping-pong from malloc'ed buffers of exactly the message
 * size took 7.2-7.7 us and from mmap'ed ones 5.8-6.3 us (1.2x); Open MPI
 * without CMA showed no consistent difference (bench/fidelity/README.md).
 *
 * rb_alloc(len) returns len usable bytes from a page-aligned allocation of
 * at least 1 MiB, so that glibc serves it with mmap, as OSU's and IMB's
 * are; with BUFALLOC=exact in the environment it returns malloc(len)
 * instead, the naive per-size allocation, to show the difference.
 */
#ifndef RB_BENCH_ALLOC_H
#define RB_BENCH_ALLOC_H

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void *rb_alloc(size_t len) {
	const char *mode = getenv("BUFALLOC");
	if (mode && strcmp(mode, "exact") == 0)
		return malloc(len ? len : 1);
	size_t n = len < (1 << 20) ? (1 << 20) : len;
	void *p = NULL;
	if (posix_memalign(&p, (size_t)sysconf(_SC_PAGESIZE), n) != 0)
		return NULL;
	return p;
}

#endif
