package mpi

// The Go reference semantics of the coll family (Op.Go of its rows): one
// call through the methods of a Comm, as rbmpi_coll.h executes it in C.
// The binding's Go path (ObserveGo) and the simulator's ModelReference run
// them.

import "github.com/reprobench/reprobench/factor"

func goBarrier(c Comm, _ *Observation) error { return c.Barrier() }

// goBcast broadcasts from the root's send buffer into every other rank's
// receive buffer, as rb_bcast_call does. The rooted calls take the root
// of the call being executed (callRoot: root_shift).
func goBcast(c Comm, o *Observation) error {
	root := o.callRoot(c.Size())
	buf := o.Recv
	if c.Rank() == root {
		buf = o.Send
	}
	return c.Bcast(buf, o.Count, o.Type, root)
}

func goReduce(c Comm, o *Observation) error {
	return c.Reduce(o.inPlaceSend(c.Rank(), c.Size()), o.Recv, o.Count, o.Type, o.Op, o.callRoot(c.Size()))
}

func goAllreduce(c Comm, o *Observation) error {
	return c.Allreduce(o.inPlaceSend(c.Rank(), c.Size()), o.Recv, o.Count, o.Type, o.Op)
}

func goScan(c Comm, o *Observation) error { return c.Scan(o.Send, o.Recv, o.Count, o.Type, o.Op) }

func goExscan(c Comm, o *Observation) error { return c.Exscan(o.Send, o.Recv, o.Count, o.Type, o.Op) }

func goGather(c Comm, o *Observation) error {
	return c.Gather(o.inPlaceSend(c.Rank(), c.Size()), o.Recv, o.Count, o.Type, o.callRoot(c.Size()))
}

func goScatter(c Comm, o *Observation) error {
	root := o.callRoot(c.Size())
	if o.InPlace() && c.Rank() == root { // the root's block stays where it is
		n := o.Count * o.Type.Size()
		tmp := make([]byte, n)
		copy(tmp, o.Recv[:n])
		err := c.Scatter(o.Send, o.Recv, o.Count, o.Type, root)
		copy(o.Recv[:n], tmp)
		return err
	}
	return c.Scatter(o.Send, o.Recv, o.Count, o.Type, root)
}

func goAllgather(c Comm, o *Observation) error {
	return c.Allgather(o.inPlaceSend(c.Rank(), c.Size()), o.Recv, o.Count, o.Type)
}

func goAlltoall(c Comm, o *Observation) error {
	return c.Alltoall(o.inPlaceSend(c.Rank(), c.Size()), o.Recv, o.Count, o.Type)
}

func goReduceScatterBlock(c Comm, o *Observation) error {
	return c.ReduceScatterBlock(o.Send, o.Recv, o.Count, o.Type, o.Op)
}

// tagPingPong is the tag the Go ping-pong of ObserveGo uses (reserved: see
// TagReserved).
const tagPingPong = TagInternal - 2

// goPingPong: root sends its n bytes to peer and receives peer's n bytes;
// the other ranks do nothing (rb_pingpong_call).
func goPingPong(c Comm, o *Observation) error {
	b := o.Count * o.Type.Size()
	switch c.Rank() {
	case o.Root:
		if err := c.Send(o.Send[:b], o.Peer, tagPingPong); err != nil {
			return err
		}
		return c.Recv(o.Recv[:b], o.Peer, tagPingPong)
	case o.Peer:
		if err := c.Recv(o.Recv[:b], o.Root, tagPingPong); err != nil {
			return err
		}
		return c.Send(o.Send[:b], o.Root, tagPingPong)
	}
	return nil
}

// InPlace reports whether o passes MPI_IN_PLACE (the in_place factor,
// factor.InPlace; OSU's -l) to a call that takes it (ParamInPlace).
func (o *Observation) InPlace() bool {
	return o.Call.Valid() && ops[o.Call].Takes(ParamInPlace) && o.Params.On(factor.InPlace)
}

