//go:build cgo && !nompi

// rbregion.c: the C side of the region recorder that is not inline: the
// state, the slow paths of rbregion.h (names seen for the first time,
// misuse, drops, spilling), the calibration, the entry points that call
// into Go (capi.go), and the Fortran entry points (fortran/rbregion.f90).
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "_cgo_export.h"
#include "rbregion.h"

rbr_state rbr_g = {.spill_fd = -1, .iter = -1};

// The names seen so far, valid or not, with their ids (-1: bad).
static struct {
	char *s;
	int32_t len, id;
} * seen;
static int32_t nseen, capseen, nnames, capnames;

// The account, in the kinds' order of region.Misuse.
enum { RBR_END_WITHOUT_BEGIN, RBR_END_MISMATCH, RBR_BAD_NAME, RBR_BAD_LABEL };
static int64_t kinds[4], misuse, dropped;
static char first_misuse[512];
static int rank;

// Spilling: names written, writes, their time (s), first error.
static int32_t names_spilled, spills;
static double spill_s;
static char spill_err[256];
static char *spill_buf;
static size_t spill_cap;

static double pair_ns;
static char err_msg[4096];
static int started;

static void set_error(const char *msg) { snprintf(err_msg, sizeof err_msg, "%s", msg); }

// rbr__set_error is called from Go with an error's message.
void rbr__set_error(char *msg) { set_error(msg); }

const char *rbr_error(void) { return err_msg; }

static int32_t name_len(const char *name, int32_t len) { return len < 0 ? (int32_t)strlen(name) : len; }

static int valid_name(const char *s, int32_t len) {
	if (len == 0) return 0;
	for (int32_t i = 0; i < len; i++) {
		if (s[i] == ',' || s[i] == '"' || s[i] == '\n' || s[i] == '\r' || s[i] == '\0') return 0;
	}
	return 1;
}

int32_t rbr__intern(const char *name, int32_t len, rbr_cache_ent *e) {
	len = name_len(name, len);
	int32_t k;
	for (k = 0; k < nseen; k++) {
		if (seen[k].len == len && memcmp(seen[k].s, name, (size_t)len) == 0) break;
	}
	if (k == nseen) {
		if (nseen == capseen) {
			capseen = capseen ? 2 * capseen : 16;
			seen = realloc(seen, (size_t)capseen * sizeof *seen);
		}
		char *copy = malloc((size_t)len + 1);
		memcpy(copy, name, (size_t)len);
		copy[len] = '\0';
		int32_t id = -1;
		if (valid_name(name, len)) {
			if (nnames == capnames) {
				capnames = capnames ? 2 * capnames : 16;
				rbr_g.names = realloc(rbr_g.names, (size_t)capnames * sizeof *rbr_g.names);
			}
			id = nnames++;
			rbr_g.names[id] = copy;
		}
		seen[k].s = copy;
		seen[k].len = len;
		seen[k].id = id;
		nseen++;
	}
	e->p = name;
	e->s = seen[k].s;
	e->len = len;
	e->id = seen[k].id;
	return seen[k].id;
}

static const char *kind_describe[4] = {
    "End without an open region",
    "End of another region than the innermost open one",
    "Begin with a region name that is empty or holds a comma, quote or line break (not recorded)",
    "SetLabel with a bad key or value (ignored)",
};

static void note_misuse(int kind, const char *call, const char *name, int32_t len, const char *in) {
	misuse++;
	kinds[kind]++;
	char what[512];
	if (in != NULL) {
		snprintf(what, sizeof what, "%s: %s(%.*s) in %s", kind_describe[kind], call, (int)len, name,
		         in);
	} else {
		snprintf(what, sizeof what, "%s: %s(%.*s)", kind_describe[kind], call, (int)len, name);
	}
	if (first_misuse[0] == '\0') snprintf(first_misuse, sizeof first_misuse, "%s", what);
	if (kinds[kind] == 1) {
		fprintf(stderr,
		        "region: rank %d: %s; counted, further ones of this kind are counted silently and "
		        "stated at Close\n",
		        rank, what);
	}
}

