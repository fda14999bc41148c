package mpi

import (
	"fmt"
	"math"
)

// The v-collectives (MPI_Allgatherv, MPI_Alltoallv, MPI_Gatherv,
// MPI_Scatterv, MPI_Reduce_scatter), the MPI_Sendrecv ring and
// MPI_Neighbor_alltoall. What a message size means for each (Count
// elements, the size of one block):
//
//	MPI_Allgatherv         every rank contributes a block; every rank receives all blocks
//	MPI_Gatherv            every rank sends a block to the root
//	MPI_Scatterv           the root sends every rank a block
//	MPI_Alltoallv          every rank sends a block to every rank (itself included)
//	MPI_Reduce_scatter     recvcounts[i] is rank i's block: the send buffer holds all blocks, reduced element-wise, and rank i receives block i
//	MPI_Sendrecv           a ring: every rank sends a block to rank+1 and receives one from rank−1 (mod p)
//	MPI_Neighbor_alltoall  a periodic 2-D Cartesian grid (MPI_Dims_create(p, 2)): a block to each of the 4 neighbours, one from each
//
// With Observation.Skew = k > 1 (the v-collectives only), the heavy rank
// SkewRank(p) = p−1 has k·Count elements in every block it contributes:
// its block in Allgatherv and Gatherv, the block the root scatters to it
// in Scatterv, every block it sends in Alltoallv (so every rank receives k·Count
// elements from it), and its own block recvcounts[p−1] in Reduce_scatter.
// Every other block has Count elements. The default root 0 is never the
// heavy rank when p > 1.
//
// The count and displacement vectors (VLayout) are contiguous blocks in
// rank order. The real binding builds them in C memory in Prepare (or, for
// a caller that did not Prepare, before the first observation of a new
// configuration), never in the timed part; MPI_Neighbor_alltoall's
// Cartesian communicator likewise.

// SkewRank returns the heavy rank of a skewed v-collective on p ranks: the
// last one.
func SkewRank(p int) int { return p - 1 }

// IsVColl reports whether c is one of the calls of this file (v-collectives,
// Reduce_scatter, the Sendrecv ring, Neighbor_alltoall): FamilyVColl.
func (c Call) IsVColl() bool { return c.Valid() && ops[c].Family == FamilyVColl }

// Skewable reports whether c takes Observation.Skew (ParamSkew): the
// v-collectives and Reduce_scatter.
func (c Call) Skewable() bool { return c.Valid() && ops[c].Takes(ParamSkew) }

// VLayout holds one rank's count and displacement vectors of a vcoll call,
// in elements, as MPI receives them. Vectors not used by the call are nil.
type VLayout struct {
	SendCount  int   // Allgatherv, Gatherv: elements sent
	RecvCount  int   // Scatterv: elements received; Reduce_scatter: RecvCounts[rank]
	SendCounts []int // Scatterv (meaningful at the root), Alltoallv
	SendDispls []int
	RecvCounts []int // Allgatherv, Gatherv (meaningful at the root), Alltoallv, Reduce_scatter
	RecvDispls []int
}

// blockCount returns the elements of the block that rank r contributes to
// a skewed v-collective of p ranks: k·count for SkewRank(p), count
// otherwise (k < 1 counts as 1).
func blockCount(count, skew, p, r int) int {
	if skew > 1 && r == SkewRank(p) {
		return count * skew
	}
	return count
}

// VCounts returns rank's count and displacement vectors for call (a vcoll
// call) with count elements per block and skew k on p ranks.
func VCounts(call Call, count, skew, p, rank int) VLayout {
	var l VLayout
	blocks := func(n func(i int) int) ([]int, []int) {
		c, d := make([]int, p), make([]int, p)
		off := 0
		for i := range c {
			c[i], d[i] = n(i), off
			off += c[i]
		}
		return c, d
	}
	own := func(i int) int { return blockCount(count, skew, p, i) }
	switch call {
	case CallAllgatherv, CallGatherv:
		l.SendCount = own(rank)
		l.RecvCounts, l.RecvDispls = blocks(own)
	case CallScatterv:
		l.RecvCount = own(rank)
		l.SendCounts, l.SendDispls = blocks(own)
	case CallAlltoallv:
		mine := own(rank)
		l.SendCounts, l.SendDispls = blocks(func(int) int { return mine })
		l.RecvCounts, l.RecvDispls = blocks(own)
	case CallReduceScatter:
		l.RecvCounts, l.RecvDispls = blocks(own)
		l.RecvCount = own(rank)
	}
	return l
}

