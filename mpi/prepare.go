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

// ErrBoundBuffers is the refusal of a call whose resources Prepare bound to
// the observation's buffers (a persistent request keeps their addresses)
// when an observation runs on other buffers: the binding and mpitest
// return it alike.
func ErrBoundBuffers(fn string) error {
	return &Error{Func: fn, Code: -1, Msg: "the request mpi.Prepare made is bound to the buffers it was given, and this " +
		"observation's are others (the cache modes cycle and random move the buffers: use warm or cold)"}
}

// ErrUnprepared is the refusal of a call whose resources Prepare has not
// made: the binding and mpitest return it alike.
func ErrUnprepared(fn string) error {
	return &Error{Func: fn, Code: -1, Msg: "needs the resources of mpi.Prepare: call mpi.Prepare(comm, obs) once before the observations (and its release after them)"}
}