void rbr__begin_fail(int32_t id, const char *name, int32_t len) {
	rbr_state *s = &rbr_g;
	len = name_len(name, len);
	if (id < 0) {
		note_misuse(RBR_BAD_NAME, "Begin", name, len, NULL);
	} else {
		dropped++;
		if (dropped == 1) {
			char why[128];
			if (s->depth == RBR_MAX_DEPTH) {
				snprintf(why, sizeof why, "nesting deeper than MaxDepth (%d)", RBR_MAX_DEPTH);
			} else {
				snprintf(why, sizeof why, "the buffer of %d records is full", (int)s->cap);
			}
			fprintf(stderr,
			        "region: rank %d: %s: Begin records nothing from now on while it lasts "
			        "(dropped, counted and stated at Close)\n",
			        rank, why);
		}
	}
	if (s->depth < RBR_MAX_DEPTH) s->stack[s->depth++] = -1;
}

void rbr__end_fail(const char *name, int32_t len, int32_t rec) {
	len = name_len(name, len);
	if (rec < 0) {
		note_misuse(RBR_END_WITHOUT_BEGIN, "End", name, len, NULL);
	} else {
		note_misuse(RBR_END_MISMATCH, "End", name, len, rbr_g.names[rbr_g.recs[rec].name]);
	}
}

static void reserve(size_t need) {
	if (need > spill_cap) {
		spill_cap = need * 2;
		spill_buf = realloc(spill_buf, spill_cap);
	}
}

// rbr__spill appends the records not yet written (the rank is outside
// every region, so all are closed), the names they introduce and the
// account to the spill file in one write, in docs/data-format.md's spill
// format, and accounts its own time.
void rbr__spill(void) {
	rbr_state *s = &rbr_g;
	if (s->spill_fd < 0) return;
	int64_t t0 = rbr__now();
	size_t n = 0;
	reserve(4096 + (size_t)(s->n - s->spilled) * 120);
	if (s->spilled == 0 && names_spilled == 0) n += (size_t)sprintf(spill_buf + n, "labels\t0\t\n");
	for (; names_spilled < nnames; names_spilled++) {
		reserve(n + strlen(s->names[names_spilled]) + 64);
		n += (size_t)sprintf(spill_buf + n, "name\t%d\t%s\n", (int)names_spilled,
		                     s->names[names_spilled]);
	}
	reserve(n + (size_t)(s->n - s->spilled) * 120 + 512);
	for (int32_t i = s->spilled; i < s->n; i++) {
		rbr_rec *p = &s->recs[i];
		n += (size_t)sprintf(spill_buf + n, "r\t%d\t0\t%lld\t%d\t%lld\t%lld\n", (int)p->name,
		                     (long long)p->iter, (int)p->depth, (long long)p->start,
		                     (long long)p->end);
	}
	n += (size_t)sprintf(spill_buf + n, "account\t%lld\t%lld\t%lld\t%lld\t%lld\t%lld\n",
	                     (long long)misuse, (long long)dropped, (long long)kinds[0], (long long)kinds[1],
	                     (long long)kinds[2], (long long)kinds[3]);
	n += (size_t)sprintf(spill_buf + n, "spilled\t%d\t%.17g\n", (int)spills, spill_s);
	s->spilled = s->n;
	for (size_t off = 0; off < n && spill_err[0] == '\0';) {
		ssize_t w = write(s->spill_fd, spill_buf + off, n - off);
		if (w < 0) {
			snprintf(spill_err, sizeof spill_err, "write to the spill file failed");
			break;
		}
		off += (size_t)w;
	}
	spills++;
	spill_s += (double)(rbr__now() - t0) * 1e-9;
}

