//go:build cgo && !nompi

package mpi

// Prepare implements Preparer: it dispatches on the call family to the
// function (in that family's file) that creates what the call needs.
func (c *comm) Prepare(o *Observation) (release func() error, err error) {
	switch {
	case o.Call.IsVColl(): // vcoll
		return c.prepareVColl(o)
	}
	return func() error { return nil }, nil
}
