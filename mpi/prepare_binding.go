//go:build cgo && !nompi

package mpi

var _ Preparer = (*comm)(nil)

// Prepare implements Preparer for the real binding: it dispatches on the
// call family to the function of the file that owns it, and returns a
// release that does nothing for calls that need no resources.
func (c *comm) Prepare(o *Observation) (release func() error, err error) {
	if err := c.live("Prepare"); err != nil {
		return nil, err
	}
	switch {
	case o.Call.IsVColl(): // vcoll
		return c.prepareVColl(o)
	case o.Call.Bandwidth() || o.Call.OneSided(): // p2p
		return c.prepareP2P(o)
	}
	return func() error { return nil }, nil
}
