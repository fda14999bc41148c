// rbmpi_mpit.h: the MPI tool information interface's control variables
// (MPI_T cvars), read for the record of the library's configuration.
//
// rb_mpit_init initializes MPI_T (it may be called before MPI_Init and
// without it); rb_mpit_cvar reads control variable i: its name, its value
// as text, its datatype's name, and its enumeration's items as
// "value=name" joined by ';'. Variables bound to an MPI object (a
// communicator, a window, …) have no value without one: they are
// reported with an empty value and binding > 0.
#ifndef RBMPI_MPIT_H
#define RBMPI_MPIT_H

#include <mpi.h>
#include "rbmpi_types.h"
#include <stdio.h>
#include <string.h>

static int rb_mpit_init(int *num) {
	int provided;
	int err = MPI_T_init_thread(MPI_THREAD_SINGLE, &provided);
	if (err != MPI_SUCCESS) return err;
	return MPI_T_cvar_get_num(num);
}

static int rb_mpit_finalize(void) { return MPI_T_finalize(); }

static const char *rb_mpit_type_name(MPI_Datatype t) {
	if (t == MPI_INT) return "int";
	if (t == MPI_UNSIGNED) return "unsigned";
	if (t == MPI_UNSIGNED_LONG) return "unsigned_long";
	if (t == MPI_UNSIGNED_LONG_LONG) return "unsigned_long_long";
	if (t == MPI_COUNT) return "count";
	if (t == MPI_CHAR) return "char";
	if (t == MPI_DOUBLE) return "double";
#ifdef MPI_C_BOOL
	if (t == MPI_C_BOOL) return "bool";
#endif
	return "other";
}

// rb_mpit_cvar reads control variable i into name (namelen bytes), value
// (vallen), type (typelen) and items (itemslen); binding receives the
// variable's MPI_T binding (0: none). It returns an MPI error code; a
// value it cannot read is left empty.
static int rb_mpit_cvar(int i, char *name, int namelen, char *value, int vallen, char *type, int typelen,
                        char *items, int itemslen, int *binding) {
	int nl = namelen, verb, bind, scope, dl = 0;
	MPI_Datatype dt;
	MPI_T_enum en;
	name[0] = value[0] = type[0] = items[0] = 0;
	int err = MPI_T_cvar_get_info(i, name, &nl, &verb, &dt, &en, NULL, &dl, &bind, &scope);
	if (err != MPI_SUCCESS) return err;
	*binding = bind != MPI_T_BIND_NO_OBJECT;
	snprintf(type, typelen, "%s", rb_mpit_type_name(dt));
	if (en != MPI_T_ENUM_NULL) {
		int num = 0, el = 0;
		char ename[256];
		el = sizeof ename;
		if (MPI_T_enum_get_info(en, &num, ename, &el) == MPI_SUCCESS) {
			int off = 0;
			for (int j = 0; j < num && off < itemslen - 1; j++) {
				int v, il = sizeof ename;
				if (MPI_T_enum_get_item(en, j, &v, ename, &il) != MPI_SUCCESS) break;
				int n = snprintf(items + off, itemslen - off, "%s%d=%s", j ? ";" : "", v, ename);
				if (n < 0 || n >= itemslen - off) { items[off] = 0; break; }
				off += n;
			}
		}
	}
	if (*binding) return MPI_SUCCESS;
	MPI_T_cvar_handle h;
	int count = 0;
	err = MPI_T_cvar_handle_alloc(i, NULL, &h, &count);
	if (err != MPI_SUCCESS) return MPI_SUCCESS; // listed, value unreadable
	if (dt == MPI_CHAR) {
		char buf[4096];
		if (count < (int)sizeof buf && MPI_T_cvar_read(h, buf) == MPI_SUCCESS) {
			buf[count > 0 ? count : 0] = 0;
			buf[sizeof buf - 1] = 0;
			snprintf(value, vallen, "%s", buf);
		}
	} else if (count == 1) {
		union { int i; unsigned u; unsigned long ul; unsigned long long ull; MPI_Count c; double d; char b[64]; } v;
		memset(&v, 0, sizeof v);
		if (MPI_T_cvar_read(h, &v) == MPI_SUCCESS) {
			if (dt == MPI_INT) snprintf(value, vallen, "%d", v.i);
			else if (dt == MPI_UNSIGNED) snprintf(value, vallen, "%u", v.u);
			else if (dt == MPI_UNSIGNED_LONG) snprintf(value, vallen, "%lu", v.ul);
			else if (dt == MPI_UNSIGNED_LONG_LONG) snprintf(value, vallen, "%llu", v.ull);
			else if (dt == MPI_COUNT) snprintf(value, vallen, "%lld", (long long)v.c);
			else if (dt == MPI_DOUBLE) snprintf(value, vallen, "%g", v.d);
#ifdef MPI_C_BOOL
			else if (dt == MPI_C_BOOL) snprintf(value, vallen, "%d", (int)v.b[0]);
#endif
		}
	}
	MPI_T_cvar_handle_free(&h);
	return MPI_SUCCESS;
}

#endif
