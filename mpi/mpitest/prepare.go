package mpitest

import "github.com/reprobench/reprobench/mpi"

var _ mpi.Preparer = (*comm)(nil)

// Prepare implements mpi.Preparer: it dispatches on the call family to the
// function of the file that owns it, and returns a release that does
// nothing for calls that need no resources.
func (c *comm) Prepare(o *mpi.Observation) (release func() error, err error) {
	if err := c.check("Prepare"); err != nil {
		return nil, err
	}
	switch {
	case o.Call.Bandwidth() || o.Call.OneSided(): // p2p
		return c.prepareP2P(o)
	}
	return func() error { return nil }, nil
}
