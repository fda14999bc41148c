package mpi

// The Go reference semantics of the coll family (Op.Go of its rows): one
// call through the methods of a Comm, as rbmpi_coll.h executes it in C.
// The binding's Go path (ObserveGo) and the simulator's ModelReference run
// them.

func goBarrier(c Comm, _ *Observation) error { return c.Barrier() }

// goBcast broadcasts from the root's send buffer into every other rank's
// receive buffer, as rb_bcast_call does.
func goBcast(c Comm, o *Observation) error {
	buf := o.Recv
	if c.Rank() == o.Root {
		buf = o.Send
	}
	return c.Bcast(buf, o.Count, o.Type, o.Root)
}

func goReduce(c Comm, o *Observation) error {
	return c.Reduce(o.Send, o.Recv, o.Count, o.Type, o.Op, o.Root)
}

func goAllreduce(c Comm, o *Observation) error {
	return c.Allreduce(o.Send, o.Recv, o.Count, o.Type, o.Op)
}

func goScan(c Comm, o *Observation) error { return c.Scan(o.Send, o.Recv, o.Count, o.Type, o.Op) }

func goExscan(c Comm, o *Observation) error { return c.Exscan(o.Send, o.Recv, o.Count, o.Type, o.Op) }

func goGather(c Comm, o *Observation) error { return c.Gather(o.Send, o.Recv, o.Count, o.Type, o.Root) }

func goScatter(c Comm, o *Observation) error {
	return c.Scatter(o.Send, o.Recv, o.Count, o.Type, o.Root)
}

func goAllgather(c Comm, o *Observation) error { return c.Allgather(o.Send, o.Recv, o.Count, o.Type) }

func goAlltoall(c Comm, o *Observation) error { return c.Alltoall(o.Send, o.Recv, o.Count, o.Type) }

func goReduceScatterBlock(c Comm, o *Observation) error {
	return c.ReduceScatterBlock(o.Send, o.Recv, o.Count, o.Type, o.Op)
}

// TagPingPong is the tag the Go ping-pong of ObserveGo uses (reserved: see
// TagReserved).
const TagPingPong = TagInternal - 2

// goPingPong: root sends its n bytes to peer and receives peer's n bytes;
// the other ranks do nothing (rb_pingpong_call).
func goPingPong(c Comm, o *Observation) error {
	b := o.Count * o.Type.Size()
	switch c.Rank() {
	case o.Root:
		if err := c.Send(o.Send[:b], o.Peer, TagPingPong); err != nil {
			return err
		}
		return c.Recv(o.Recv[:b], o.Peer, TagPingPong)
	case o.Peer:
		if err := c.Recv(o.Recv[:b], o.Root, TagPingPong); err != nil {
			return err
		}
		return c.Send(o.Send[:b], o.Root, TagPingPong)
	}
	return nil
}
