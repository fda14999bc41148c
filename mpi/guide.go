package mpi

import (
	"encoding/binary"
	"fmt"
	"math"
)

// The mock-ups of the performance guidelines (Hunold, Carpen-Amarie and
// Träff, "self-consistent MPI performance guidelines"):
// each right-hand side that is a composition of collectives is one Call,
// executed as one observation in the C critical path (rbmpi_guide.h), so
// that the composition is timed as a whole, exactly as its left-hand side.
// Count is always the left-hand side's count (elements per rank's
// contribution), so a guideline compares two calls at the same Count; the
// buffers (BufferSizes) and where the result lands are:
//
//	Reduce+Bcast                    (≙ Allreduce)  Reduce(Send → Recv, root), Bcast(Recv, root).
//	                                Send n, Recv n; result Recv[:n] on every rank.
//	Reduce_scatter_block+Allgather  (≙ Allreduce)  m = ⌈n/p⌉; Reduce_scatter_block(Send → Recv[rank·m:], m),
//	                                Allgather(MPI_IN_PLACE, Recv, m). Send p·m, Recv p·m (Send[n:] is padding
//	                                when p does not divide n: at most p−1 extra elements, which can only make
//	                                the mock-up slower); result Recv[:n].
//	Scatter+Allgather               (≙ Bcast)      m = ⌈n/p⌉; Scatter(root's Send → Recv[rank·m:], m),
//	                                Allgather(MPI_IN_PLACE, Recv, m). Send p·m (root's data in Send[:n]),
//	                                Recv p·m; result Recv[:n] on every rank (the root's included).
//	Gather+Bcast                    (≙ Allgather)  Gather(Send → Recv, root), Bcast(Recv, p·n, root).
//	                                Send n, Recv p·n; result Recv[:p·n].
//	Exscan+Reduce_local             (≙ Scan)       Exscan(Send → Recv), then Recv = Send op Recv
//	                                (MPI_Reduce_local) on ranks > 0 and Recv = Send on rank 0.
//	                                Send n, Recv n; result Recv[:n].
//	Reduce+Scatter                  (≙ Reduce_scatter_block) Reduce(Send → Recv, p·n, root),
//	                                Scatter(Recv, n, root; MPI_IN_PLACE at the root, which then moves its
//	                                block to Recv[:n]). Send p·n, Recv p·n; result Recv[:n].
//
// The rooted parts use Observation.Root (0 by default), as every rooted call.

// guideBlock returns the block of the mock-ups that split count elements
// over p ranks (Reduce_scatter_block+Allgather, Scatter+Allgather):
// ⌈count/p⌉ elements.
func guideBlock(count, p int) int {
	if p < 1 {
		return count
	}
	return (count + p - 1) / p
}

// reduceLocal sets inout[i] = in[i] op inout[i] for count elements of dt
// (MPI_Reduce_local). It panics, as a caller bug, on a type that does not
// reduce or on buffers shorter than count elements.
func reduceLocal(in, inout []byte, count int, dt Datatype, op ReduceOp) {
	if err := CheckReduce(dt, op); err != nil {
		panic(err.Error())
	}
	if n := count * dt.Size(); len(in) < n || len(inout) < n {
		panic(fmt.Sprintf("mpi: ReduceLocal of %d elements of %v on %d and %d bytes", count, dt, len(in), len(inout)))
	}
	ne := binary.NativeEndian
	for i := 0; i < count; i++ {
		switch dt {
		case Int32:
			k := 4 * i
			v := apply(op, int32(ne.Uint32(in[k:])), int32(ne.Uint32(inout[k:])))
			ne.PutUint32(inout[k:], uint32(v))
		case Int64:
			k := 8 * i
			v := apply(op, int64(ne.Uint64(in[k:])), int64(ne.Uint64(inout[k:])))
			ne.PutUint64(inout[k:], uint64(v))
		case Float32:
			k := 4 * i
			v := apply(op, math.Float32frombits(ne.Uint32(in[k:])), math.Float32frombits(ne.Uint32(inout[k:])))
			ne.PutUint32(inout[k:], math.Float32bits(v))
		case Float64:
			k := 8 * i
			v := apply(op, math.Float64frombits(ne.Uint64(in[k:])), math.Float64frombits(ne.Uint64(inout[k:])))
			ne.PutUint64(inout[k:], math.Float64bits(v))
		}
	}
}

func apply[T int32 | int64 | float32 | float64](op ReduceOp, a, b T) T {
	switch op {
	case Min:
		return min(a, b)
	case Max:
		return max(a, b)
	}
	return a + b
}

// executeGuide executes a mock-up call (CallReduceBcast, …) once through
// the methods of c: the reference semantics of rbmpi_guide.h. The
// binding's Go path (for clocks that C cannot read) and the simulator
// (mpitest) both run it. Where C uses MPI_IN_PLACE, it copies the rank's
// block to a temporary buffer first (one allocation per call: this path
// serves no measurement in C's place).
func executeGuide(c Comm, o *Observation) error {
	n, dt, root, p, rank := o.Count, o.Type, o.Root, c.Size(), c.Rank()
	es := dt.Size()
	switch o.Call {
	case CallReduceBcast:
		if err := c.Reduce(o.Send, o.Recv, n, dt, o.Op, root); err != nil {
			return err
		}
		return c.Bcast(o.Recv, n, dt, root)
	case CallReduceScatterBlockAllgather:
		m := guideBlock(n, p)
		blk := make([]byte, m*es)
		if err := c.ReduceScatterBlock(o.Send, blk, m, dt, o.Op); err != nil {
			return err
		}
		return c.Allgather(blk, o.Recv, m, dt)
	case CallScatterAllgather:
		m := guideBlock(n, p)
		blk := make([]byte, m*es)
		if err := c.Scatter(o.Send, blk, m, dt, root); err != nil {
			return err
		}
		return c.Allgather(blk, o.Recv, m, dt)
	case CallGatherBcast:
		if err := c.Gather(o.Send, o.Recv, n, dt, root); err != nil {
			return err
		}
		return c.Bcast(o.Recv, n*p, dt, root)
	case CallExscanReduceLocal:
		if err := c.Exscan(o.Send, o.Recv, n, dt, o.Op); err != nil {
			return err
		}
		if rank == 0 {
			copy(o.Recv[:n*es], o.Send[:n*es])
			return nil
		}
		reduceLocal(o.Send, o.Recv, n, dt, o.Op)
		return nil
	case CallReducePlusScatter:
		if err := c.Reduce(o.Send, o.Recv, n*p, dt, o.Op, root); err != nil {
			return err
		}
		blk := make([]byte, n*es)
		if err := c.Scatter(o.Recv, blk, n, dt, root); err != nil {
			return err
		}
		copy(o.Recv[:n*es], blk)
		return nil
	}
	return &Error{Func: "Observe", Code: -1, Msg: "invalid call " + o.Call.String()}
}
