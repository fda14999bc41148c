package mpi_test

import (
	"fmt"

	"github.com/reprobench/reprobench/mpi"
)

// Each non-blocking collective has a blocking twin, whose result it
// computes (Op.Twin).
func ExampleCall_Blocking() {
	for _, c := range []mpi.Call{mpi.CallIallgather, mpi.CallIalltoall, mpi.CallIreduce,
		mpi.CallIreduceScatterBlock, mpi.CallIscan, mpi.CallIscatter} {
		b, ok := c.Blocking()
		fmt.Println(c, "->", b, ok)
	}
	// Output:
	// MPI_Iallgather -> MPI_Allgather true
	// MPI_Ialltoall -> MPI_Alltoall true
	// MPI_Ireduce -> MPI_Reduce true
	// MPI_Ireduce_scatter_block -> MPI_Reduce_scatter_block true
	// MPI_Iscan -> MPI_Scan true
	// MPI_Iscatter -> MPI_Scatter true
}

// Op.Params says which Observation fields and factors beyond the common
// ones a call reads (Op.Takes tests for a set), Op.Timer whose clock the
// runtime types osu and imb read for it.
func ExampleOp_Takes() {
	params := []mpi.Param{mpi.ParamOp, mpi.ParamRoot, mpi.ParamPeer, mpi.ParamOverlap,
		mpi.ParamInPlace, mpi.ParamRootShift, mpi.ParamBufOffset}
	for _, c := range []mpi.Call{mpi.CallAllreduce, mpi.CallBcast, mpi.CallPingPong, mpi.CallIallreduce, mpi.CallBW, mpi.CallMBWMR} {
		op := c.Op()
		var takes []mpi.Param
		for _, p := range params {
			if op.Takes(p) {
				takes = append(takes, p)
			}
		}
		timer := map[mpi.Timer]string{mpi.TimerDefined: "defined", mpi.TimerRoot: "root", mpi.TimerRank0: "rank 0"}[op.Timer]
		fmt.Printf("%s: %v; timer %s\n", op.Name, takes, timer)
	}
	// Output:
	// MPI_Allreduce: [op in_place buf_offset]; timer defined
	// MPI_Bcast: [root root_shift buf_offset]; timer defined
	// pingpong: [root peer buf_offset]; timer defined
	// MPI_Iallreduce: [op overlap buf_offset]; timer defined
	// bw: [root peer buf_offset]; timer root
	// mbw_mr: [buf_offset]; timer rank 0
}

// The thread levels InitThread takes, by MPI's names.
func ExampleThreadLevel() {
	for _, l := range []mpi.ThreadLevel{mpi.ThreadSingle, mpi.ThreadFunneled, mpi.ThreadSerialized, mpi.ThreadMultiple} {
		fmt.Println(l.MPIName())
	}
	// Output:
	// MPI_THREAD_SINGLE
	// MPI_THREAD_FUNNELED
	// MPI_THREAD_SERIALIZED
	// MPI_THREAD_MULTIPLE
}
