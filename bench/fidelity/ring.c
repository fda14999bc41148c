/*
 * ring: shows Open MPI's fast-box state inside one mpirun (issue 30).
 *
 * Blocks of 1000 observations of `MPI_Barrier; t0; MPI_Allreduce (8 B,
 * MPI_DOUBLE); t1` (50 unrecorded before each), with one move before each
 * block as SEQ says:
 *
 *   0  nothing
 *   a  one empty message from rank 0 to rank 1
 *   b  one empty message from rank 1 to rank 0
 *   c  a round trip of empty messages (one each way)
 *   B  one MPI_Barrier
 *   X  one MPI_Allreduce of 800 doubles
 *   L  the levelling word (below): a ping-pong of 568 messages of 1-8
 *      fast-box slots each way, which takes each direction's ring to
 *      slot 9 from any slot if the ring is as modelled (127 slots of 32
 *      bytes, 16-byte match and 8-byte fast-box headers, skip to the
 *      first slot when a message does not fit)
 *
 * The durations stay on the ranks until the end (one MPI_Reduce, MPI_MAX
 * per observation), so nothing but the moves happens between blocks. Rank 0
 * prints one line: per block its move and the median of the largest
 * duration over the ranks, in ns. Seen with Open MPI 4.1.4 on 2 vCPUs
 * (2026-11-27): every a or b flips between two levels (0.59-0.65 µs and
 * 0.70-1.18 µs), c, B and X do not.
 *
 * usage: mpirun -np 2 ./ring SEQ        e.g. ./ring 0aaaaaaaa0bbbbbbbb
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { OBS = 1000, WARM = 50, MAXBLOCKS = 64 };
static long long dur[MAXBLOCKS][OBS], worst[MAXBLOCKS][OBS];

/* One digit per message: the 32-byte fast-box slots it takes. */
static const char level_word[] =
	"888888888888888817888888888888888817888888888888888817888888888888888817"
	"888888888888888817888888888888888817888888888888888817888888888888888826"
	"881888888888888878888888888888888288688188888888888887888888888888888828"
	"868818888888888888788888888888888882886881888888888888878888888888888888"
	"488488883888888888885888288888888888868818888888888888788888888888888884"
	"888888488883888888888885888288888888888868818888888888888788888888888888"
	"888888888788888881888888868888888828888885888888888388888488888888884888"
	"8388888888888588828888888888886881888888888888878888888888888888";

/* level plays level_word as a ping-pong: the payload of an s-slot
 * message is 32 s - 40 bytes (0 for one slot), s slots with a match header
 * of 8 to 24 bytes and the fast box's 8. */
static void level(int rank) {
	static char buf[256];
	for (const char *p = level_word; *p; p++) {
		int n = 32 * (*p - '0') - 40;
		if (n < 0)
			n = 0;
		if (rank == 0) {
			MPI_Send(buf, n, MPI_BYTE, 1, 8, MPI_COMM_WORLD);
			MPI_Recv(buf, n, MPI_BYTE, 1, 8, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		} else if (rank == 1) {
			MPI_Recv(buf, n, MPI_BYTE, 0, 8, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
			MPI_Send(buf, n, MPI_BYTE, 0, 8, MPI_COMM_WORLD);
		}
	}
}

static long long now_ns(void) {
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static int cmp(const void *a, const void *b) {
	long long x = *(const long long *)a, y = *(const long long *)b;
	return x < y ? -1 : x > y;
}

static void one_way(int rank, int from) {
	if (rank == from)
		MPI_Send(NULL, 0, MPI_BYTE, 1 - from, 7, MPI_COMM_WORLD);
	else if (rank == 1 - from)
		MPI_Recv(NULL, 0, MPI_BYTE, from, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
}

int main(int argc, char **argv) {
	MPI_Init(&argc, &argv);
	int rank, size;
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	if (argc != 2 || size != 2 || strlen(argv[1]) > MAXBLOCKS || strspn(argv[1], "0abcBXL") != strlen(argv[1])) {
		if (rank == 0)
			fprintf(stderr, "usage: mpirun -np 2 %s SEQ (at most %d of 0 a b c B X L)\n", argv[0], MAXBLOCKS);
		MPI_Abort(MPI_COMM_WORLD, 2);
	}
	const char *seq = argv[1];
	int blocks = (int)strlen(seq);
	double in = 1, out;
	static double big[800], bigout[800];
	for (int k = 0; k < blocks; k++) {
		switch (seq[k]) {
		case 'a': one_way(rank, 0); break;
		case 'b': one_way(rank, 1); break;
		case 'c': one_way(rank, 0); one_way(rank, 1); break;
		case 'B': MPI_Barrier(MPI_COMM_WORLD); break;
		case 'X': MPI_Allreduce(big, bigout, 800, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD); break;
		case 'L': level(rank); break;
		}
		for (int i = -WARM; i < OBS; i++) {
			MPI_Barrier(MPI_COMM_WORLD);
			long long t0 = now_ns();
			MPI_Allreduce(&in, &out, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
			long long t1 = now_ns();
			if (i >= 0)
				dur[k][i] = t1 - t0;
		}
	}
	MPI_Reduce(dur, worst, MAXBLOCKS * OBS, MPI_LONG_LONG, MPI_MAX, 0, MPI_COMM_WORLD);
	if (rank == 0) {
		for (int k = 0; k < blocks; k++) {
			qsort(worst[k], OBS, sizeof worst[k][0], cmp);
			printf("%c%lld ", seq[k], worst[k][OBS / 2]);
		}
		printf("\n");
	}
	MPI_Finalize();
	return 0;
}
