//go:build cgo && !nompi

package main

/*
#include <stdint.h>
#include <stdlib.h>
#include "rbregion.h"

void rbr__setup(int64_t epoch, int32_t cap, int fd, int32_t every, int r);
void rbr__state(int64_t *acct, double *f, char **first, char **serr, int32_t *nn);
void rbr__set_error(char *msg);
*/
import "C"

import (
	"errors"
	"fmt"
	"time"
	"unsafe"

	"github.com/reprobench/reprobench/clocksync"
	"github.com/reprobench/reprobench/internal/cregion"
	"github.com/reprobench/reprobench/mpi"
	"github.com/reprobench/reprobench/region"
	"github.com/reprobench/reprobench/timing"
)

// The recording that rbr_start began: its communicator (a duplicate of
// the program's) and the Go recorder whose Close writes the C records.
var (
	comm mpi.Comm
	rec  *region.Recorder
)

// fail records err's message for rbr_error and returns the nonzero code.
func fail(err error) C.int {
	msg := C.CString(err.Error())
	defer C.free(unsafe.Pointer(msg))
	C.rbr__set_error(msg)
	return 1
}

//export rbrGoStart
func rbrGoStart(handle C.uintptr_t, dir *C.char) C.int {
	c, err := mpi.Adopt(uintptr(handle))
	if err != nil {
		return fail(fmt.Errorf("region: adopting the program's MPI: %w", err))
	}
	alg, err := clocksync.Default().New()
	if err != nil {
		return fail(errors.Join(fmt.Errorf("region: %w", err), c.Free()))
	}
	clk := timing.NewDefault()
	r, err := region.StartWith(c, clk, region.Options{Sync: alg, Spill: true},
		region.Output{Dir: C.GoString(dir), RunID: region.DefaultRunID(), PerRank: true})
	if err != nil {
		return fail(errors.Join(err, c.Free()))
	}
	fd := -1
	if f, ok := cregion.SpillFd(r); ok {
		fd = int(f)
	}
	C.rbr__setup(C.int64_t(clk.Source().Epoch), C.int32_t(region.DefaultCapacity), C.int(fd),
		C.int32_t(region.DefaultSpillEvery), C.int(c.Rank()))
	comm, rec = c, r
	return 0
}

//export rbrGoStop
func rbrGoStop() C.int {
	if rec == nil {
		return fail(errors.New("region: rbr_stop without a recording"))
	}
	g := &C.rbr_g
	var acct [8]C.int64_t
	var f [2]C.double
	var first, serr *C.char
	var nn C.int32_t
	C.rbr__state(&acct[0], &f[0], &first, &serr, &nn)
	st := &cregion.State{Capacity: int(g.cap), Depth: int(g.depth), Iter: int64(g.iter),
		Dropped: int64(acct[0]), Misuse: int64(acct[1]), FirstMisuse: C.GoString(first), PairNs: float64(f[0]),
		Spilled: int(g.spilled), NamesSpilled: int(acct[6]), Spills: int(acct[7]), Spill: time.Duration(float64(f[1]) * float64(time.Second)), SpillErr: C.GoString(serr)}
	for k := range st.Kinds {
		st.Kinds[k] = int64(acct[2+k])
	}
	for _, p := range unsafe.Slice(g.names, int(nn)) {
		st.Names = append(st.Names, C.GoString(p))
	}
	st.Recs = make([]cregion.Rec, int(g.n))
	for i, p := range unsafe.Slice(g.recs, int(g.n)) {
		st.Recs[i] = cregion.Rec{Start: int64(p.start), End: int64(p.end), Iter: int64(p.iter), Name: int32(p.name),
			Parent: int32(p.parent), Depth: int16(p.depth), Closed: p.closed != 0}
	}
	r, c := rec, comm
	rec, comm = nil, nil
	if err := cregion.Adopt(r, st); err != nil {
		return fail(errors.Join(err, c.Free()))
	}
	_, err := r.Stop()
	if err = errors.Join(err, c.Free()); err != nil {
		return fail(err)
	}
	return 0
}
