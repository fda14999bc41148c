//go:build cgo && linux

package cspin

/*
#include <stdint.h>
#include <time.h>

static inline int64_t rb_noise_now(void) {
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

// rb_spin_detours is spinDetours in C, without yields: it waits for start,
// then reads CLOCK_MONOTONIC until end, recording every gap of at least
// threshold ns between consecutive readings (at most max; the rest are
// counted in *dropped). In C the Go runtime cannot interrupt it: while a
// cgo call runs, the scheduler leaves the thread alone.
static void rb_spin_detours(int64_t start, int64_t end, int64_t threshold, int64_t *starts, int64_t *lens,
                            int64_t max, int64_t *n, int64_t *dropped, int64_t *reads, int64_t *first_out,
                            int64_t *last) {
	int64_t prev = rb_noise_now();
	while (prev < start) prev = rb_noise_now();
	int64_t first = prev, k = 0, d = 0, r = 0;
	for (;;) {
		int64_t t = rb_noise_now();
		r++;
		if (t - prev >= threshold) {
			if (k < max) {
				starts[k] = prev;
				lens[k] = t - prev;
				k++;
			} else {
				d++;
			}
		}
		prev = t;
		if (t >= end) break;
	}
	*n = k;
	*dropped = d;
	*reads = r;
	*first_out = first;
	*last = prev;
}
*/
import "C"

// Available reports whether Spin works in this build (cgo on Linux, where
// CLOCK_MONOTONIC is also the Go runtime's clock).
const Available = true

// Spin waits until CLOCK_MONOTONIC reaches start (ns), then reads it until
// end, recording every gap of at least threshold ns between consecutive
// readings: the reading before the gap in starts, its length in lens, at
// most len(starts) of them (the others are counted in dropped). reads is
// the number of readings, first and last the first and the last reading.
func Spin(start, end, threshold int64, starts, lens []int64) (n, dropped int, reads, first, last int64) {
	if len(starts) == 0 || len(lens) < len(starts) {
		panic("cspin: need len(lens) >= len(starts) > 0")
	}
	var cn, cd, cr, cf, cl C.int64_t
	C.rb_spin_detours(C.int64_t(start), C.int64_t(end), C.int64_t(threshold),
		(*C.int64_t)(&starts[0]), (*C.int64_t)(&lens[0]), C.int64_t(len(starts)), &cn, &cd, &cr, &cf, &cl)
	return int(cn), int(cd), int64(cr), int64(cf), int64(cl)
}
