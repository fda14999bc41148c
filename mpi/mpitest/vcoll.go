package mpitest

import (
	"github.com/reprobench/reprobench/mpi"
)

// The vcoll calls (package mpi's vcoll.go) in the simulator, built from
// point-to-point messages on the collective context like the other
// collectives:
//
//	Gatherv, Scatterv        linear: the root exchanges one message with every rank
//	Allgatherv               Gatherv to 0, then Bcast of all blocks
//	Alltoallv                pairwise exchange, P−1 rounds (rank r sends to r+i, receives from r−i)
//	Reduce_scatter           Reduce of all blocks to 0, then Scatterv
//	Sendrecv (ring)          send to rank+1, then receive from rank−1
//	Neighbor_alltoall        four sends (one per neighbour), then four receives
//
// Counts and displacements are mpi.VCounts's; the grid is mpi.Dims2's.
// A block a rank sends to itself is copied, with no message and no
// virtual time. The simulation needs no mpi.Prepare: the layout is
// computed per call, outside virtual time.

// Internal tags of the vcoll calls (after coll.go's).
const (
	tagGatherv int32 = 0x100 + iota
	tagScatterv
	tagAlltoallv
	tagRing
	tagNeighbor // + neighbour index 0..3 of the sender's block
)

// executeVColl runs one vcoll call of o (validated).
func (c *comm) executeVColl(o *mpi.Observation) error {
	fn := o.Call.String()
	p, r, es := c.size, c.rank, o.Type.Size()
	l := mpi.VCounts(o.Call, o.Count, o.Skew, p, r)
	n := o.Count * es
	switch o.Call {
	case mpi.CallGatherv:
		return c.gatherv(o.Send[:l.SendCount*es], o.Recv, l, es, o.RootOf(o.CallIndex, p), fn) // root_shift
	case mpi.CallAllgatherv:
		if err := c.gatherv(o.Send[:l.SendCount*es], o.Recv, l, es, 0, fn); err != nil {
			return err
		}
		total := l.RecvDispls[p-1] + l.RecvCounts[p-1]
		return c.bcast(o.Recv[:total*es], 0, fn)
	case mpi.CallScatterv:
		return c.scatterv(o.Send, o.Recv[:l.RecvCount*es], l.SendCounts, l.SendDispls, es, o.RootOf(o.CallIndex, p), fn)
	case mpi.CallAlltoallv:
		blk := func(b []byte, cs, ds []int, i int) []byte { return b[ds[i]*es : (ds[i]+cs[i])*es] }
		copy(blk(o.Recv, l.RecvCounts, l.RecvDispls, r), blk(o.Send, l.SendCounts, l.SendDispls, r))
		for i := 1; i < p; i++ {
			dst, src := (r+i)%p, (r-i+p)%p
			if err := c.csend(dst, tagAlltoallv, blk(o.Send, l.SendCounts, l.SendDispls, dst)); err != nil {
				return err
			}
			if err := c.crecv(blk(o.Recv, l.RecvCounts, l.RecvDispls, src), src, tagAlltoallv, fn); err != nil {
				return err
			}
		}
		return nil
	case mpi.CallReduceScatter:
		total := l.RecvDispls[p-1] + l.RecvCounts[p-1]
		all := c.scratch(2, total*es)
		if err := c.reduce(o.Send[:total*es], all, total, o.Type, o.Op, 0, fn); err != nil {
			return err
		}
		return c.scatterv(all, o.Recv[:l.RecvCount*es], l.RecvCounts, l.RecvDispls, es, 0, fn)
	case mpi.CallSendrecv:
		if p == 1 {
			copy(o.Recv[:n], o.Send[:n])
			return nil
		}
		if err := c.csend((r+1)%p, tagRing, o.Send[:n]); err != nil {
			return err
		}
		return c.crecv(o.Recv[:n], (r-1+p)%p, tagRing, fn)
	case mpi.CallNeighborAlltoall:
		nb := mpi.CartNeighbors(mpi.Dims2(p), r)
		for j, d := range nb {
			if d == r {
				// Our block j reaches ourselves as block j^1.
				copy(o.Recv[(j^1)*n:(j^1+1)*n], o.Send[j*n:(j+1)*n])
				continue
			}
			if err := c.csend(d, tagNeighbor+int32(j), o.Send[j*n:(j+1)*n]); err != nil {
				return err
			}
		}
		for j, s := range nb {
			if s == r {
				continue
			}
			// Block j comes from neighbour j, which sent it as its block j^1.
			if err := c.crecv(o.Recv[j*n:(j+1)*n], s, tagNeighbor+int32(j^1), fn); err != nil {
				return err
			}
		}
		return nil
	}
	return &mpi.Error{Func: "Observe", Code: -1, Msg: "unsupported call " + fn}
}

// gatherv: every rank sends its block to root, which places block i at
// displacement l.RecvDispls[i].
func (c *comm) gatherv(send, recv []byte, l mpi.VLayout, es, root int, fn string) error {
	if c.rank != root {
		return c.csend(root, tagGatherv, send)
	}
	for i := 0; i < c.size; i++ {
		b := recv[l.RecvDispls[i]*es : (l.RecvDispls[i]+l.RecvCounts[i])*es]
		if i == root {
			copy(b, send)
			continue
		}
		if err := c.crecv(b, i, tagGatherv, fn); err != nil {
			return err
		}
	}
	return nil
}

// scatterv: root sends block i (counts[i] elements at displs[i]) to rank i.
func (c *comm) scatterv(send, recv []byte, counts, displs []int, es, root int, fn string) error {
	if c.rank != root {
		return c.crecv(recv, root, tagScatterv, fn)
	}
	for i := 0; i < c.size; i++ {
		if i == root {
			continue
		}
		if err := c.csend(i, tagScatterv, send[displs[i]*es:(displs[i]+counts[i])*es]); err != nil {
			return err
		}
	}
	copy(recv, send[displs[root]*es:(displs[root]+counts[root])*es])
	return nil
}
