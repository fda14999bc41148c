package mpitest

import (
	"fmt"
	"sync"
	"unsafe"

	"github.com/reprobench/reprobench/mpi"
)

// ModelPersistent, the persistent collectives (MPI_Allreduce_init): as
// the binding's prepare phase makes the MPI request, Prepare records the
// observation — its call, count, datatype, reduction, root and buffers —
// and each call runs the twin's model (MPI_Allreduce's messages) with what
// was recorded, as MPI_Start then MPI_Wait run the request. The request
// costs no virtual time to make or to free. As the binding, a call
// refuses without Prepare (mpi.ErrUnprepared) and on other buffers than
// the recorded ones (mpi.ErrBoundBuffers).

// persistentReq is what Prepare recorded on one rank's communicator.
type persistentReq struct {
	o mpi.Observation
}

// persistentReqs maps a *comm to its *persistentReq from Prepare to the
// release (package-level, as p2pPreps).
var persistentReqs sync.Map

func (c *comm) preparePersistent(o *mpi.Observation) (func() error, error) {
	const fn = "Prepare"
	if err := o.Validate(c.size); err != nil {
		return nil, &mpi.Error{Func: fn, Code: -1, Msg: err.Error()}
	}
	if _, held := persistentReqs.Load(c); held {
		return nil, &mpi.Error{Func: fn, Code: -1, Msg: fmt.Sprintf("%v: the communicator still holds the resources of an earlier Prepare (release it first)", o.Call)}
	}
	req := &persistentReq{o: *o}
	req.o.Offsets, req.o.Flush = nil, nil
	persistentReqs.Store(c, req)
	return func() error {
		persistentReqs.Delete(c)
		return nil
	}, nil
}

// executePersistent is one MPI_Start and MPI_Wait of the recorded request.
func (c *comm) executePersistent(o *mpi.Observation) error {
	fn := o.Call.String()
	v, ok := persistentReqs.Load(c)
	if !ok || v.(*persistentReq).o.Call != o.Call {
		return mpi.ErrUnprepared(fn)
	}
	req := v.(*persistentReq)
	if unsafe.SliceData(o.Send) != unsafe.SliceData(req.o.Send) || unsafe.SliceData(o.Recv) != unsafe.SliceData(req.o.Recv) {
		return mpi.ErrBoundBuffers(fn)
	}
	run := req.o
	run.Call = o.Call.Op().Twin.Call
	return c.execute(&run)
}