static int cmp_double(const void *a, const void *b) {
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

// calibrate measures an enabled Begin/End pair (median of 7 rounds of 64
// pairs, as region.New does for Go), on a scratch buffer, and restores the
// state.
static double calibrate(void) {
	rbr_state *s = &rbr_g;
	rbr_rec scratch[64];
	rbr_rec *recs = s->recs;
	int32_t cap = s->cap, every = s->spill_every;
	s->recs = scratch;
	s->cap = 64;
	s->spill_every = 1 << 30;
	s->on = 1;
	double per[7];
	for (int k = 0; k < 7; k++) {
		s->n = 0;
		int64_t t0 = rbr__now();
		for (int i = 0; i < 64; i++) {
			rbr_begin("calibration");
			rbr_end("calibration");
		}
		per[k] = (double)(rbr__now() - t0) / 64;
	}
	s->on = 0;
	s->n = 0;
	s->recs = recs;
	s->cap = cap;
	s->spill_every = every;
	// forget the scratch name
	for (int32_t k = 0; k < nseen; k++)
		free(seen[k].s);
	nseen = 0;
	nnames = 0;
	memset(s->cache, 0, sizeof s->cache);
	qsort(per, 7, sizeof per[0], cmp_double);
	return per[3];
}

// rbr__setup is called from Go (rbrGoStart) with the recorder's clock
// epoch, capacity, spill file and interval, and the rank.
void rbr__setup(int64_t epoch, int32_t cap, int fd, int32_t every, int r) {
	rbr_state *s = &rbr_g;
	s->epoch = epoch;
	s->recs = calloc((size_t)cap, sizeof *s->recs);
	s->cap = cap;
	s->spill_fd = fd;
	s->spill_every = fd >= 0 ? every : INT32_MAX;
	rank = r;
}

int rbr_start(MPI_Comm comm, const char *dir) {
	if (started) {
		set_error("region: rbr_start called twice");
		return 1;
	}
	started = 1;
	if (dir == NULL) return 0;
	int rc = rbrGoStart((uintptr_t)comm, (char *)dir);
	if (rc != 0) return rc;
	pair_ns = calibrate();
	rbr_g.iter = -1;
	rbr_g.on = 1;
	return 0;
}

// rbr__state hands the state to Go at rbr_stop.
void rbr__state(int64_t *acct, double *f, char **first, char **serr, int32_t *nn) {
	acct[0] = dropped;
	acct[1] = misuse;
	for (int k = 0; k < 4; k++)
		acct[2 + k] = kinds[k];
	acct[6] = names_spilled;
	acct[7] = spills;
	f[0] = pair_ns;
	f[1] = spill_s;
	*first = first_misuse;
	*serr = spill_err;
	*nn = nnames;
}

int rbr_stop(void) {
	if (!started) {
		set_error("region: rbr_stop without rbr_start");
		return 1;
	}
	if (!rbr_g.on) return 0; // disabled, or stopped already
	rbr_g.on = 0;
	return rbrGoStop();
}

// Fortran entry points (fortran/rbregion.f90): the communicator is a
// Fortran handle, strings come with their lengths.
int rbrf_start(MPI_Fint comm, const char *dir, int len) {
	if (len < 0) return rbr_start(MPI_Comm_f2c(comm), NULL);
	char *d = malloc((size_t)len + 1);
	memcpy(d, dir, (size_t)len);
	d[len] = '\0';
	int rc = rbr_start(MPI_Comm_f2c(comm), d);
	free(d);
	return rc;
}
int rbrf_stop(void) { return rbr_stop(); }
void rbrf_begin(const char *name, int len) { rbr__begin(name, len); }
void rbrf_end(const char *name, int len) { rbr__end(name, len); }
void rbrf_iter(int64_t iter) { rbr_iter(iter); }
// rbrf_error copies the message into buf (blank-padded to len), returns
// its length.
int rbrf_error(char *buf, int len) {
	int n = (int)strlen(err_msg);
	for (int i = 0; i < len; i++)
		buf[i] = i < n ? err_msg[i] : ' ';
	return n;
}
