package mpi_test

import (
	"fmt"

	"github.com/reprobench/reprobench/mpi"
	"github.com/reprobench/reprobench/mpi/mpitest"
)

// sumAll is a user helper over every element type the generic helpers
// accept: the sum of x over the ranks, on every rank.
func sumAll[T mpi.Elem](c mpi.Comm, x []T) ([]T, error) {
	out := make([]T, len(x))
	return out, mpi.Allreduce(c, x, out, mpi.Sum)
}

// A generic helper of the user's own, constrained by Elem, and one
// observation timed from Go through a communicator's methods (ObserveGo,
// the reference semantics of Comm.Observe, which a Comm of the user's own
// may call), here on 2 simulated ranks. User tags stay below TagReserved.
func ExampleObserveGo() {
	w, _ := mpitest.New(mpitest.Config{Ranks: 2, Seed: 1})
	err := w.Run(func(r *mpitest.Rank) error {
		c := r.Comm()
		s, err := sumAll(c, []int32{int32(c.Rank() + 1)})
		if err != nil {
			return err
		}
		o := &mpi.Observation{Call: mpi.CallAllreduce, Send: make([]byte, 8), Recv: make([]byte, 8),
			Count: 1, Type: mpi.Float64, Op: mpi.Sum, Sync: mpi.SyncBarrier}
		if err := o.Validate(c.Size()); err != nil { // ObserveGo's precondition
			return err
		}
		if err := mpi.ObserveGo(c, o, r.Clock()); err != nil {
			return err
		}
		if c.Rank() == 0 {
			fmt.Println(s[0], o.End > o.Start, "user tags below", mpi.TagReserved)
		}
		return nil
	})
	if err != nil {
		fmt.Println(err)
	}
	// Output: 3 true user tags below 31744
}
