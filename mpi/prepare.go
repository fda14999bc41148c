package mpi

// Preparer is implemented by communicators whose calls need resources beyond
// their buffers (an RMA window, a Cartesian communicator, count vectors),
// created once per experiment, outside the timed part. Prepare creates what
// o's call needs and keeps it with the communicator until release is
// called; a call that needs nothing gets a release that does nothing.
// Prepare and release are collective: every rank calls them for the same
// observation, in the same order, with no observation of another experiment
// in between.
type Preparer interface {
	Prepare(o *Observation) (release func() error, err error)
}

// Prepare calls c's Prepare when c is a Preparer, and otherwise returns a
// release that does nothing. The engine calls it after building an
// experiment's observation and releases after its last one.
func Prepare(c Comm, o *Observation) (release func() error, err error) {
	if p, ok := c.(Preparer); ok {
		return p.Prepare(o)
	}
	return func() error { return nil }, nil
}
