package mpitest

import "github.com/reprobench/reprobench/mpi"

var _ mpi.Preparer = (*comm)(nil)

// Prepare implements mpi.Preparer: the prepare of the model o's row names
// (models.go), or a release that does nothing for a model that needs none.
func (c *comm) Prepare(o *mpi.Observation) (release func() error, err error) {
	if err := c.check("Prepare"); err != nil {
		return nil, err
	}
	m, err := modelOf(o)
	if err != nil {
		return nil, err
	}
	if m.prepare != nil {
		return m.prepare(c, o)
	}
	return func() error { return nil }, nil
}
