//go:build cgo && !nompi

package mpi

/*
#include "rbmpi.h"
*/
import "C"

import "unsafe"

// checkPrepared refuses a p2p call whose resources Prepare has not
// created, or created for a smaller window or another synchronization.
func (c *comm) checkPrepared(fn string, o *Observation) error {
	a := c.args
	switch {
	case o.Call.Bandwidth():
		if a.reqs == nil || int(a.nreqs) < 2*o.Window() {
			return errf(fn, "%v with a window of %d needs its request array: call mpi.Prepare(comm, obs) once before the observations (and its release after them)", o.Call, o.Window())
		}
	case o.Call.OneSided():
		if a.has_win == 0 {
			return errf(fn, "%v needs an MPI window: call mpi.Prepare(comm, obs) once before the observations (and its release after them)", o.Call)
		}
		if int64(a.win_bytes) < int64(o.Count*o.Type.Size()) {
			return errf(fn, "%v of %d bytes: the prepared window holds %d bytes", o.Call, o.Count*o.Type.Size(), int64(a.win_bytes))
		}
		if (a.locked_all != 0) != (o.RMASync == RMAFlush) {
			return errf(fn, "%v with synchronization %v: the window was prepared for another synchronization", o.Call, o.RMASync)
		}
	}
	return nil
}

// RMAWindow implements rmaWindower: this rank's part of the MPI window
// (C memory, valid until the release).
func (c *comm) RMAWindow() []byte {
	if c.args == nil || c.args.has_win == 0 || c.args.win_bytes == 0 {
		return nil
	}
	return unsafe.Slice((*byte)(c.args.win_base), int(c.args.win_bytes))
}
