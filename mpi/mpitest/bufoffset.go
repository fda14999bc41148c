package mpitest

import (
	"fmt"
	"unsafe"

	"github.com/reprobench/reprobench/factor"
	"github.com/reprobench/reprobench/mpi"
)

// checkBufOffset refuses an observation whose send or receive buffer does
// not start where its buf_offset level (factor.BufOffset, a call
// parameter of every call with buffers) says: that many bytes after a
// page boundary, checked modulo 64, the cache line, which is what a
// misalignment changes in a copy's cost and what holds for every slot of
// the cycle and random cache modes (cache.NewBuffersAt). Level 0, the
// default, is not checked, so that observations on buffers of a program's
// own (the Go heap aligns small ones to 8 or 16 bytes) keep running.
func checkBufOffset(o *mpi.Observation) error {
	want, ok := o.Params.Get(factor.BufOffset)
	if !ok || want == 0 {
		return nil
	}
	for _, b := range []struct {
		name string
		p    []byte
	}{{"send", o.Send}, {"receive", o.Recv}} {
		if len(b.p) == 0 {
			continue
		}
		have := int64(uintptr(unsafe.Pointer(unsafe.SliceData(b.p))) % 64)
		if have != want%64 {
			return fmt.Errorf("%v: the %s buffer starts %d bytes after a 64-byte boundary, buf_offset %d says %d", o.Call, b.name, have, want, want%64)
		}
	}
	return nil
}
