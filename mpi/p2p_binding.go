//go:build cgo && !nompi

package mpi

/*
#include "rbmpi.h"
*/
import "C"

import (
	"fmt"
	"unsafe"
)

// prepareP2P creates the resources of a bandwidth or one-sided call (see
// p2p.go): the request array, and for one-sided calls the MPI window of
// Count elements per rank (collective). The release frees them; it must
// be called, collectively, before the next Prepare on c.
func (c *comm) prepareP2P(o *Observation) (func() error, error) {
	const fn = "Prepare"
	if err := o.Validate(c.size); err != nil {
		return nil, errf(fn, "%v", err)
	}
	a := c.args
	if a.reqs != nil || a.has_win != 0 {
		return nil, errf(fn, "%v: the communicator still holds the resources of an earlier Prepare (release it first)", o.Call)
	}
	a.rma_sync = C.int(o.RMASync)
	nreqs, win := 0, int64(-1)
	if o.Call.Bandwidth() {
		nreqs = 2 * o.Window()
	} else {
		win = int64(o.Count * o.Type.Size())
	}
	if err := check(fmt.Sprintf("Prepare(%v)", o.Call), C.rb_p2p_prepare(a, c.h, C.int(nreqs), C.int64_t(win))); err != nil {
		C.rb_p2p_release(a)
		return nil, err
	}
	return func() error {
		if c.args == nil {
			return errf("release", "communicator already finalized or freed")
		}
		return check(fmt.Sprintf("release(%v)", o.Call), C.rb_p2p_release(c.args))
	}, nil
}

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

// callOnce implements callOncer: one call of a p2p operation in C, without
// timestamps (the Go path of Observe, for clocks C cannot read).
func (c *comm) callOnce(o *Observation) error {
	if err := c.checkPrepared(o.Call.String(), o); err != nil {
		return err
	}
	return check(o.Call.String(), C.rb_call_once(c.setArgs(o), ptr(o.Send), ptr(o.Recv), C.int(c.rank), c.h))
}

// RMAWindow implements RMAWindower: this rank's part of the MPI window
// (C memory, valid until the release).
func (c *comm) RMAWindow() []byte {
	if c.args == nil || c.args.has_win == 0 || c.args.win_bytes == 0 {
		return nil
	}
	return unsafe.Slice((*byte)(c.args.win_base), int(c.args.win_bytes))
}
