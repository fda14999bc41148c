package mpitest

import (
	"fmt"

	"github.com/reprobench/reprobench/mpi"
)

// The simulator's models of the operation table (mpi.Model): each row of
// mpi.Ops names the model that simulates it, and this is the one place
// that implements them. A model executes one call of o in virtual time;
// a model with a prepare also makes, in mpi.Prepare, what its calls need.
//
//	reference  the row's Go reference semantics (mpi.Op.Go) on this
//	           communicator, whose collectives are virtual-time models (coll.go)
//	pingpong   the ping-pong's two messages, on the collective context
//	vcoll      the v-collectives, the ring and the neighbour exchange (vcoll.go)
//	twin       the row's twin's model: a non-blocking collective posted then
//	           waited for (nbc.go has the progress model of its overlap)
//	p2p        bandwidth windows and one-sided operations, with Prepare (p2p.go)
//	persistent a persistent request: Prepare records it, each call runs the
//	           twin's model with it (persistent.go)
type model struct {
	run     func(c *comm, o *mpi.Observation) error
	prepare func(c *comm, o *mpi.Observation) (release func() error, err error)
}

// models is indexed by mpi.Model; init fills it, since the models call
// execute, which reads it.
var models []model

func init() {
	models = []model{
		mpi.ModelReference:  {run: func(c *comm, o *mpi.Observation) error { return o.Call.Op().Go(c, o) }},
		mpi.ModelPingPong:   {run: (*comm).pingPong},
		mpi.ModelVColl:      {run: (*comm).executeVColl},
		mpi.ModelTwin:       {run: (*comm).executeTwin},
		mpi.ModelP2P:        {run: (*comm).executeP2P, prepare: (*comm).prepareP2P},
		mpi.ModelPersistent: {run: (*comm).executePersistent, prepare: (*comm).preparePersistent},
	}
}

// modelOf returns the model of o's call.
func modelOf(o *mpi.Observation) (*model, error) {
	op := o.Call.Op()
	if op == nil {
		return nil, &mpi.Error{Func: "Observe", Code: -1, Msg: "unsupported call " + o.Call.String()}
	}
	if int(op.Sim) < 0 || int(op.Sim) >= len(models) || models[op.Sim].run == nil {
		return nil, &mpi.Error{Func: o.Call.String(), Code: -1, Msg: fmt.Sprintf("the simulator has no model %v", op.Sim)}
	}
	return &models[op.Sim], nil
}

// pingPong: root sends Count elements of its send buffer to peer, which
// receives them into its receive buffer and sends its own send buffer
// back, as rb_pingpong_call does; the other ranks do nothing.
func (c *comm) pingPong(o *mpi.Observation) error {
	const fn = "pingpong"
	n := o.Count * o.Type.Size()
	switch c.rank {
	case o.Root:
		if err := c.csend(o.Peer, tagPingPong, o.Send[:n]); err != nil {
			return err
		}
		return c.crecv(o.Recv[:n], o.Peer, tagPingPong, fn)
	case o.Peer:
		if err := c.crecv(o.Recv[:n], o.Root, tagPingPong, fn); err != nil {
			return err
		}
		return c.csend(o.Root, tagPingPong, o.Send[:n])
	}
	return nil
}
