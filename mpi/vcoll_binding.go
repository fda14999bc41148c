//go:build cgo && !nompi

package mpi

/*
#include "rbmpi.h"
*/
import "C"

import "unsafe"

// The real binding's side of the vcoll calls (vcoll.go): the count and
// displacement vectors and the Cartesian communicator live in C memory,
// in the fields vc_* of the communicator's rb_args, so that the timed part
// reads them without any Go in between.

// prepareVColl builds what o's call needs (Preparer) and returns its
// release, which frees the vectors and the Cartesian communicator
// (collectively).
func (c *comm) prepareVColl(o *Observation) (func() error, error) {
	const fn = "Prepare"
	if err := c.live(fn); err != nil {
		return nil, err
	}
	if err := o.Validate(c.size); err != nil {
		return nil, errf(fn, "%v", err)
	}
	if err := c.ensureVColl(o); err != nil {
		return nil, err
	}
	return c.releaseVColl, nil
}

// ensureVColl makes c.args's vc_ fields describe o's call (a no-op when
// they already do, or when o's call is not a vcoll call). Observe and
// ObserveBatch call it before the timed part, so an observation that was
// not prepared (mpi.Prepare) is prepared on its first use, and a prepared
// one pays four comparisons.
func (c *comm) ensureVColl(o *Observation) error {
	if !o.Call.IsVColl() {
		return nil
	}
	a := c.args
	skew := max(o.Skew, 1)
	if !o.Call.Skewable() {
		skew = 1
	}
	if a.vc_ready != 0 && int(a.vc_call) == int(o.Call) && int(a.vc_n) == o.Count && int(a.vc_skew) == skew {
		return nil
	}
	a.vc_ready = 0
	c.freeVectors()
	p := c.size
	l := VCounts(o.Call, o.Count, skew, p, c.rank)
	a.vc_call, a.vc_n, a.vc_skew = C.int(o.Call), C.int(o.Count), C.int(skew)
	a.vc_scount, a.vc_rcount = C.int(l.SendCount), C.int(l.RecvCount)
	a.vc_next, a.vc_prev = C.int((c.rank+1)%p), C.int((c.rank-1+p)%p)
	a.vc_sc, a.vc_sd = cInts(l.SendCounts), cInts(l.SendDispls)
	a.vc_rc, a.vc_rd = cInts(l.RecvCounts), cInts(l.RecvDispls)
	if o.Call == CallNeighborAlltoall && a.vc_has_cart == 0 {
		dims := (*C.int)(C.calloc(2, C.sizeof_int))
		defer C.free(unsafe.Pointer(dims))
		if err := check("MPI_Cart_create", C.rb_vcoll_cart(c.h, C.int(p), dims, &a.vc_cart)); err != nil {
			return err
		}
		a.vc_has_cart = 1
	}
	a.vc_ready = 1
	return nil
}

// cInts copies v into C memory (nil for an empty v).
func cInts(v []int) *C.int {
	if len(v) == 0 {
		return nil
	}
	m := unsafe.Slice((*C.int)(C.malloc(C.size_t(len(v))*C.sizeof_int)), len(v))
	for i, x := range v {
		m[i] = C.int(x)
	}
	return &m[0]
}

func (c *comm) freeVectors() {
	a := c.args
	for _, p := range []**C.int{&a.vc_sc, &a.vc_sd, &a.vc_rc, &a.vc_rd} {
		if *p != nil {
			C.free(unsafe.Pointer(*p))
			*p = nil
		}
	}
}

// releaseVColl frees the vectors and, collectively, the Cartesian
// communicator.
func (c *comm) releaseVColl() error {
	a := c.args
	if a == nil {
		return nil
	}
	a.vc_ready = 0
	c.freeVectors()
	if a.vc_has_cart != 0 {
		a.vc_has_cart = 0
		return check("MPI_Comm_free", C.rb_vcoll_cart_free(&a.vc_cart))
	}
	return nil
}
