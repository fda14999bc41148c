//go:build cgo && !nompi

package mpi

/*
#include "rbmpi.h"
*/
import "C"

import (
	"fmt"
	"runtime"
)

var _ Preparer = (*comm)(nil)

// Prepare implements Preparer for the real binding: the vcoll family's
// count vectors are made in Go (vcoll_binding.go); a row whose C entry is
// phased (Op.Phased) makes its resources in its prepare phase
// (rb_prepare); every other call needs nothing, and gets a release that
// does nothing.
func (c *comm) Prepare(o *Observation) (release func() error, err error) {
	if err := c.live("Prepare"); err != nil {
		return nil, err
	}
	op := o.Call.Op()
	switch {
	case op == nil:
		return nil, errf("Prepare", "invalid call %v", o.Call)
	case op.Family == FamilyVColl: // vcoll
		return c.prepareVColl(o)
	case op.Phased:
		return c.preparePhased(o)
	}
	return func() error { return nil }, nil
}

// preparePhased runs the prepare phase of o's phased C entry, collectively,
// and returns the release, which runs its release phase. The buffers are
// pinned until then, since what the entry makes may keep their addresses
// (a persistent request does). It refuses a communicator that still holds
// what an earlier Prepare made.
func (c *comm) preparePhased(o *Observation) (func() error, error) {
	const fn = "Prepare"
	if err := o.Validate(c.size); err != nil {
		return nil, errf(fn, "%v", err)
	}
	if c.args.prepared != 0 {
		return nil, errf(fn, "%v: the communicator still holds the resources of an earlier Prepare (release it first)", o.Call)
	}
	var pin runtime.Pinner
	for _, b := range [][]byte{o.Send, o.Recv} {
		if len(b) > 0 {
			pin.Pin(&b[0])
		}
	}
	a := c.setArgs(o)
	if err := check(fmt.Sprintf("Prepare(%v)", o.Call), C.rb_prepare(a, ptr(o.Send), ptr(o.Recv), C.int(c.rank), c.h, C.RB_PHASE_PREPARE)); err != nil {
		pin.Unpin()
		return nil, err
	}
	return func() error {
		defer pin.Unpin()
		if c.args == nil {
			return errf("release", "communicator already finalized or freed")
		}
		return check(fmt.Sprintf("release(%v)", o.Call), C.rb_prepare(c.args, nil, nil, C.int(c.rank), c.h, C.RB_PHASE_RELEASE))
	}, nil
}

// callOnce implements callOncer: one call of o in C, without timestamps
// (the Go path of Observe, for clocks C cannot read), for the calls the
// Comm interface cannot express.
func (c *comm) callOnce(o *Observation) error {
	if err := c.live(o.Call.String()); err != nil {
		return err
	}
	if err := c.ensureVColl(o); err != nil { // vcoll: count vectors
		return err
	}
	if err := c.checkPrepared(o.Call.String(), o); err != nil {
		return err
	}
	a := c.setArgs(o)
	a.rot = C.int(o.CallIndex) // root_shift: rb_call_root rotates from the Go loop's call index
	return check(o.Call.String(), C.rb_call_once(a, ptr(o.Send), ptr(o.Recv), C.int(c.rank), c.h))
}
