//go:build cgo && !nompi

package mpi

/*
#include <stdlib.h>
#include "rbmpi.h"
*/
import "C"

import (
	"strings"
	"unsafe"
)

// ControlVariables reads every MPI_T control variable of the library
// (MPI_T_init_thread, MPI_T_cvar_get_num, MPI_T_cvar_get_info,
// MPI_T_cvar_handle_alloc, MPI_T_cvar_read, and MPI_T_enum_get_item for
// enumerations), then finalizes MPI_T. It may be called with or without
// MPI initialized, from the thread that initialized MPI. A variable bound
// to an MPI object, or whose value cannot be read, has an empty Value.
func ControlVariables() ([]ControlVariable, error) {
	var num C.int
	if err := check("MPI_T_init_thread", C.rb_mpit_init(&num)); err != nil {
		return nil, err
	}
	defer C.rb_mpit_finalize()
	const nameLen, valLen, typeLen, itemsLen = 256, 4096, 32, 8192
	buf := C.malloc(nameLen + valLen + typeLen + itemsLen)
	defer C.free(buf)
	name := (*C.char)(buf)
	val := (*C.char)(unsafe.Add(buf, nameLen))
	typ := (*C.char)(unsafe.Add(buf, nameLen+valLen))
	items := (*C.char)(unsafe.Add(buf, nameLen+valLen+typeLen))
	out := make([]ControlVariable, 0, int(num))
	for i := 0; i < int(num); i++ {
		var bound C.int
		if C.rb_mpit_cvar(C.int(i), name, nameLen, val, valLen, typ, typeLen, items, itemsLen, &bound) != 0 {
			continue
		}
		v := ControlVariable{Name: C.GoString(name), Value: C.GoString(val), Type: C.GoString(typ), Bound: bound != 0}
		if s := C.GoString(items); s != "" {
			v.Enum = strings.Split(s, ";")
		}
		out = append(out, v)
	}
	return out, nil
}