// inPlaceBlock returns the bytes of the receive buffer that an in-place
// call of o on rank reads as its input (nil where the standard does not
// allow MPI_IN_PLACE, or o is not in place), and the bytes of the send
// buffer they stand for: the first n bytes of MPI_Reduce's root and of
// MPI_Allreduce, block rank of MPI_Gather's root and of MPI_Allgather,
// the p blocks of MPI_Alltoall, and, at MPI_Scatter's root, its own block
// (which the call leaves in place); the root is that of call o.CallIndex
// (RootOf).
func (o *Observation) inPlaceBlock(rank, p int) (recv, send []byte) {
	if !o.InPlace() {
		return nil, nil
	}
	n, root := o.Count*o.Type.Size(), o.callRoot(p)
	switch o.Call {
	case CallAllreduce:
		return o.Recv[:n], o.Send[:n]
	case CallReduce:
		if rank == root {
			return o.Recv[:n], o.Send[:n]
		}
	case CallGather:
		if rank == root {
			return o.Recv[rank*n : (rank+1)*n], o.Send[:n]
		}
	case CallAllgather:
		return o.Recv[rank*n : (rank+1)*n], o.Send[:n]
	case CallAlltoall:
		return o.Recv[:p*n], o.Send[:p*n]
	case CallScatter:
		if rank == root {
			return o.Recv[:n], o.Send[rank*n : (rank+1)*n]
		}
	}
	return nil, nil
}

// InPlaceInput copies the input of an in-place call of o on rank of p
// ranks from the send buffer to where the call reads it in the receive
// buffer, so that the call computes the row's Result of the send buffers
// (the result check: the timed calls leave other input there, a
// reduction's result for instance). It does nothing when o is not in
// place.
func InPlaceInput(o *Observation, rank, p int) {
	if r, s := o.inPlaceBlock(rank, p); r != nil {
		copy(r, s)
	}
}

// inPlaceSend returns the buffer the Go reference semantics send from on
// rank of p: o.Send, or, in place, a copy of the input the receive buffer
// holds (inPlaceBlock) at the send buffer's layout (the simulated calls do
// not alias their buffers; the copy is allocated per call, on the Go path
// only).
func (o *Observation) inPlaceSend(rank, p int) []byte {
	r, _ := o.inPlaceBlock(rank, p)
	if r == nil || o.Call == CallScatter {
		return o.Send
	}
	out := make([]byte, len(o.Send))
	copy(out, r)
	return out
}

// RootShift reports whether o rotates the root over its calls (the
// root_shift factor, factor.RootShift; IMB's -root_shift, OSU's -k
// rotate) in a call that takes it (ParamRootShift).
func (o *Observation) RootShift() bool {
	return o.Call.Valid() && ops[o.Call].Takes(ParamRootShift) && o.Params.On(factor.RootShift)
}

// RootOf returns the root of call i (from 0) of an observation of o on p
// ranks: o.Root, or with root_shift (RootShift) (o.Root + i) mod p. The
// count restarts with every observation, as the root of IMB's and OSU's
// loops restarts with every message size (IMB: root = 0 before the loop,
// then root = (root + root_shift) mod P after each call; OSU:
// omb_get_root_rank, root = i mod P for loop index i); in a phase
// structure such as the overlap measurement's (nbc.go) it restarts with
// each phase. With one call per observation (runtime types without a
// loop) every call has o.Root. The result check (VerifyResult) uses the
// root of the last call, i = max(Reps, 1) − 1.
func (o *Observation) RootOf(i, p int) int {
	if !o.RootShift() || p <= 0 {
		return o.Root
	}
	return (o.Root + i%p) % p
}

// callRoot is the root of the call being executed, RootOf(CallIndex, p).
func (o *Observation) callRoot(p int) int { return o.RootOf(o.CallIndex, p) }
