package mpi_test

import (
	"fmt"

	"github.com/reprobench/reprobench/mpi"
)

// The buffers and count vectors of the v-collectives: 4 ranks, blocks of
// 2 float64, the last rank's blocks 3 times larger.
func ExampleVCounts() {
	const p, count, skew = 4, 2, 3
	s, r := mpi.SkewedBufferSizes(mpi.CallAlltoallv, count, mpi.Float64, p, skew)
	fmt.Println("Alltoallv buffers (bytes):", s, r)
	for _, rank := range []int{0, mpi.SkewRank(p)} {
		l := mpi.VCounts(mpi.CallAlltoallv, count, skew, p, rank)
		fmt.Println("rank", rank, "sends", l.SendCounts, "receives", l.RecvCounts, "at", l.RecvDispls)
	}
	// Output:
	// Alltoallv buffers (bytes): 192 96
	// rank 0 sends [2 2 2 2] receives [2 2 2 6] at [0 2 4 6]
	// rank 3 sends [6 6 6 6] receives [2 2 2 6] at [0 2 4 6]
}

// MPI_Neighbor_alltoall's grid and a rank's four neighbours.
func ExampleCartNeighbors() {
	for _, p := range []int{6, 7} {
		d := mpi.Dims2(p)
		fmt.Println(p, "ranks:", d, "rank 0's neighbours", mpi.CartNeighbors(d, 0))
	}
	// Output:
	// 6 ranks: [3 2] rank 0's neighbours [4 2 1 1]
	// 7 ranks: [7 1] rank 0's neighbours [6 1 0 0]
}
