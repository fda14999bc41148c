package mpi_test

import (
	"fmt"

	"github.com/reprobench/reprobench/mpi"
	"github.com/reprobench/reprobench/timing"
)

// The generic helpers work on typed slices; BufferSizes tells how large the
// buffers of a benchmarked call must be.
func ExampleBufferSizes() {
	send, recv := mpi.BufferSizes(mpi.CallAllgather, 4, mpi.Float64, 8)
	fmt.Println(send, recv, mpi.TypeOf[float64](), len(mpi.Bytes([]int64{1, 2})))
	// Output: 32 256 MPI_DOUBLE 16
}

// A program run under mpirun: initialize, time one barrier-synchronized
// 8-byte MPI_Allreduce in a single cgo call, and print it on rank 0.
func ExampleComm_Observe() {
	if err := mpi.Init(); err != nil {
		fmt.Println(err)
		return
	}
	defer mpi.Finalize()
	w := mpi.World()
	clk := timing.NewMonotonic()
	o := &mpi.Observation{Call: mpi.CallAllreduce, Send: make([]byte, 8), Recv: make([]byte, 8),
		Count: 1, Type: mpi.Float64, Op: mpi.Sum, Sync: mpi.SyncBarrier}
	if err := w.Observe(o, clk); err != nil {
		fmt.Println(err)
		return
	}
	if w.Rank() == 0 {
		fmt.Printf("MPI_Allreduce took %v\n", clk.Freq().Duration(o.End-o.Start))
	}
}

// Each call is one row of the operation table; BufferSizes, Validate, the
// engine, the simulator and the checkers read it.
func ExampleOps() {
	for _, op := range mpi.Ops() {
		if op.Family == mpi.FamilyColl && op.Takes(mpi.ParamOp|mpi.ParamRoot) {
			fmt.Printf("%s (%v): takes %v; buffers %s; C %s; simulator %v\n", op.Name, op.Family, op.Params, op.Buffers.Doc, op.C, op.Sim)
		}
	}
	op := mpi.CallGather.Op()
	s, r := mpi.BufferSizes(op.Call, 4, mpi.Float64, 3)
	fmt.Printf("%s of 4 float64 on 3 ranks: send %d bytes, receive %d\n", op.Name, s, r)
	// Output:
	// MPI_Reduce (coll): takes op,root,root_shift,buf_offset; buffers send n, recv n; C rb_reduce_call; simulator reference
	// MPI_Gather of 4 float64 on 3 ranks: send 32 bytes, receive 96
}
