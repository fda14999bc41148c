package reprobench

import (
	"github.com/reprobench/reprobench/cache"
	"github.com/reprobench/reprobench/mpi"
	"github.com/reprobench/reprobench/window"
)

// fillCheck writes rank's result-check pattern (mpi.FillCheck) into every
// send slot of bufs, before the experiment's first observation.
func fillCheck(bufs *cache.Buffers, d mpi.Datatype, rank int) {
	bufs.FillSend(func(b []byte) { mpi.FillCheck(b, d, rank) })
}

// verify checks the result of the last measured observation of o, the one
// whose receive buffer the observations left (o.Recv), on every rank
// (mpi.VerifyResult), and marks its row window.CodeWrongResult when any
// rank found a difference. The ranks agree by one allreduce (MPI_MAX) of
// one int64, outside every timed interval and after the window sequence;
// the check's own cost is computing the expected result, O(p × send
// bytes) on each rank.
//
// A call that rotates its root (root_shift) is checked against the root
// of the observation's last call (mpi.VerifyResult).
//
// An in-place call (mpi.Observation.InPlace) reads its input from the
// receive buffer, which the timed calls overwrote, so its check runs one
// more call, untimed, after mpi.InPlaceInput put the send buffer's pattern
// there, and checks that call's result (with root_shift, that call is an
// observation's first: its root is o.Root).
func (e *engine) verify(o *mpi.Observation, rec *window.Record) error {
	c := e.Comm
	checked := o
	if o.InPlace() {
		one := *o
		one.Reps, one.Sync, one.TimeEach, one.Overlap, one.Offsets, one.Flush, one.CallIndex = 1, mpi.SyncBarrier, false, false, nil, nil, 0
		mpi.InPlaceInput(&one, c.Rank(), c.Size())
		if err := c.Observe(&one, e.Clock); err != nil {
			return err
		}
		checked = &one
	}
	bad, _ := mpi.VerifyResult(checked, c.Size(), c.Rank(), checked.Recv)
	mine, all := []int64{int64(bad)}, []int64{0}
	if err := mpi.Allreduce(c, mine, all, mpi.Max); err != nil {
		return err
	}
	if all[0] > 0 && rec.N > 0 {
		rec.Code[rec.N-1] |= window.CodeWrongResult
	}
	return nil
}