// SkewedBufferSizes is BufferSizes for an observation with Skew skew: the
// bytes the send and receive buffers need on the rank that needs the most
// (the engine gives every rank the same buffers). With skew k > 1 and n
// the bytes of a block, K = p − 1 + k:
//
//	MPI_Allgatherv, MPI_Gatherv  send k·n, receive K·n
//	MPI_Scatterv                send K·n, receive k·n
//	MPI_Alltoallv               send k·p·n, receive K·n
//	MPI_Reduce_scatter          send K·n, receive k·n
//
// (the rows' rules, Op.Buffers). For every other call, and skew ≤ 1, it is
// BufferSizes.
func SkewedBufferSizes(call Call, count int, d Datatype, p, skew int) (send, recv int) {
	if !call.Skewable() || skew < 1 {
		return BufferSizes(call, count, d, p)
	}
	return ops[call].Buffers.Size(count, d.Size(), p, skew)
}

// validateVColl checks o's skew (CheckSkew).
func (o *Observation) validateVColl(p int) error { return CheckSkew(o.Call, o.Count, p, o.Skew) }

// CheckSkew checks a skew for count elements per block of call on p
// ranks: never negative, above 1 only for the skewable calls, and small
// enough that every count and displacement fits MPI's int.
func CheckSkew(call Call, count, p, skew int) error {
	if skew < 0 {
		return fmt.Errorf("mpi: negative skew %d (1 means uniform counts)", skew)
	}
	if skew > 1 && !call.Skewable() {
		return fmt.Errorf("mpi: %v takes no skew (skew %d): only %s have count vectors", call, skew, CallNames(CallsTaking(ParamSkew)))
	}
	if call.IsVColl() {
		k := max(skew, 1)
		// The largest count or displacement MPI sees is below
		// count·(p−1+k)·p elements (Alltoallv's send buffer at most).
		if f := float64(count) * float64(p-1+k) * float64(max(p, 4)); f > math.MaxInt32 {
			return fmt.Errorf("mpi: %v with count %d, skew %d on %d ranks needs counts beyond MPI's int", call, count, k, p)
		}
	}
	return nil
}

// Dims2 returns the grid MPI_Dims_create(p, 2) chooses: the two factors of
// p closest to each other, the larger first (12 → 4×3, 8 → 4×2, a prime p →
// p×1, 1 → 1×1). MPI_Neighbor_alltoall runs on this grid with both
// dimensions periodic, so every rank has four neighbours, which may
// coincide: on a p×1 grid (p prime, p = 2 included) both neighbours in the
// second dimension are the rank itself, and on a dimension of size 2 the
// two neighbours are the same rank (distinct blocks nonetheless).
func Dims2(p int) [2]int {
	if p < 1 {
		return [2]int{0, 0}
	}
	b := int(math.Sqrt(float64(p)))
	for b*b > p {
		b--
	}
	for (b+1)*(b+1) <= p {
		b++
	}
	for p%b != 0 {
		b--
	}
	return [2]int{p / b, b}
}

// CartNeighbors returns the four neighbours of rank on the periodic grid
// dims (row-major, as MPI_Cart_create numbers ranks without reordering) in
// MPI_Neighbor_alltoall's order: for each dimension, the source then the
// destination of MPI_Cart_shift(dim, 1), i.e. the coordinate minus one,
// then plus one. Block j of the send buffer goes to neighbour j, and
// block j of the receive buffer comes from neighbour j (which sent it from
// its block j^1: what rank r sends "up" arrives at r+1 as "from below").
func CartNeighbors(dims [2]int, rank int) [4]int {
	x, y := rank/dims[1], rank%dims[1]
	at := func(x, y int) int {
		return ((x+dims[0])%dims[0])*dims[1] + (y+dims[1])%dims[1]
	}
	return [4]int{at(x-1, y), at(x+1, y), at(x, y-1), at(x, y+1)}
}
