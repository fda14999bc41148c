package mpi

// The expected results of the operation table (Op.Result): what one call
// leaves at the start of a rank's receive buffer, computed from every
// rank's send buffer by the definitions of the MPI standard (and of
// guide.go, vcoll.go and p2p.go for reprobench's own calls). The checkers
// (mpi/internal/opcheck) compare every row's observation with them under
// mpitest and under mpirun.

// Inputs is what a row's Result is given.
type Inputs struct {
	Count int      // elements per rank's contribution (Observation.Count)
	Type  Datatype // Observation.Type
	Op    ReduceOp // Observation.Op
	Root  int      // Observation.Root
	Peer  int      // Observation.Peer
	Skew  int      // Observation.Skew (≤ 1: uniform)
	P     int      // communicator size
	Rank  int      // the rank whose result is asked for
	// Send returns rank q's send buffer, at least as long as the row's
	// rule (Op.Buffers) says.
	Send func(q int) []byte
}

// n returns the bytes of one contribution.
func (x *Inputs) n() int { return x.Count * x.Type.Size() }

// reduce folds the count elements at byte offset off of the send buffers
// of ranks [from, to) with x.Op (MPI_Reduce_local order; the checks use
// values exact in every order).
func (x *Inputs) reduce(off, count, from, to int) []byte {
	b := count * x.Type.Size()
	acc := append([]byte(nil), x.Send(from)[off:off+b]...)
	for q := from + 1; q < to; q++ {
		reduceLocal(x.Send(q)[off:off+b], acc, count, x.Type, x.Op)
	}
	return acc
}

// concat joins block(q) for q = 0..p−1.
func (x *Inputs) concat(block func(q int) []byte) []byte {
	var out []byte
	for q := 0; q < x.P; q++ {
		out = append(out, block(q)...)
	}
	return out
}

func resultBcast(x *Inputs) []byte {
	if x.Rank == x.Root {
		return nil // the root broadcasts from its send buffer
	}
	return x.Send(x.Root)[:x.n()]
}

func resultReduce(x *Inputs) []byte {
	if x.Rank != x.Root {
		return nil
	}
	return x.reduce(0, x.Count, 0, x.P)
}

func resultAllreduce(x *Inputs) []byte { return x.reduce(0, x.Count, 0, x.P) }

func resultScan(x *Inputs) []byte { return x.reduce(0, x.Count, 0, x.Rank+1) }

func resultExscan(x *Inputs) []byte {
	if x.Rank == 0 {
		return nil // undefined on rank 0
	}
	return x.reduce(0, x.Count, 0, x.Rank)
}

func resultAllgather(x *Inputs) []byte {
	n := x.n()
	return x.concat(func(q int) []byte { return x.Send(q)[:n] })
}

func resultGather(x *Inputs) []byte {
	if x.Rank != x.Root {
		return nil
	}
	return resultAllgather(x)
}

func resultScatter(x *Inputs) []byte {
	n := x.n()
	return x.Send(x.Root)[x.Rank*n : (x.Rank+1)*n]
}

func resultAlltoall(x *Inputs) []byte {
	n := x.n()
	return x.concat(func(q int) []byte { return x.Send(q)[x.Rank*n : (x.Rank+1)*n] })
}

func resultReduceScatterBlock(x *Inputs) []byte {
	return x.reduce(x.Rank*x.n(), x.Count, 0, x.P)
}

// resultPingPong: root and peer each receive the other's send buffer (the
// ping-pong, bibw).
func resultPingPong(x *Inputs) []byte {
	switch x.Rank {
	case x.Root:
		return x.Send(x.Peer)[:x.n()]
	case x.Peer:
		return x.Send(x.Root)[:x.n()]
	}
	return nil
}

// resultScatterAllgather: the root's first n bytes on every rank, the
// root's own receive buffer included.
func resultScatterAllgather(x *Inputs) []byte { return x.Send(x.Root)[:x.n()] }

// block returns the elements of rank q's block in a v-collective (skewed
// counts, VCounts).
func (x *Inputs) block(q int) int { return blockCount(x.Count, x.Skew, x.P, q) }

// displ returns the element offset of rank q's block among all blocks.
func (x *Inputs) displ(q int) int {
	d := 0
	for i := 0; i < q; i++ {
		d += x.block(i)
	}
	return d
}

func resultAllgatherv(x *Inputs) []byte {
	es := x.Type.Size()
	return x.concat(func(q int) []byte { return x.Send(q)[:x.block(q)*es] })
}

func resultGatherv(x *Inputs) []byte {
	if x.Rank != x.Root {
		return nil
	}
	return resultAllgatherv(x)
}

func resultScatterv(x *Inputs) []byte {
	es := x.Type.Size()
	d := x.displ(x.Rank) * es
	return x.Send(x.Root)[d : d+x.block(x.Rank)*es]
}

// resultAlltoallv: from every rank q, q's block for this rank (q sends
// blocks of its own size to everyone).
func resultAlltoallv(x *Inputs) []byte {
	es := x.Type.Size()
	return x.concat(func(q int) []byte {
		b := x.block(q) * es
		return x.Send(q)[x.Rank*b : (x.Rank+1)*b]
	})
}

func resultReduceScatter(x *Inputs) []byte {
	return x.reduce(x.displ(x.Rank)*x.Type.Size(), x.block(x.Rank), 0, x.P)
}

func resultSendrecv(x *Inputs) []byte { return x.Send((x.Rank - 1 + x.P) % x.P)[:x.n()] }

// resultNeighborAlltoall: block j from neighbour j, which sent it as its
// block j^1 (CartNeighbors).
func resultNeighborAlltoall(x *Inputs) []byte {
	n, nb := x.n(), CartNeighbors(Dims2(x.P), x.Rank)
	var out []byte
	for j, q := range nb {
		out = append(out, x.Send(q)[(j^1)*n:(j^1+1)*n]...)
	}
	return out
}

// resultBW: the peer holds the root's message (every message of the
// window carries the same buffer).
func resultBW(x *Inputs) []byte {
	if x.Rank != x.Peer {
		return nil
	}
	return x.Send(x.Root)[:x.n()]
}

func resultMBWMR(x *Inputs) []byte {
	half := x.P / 2
	if x.Rank < half {
		return nil
	}
	return x.Send(x.Rank - half)[:x.n()]
}

// resultGet: the origin reads the target's window, which Prepare zeroed
// and no call of this row writes.
func resultGet(x *Inputs) []byte {
	if x.Rank != x.Root {
		return nil
	}
	return make([]byte, x.n())
}
