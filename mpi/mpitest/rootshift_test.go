package mpitest

import (
	"slices"
	"testing"

	"github.com/reprobench/reprobench/factor"
	"github.com/reprobench/reprobench/mpi"
)

// bcastSenders runs one observation of call (MPI_Bcast or MPI_Ibcast) on
// 3 ranks, root 1, with reps calls each timed alone (a barrier between
// them) and root_shift at level shift, and returns the senders of the
// broadcast's messages in the order they were sent (the message log:
// ground truth) and the number of elements VerifyResult found wrong over
// the ranks.
func bcastSenders(t *testing.T, call mpi.Call, reps int, shift int64) (senders []int, bad int) {
	return bcastSendersOverlap(t, call, reps, shift, false)
}

// bcastSendersOverlap is bcastSenders, with overlap the overlap
// measurement of MPI_Ibcast (a pure and an overlapped phase of reps calls
// each).
func bcastSendersOverlap(t *testing.T, call mpi.Call, reps int, shift int64, overlap bool) (senders []int, bad int) {
	t.Helper()
	w, err := New(Config{Ranks: 3, Seed: 3, Log: true, Latency: exactNet, Clock: perfectClocks})
	if err != nil {
		t.Fatal(err)
	}
	obs := make([]mpi.Observation, 3)
	err = w.Run(func(r *Rank) error {
		o := &obs[r.ID()]
		*o = mpi.Observation{Call: call, Count: 4, Type: mpi.Int64, Root: 1, Reps: reps, TimeEach: true, Sync: mpi.SyncBarrier,
			Send: make([]byte, 32), Recv: make([]byte, 32)}
		o.SetParams(factor.Of(factor.RootShift, shift))
		o.Overlap, o.KernelIters = overlap, 100
		mpi.FillCheck(o.Send, o.Type, r.ID())
		return r.Comm().Observe(o, r.Clock())
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range w.Log() {
		if m.Tag == int(tagBcast) {
			senders = append(senders, m.Src)
		}
	}
	for rank := range obs {
		n, _ := mpi.VerifyResult(&obs[rank], 3, rank, obs[rank].Recv)
		bad += n
	}
	return senders, bad
}

// TestRootShiftBcast: with root_shift on, call i of an observation
// broadcasts from rank (1 + i) mod 3, so that over three calls every rank
// has been the root (on 3 ranks the binomial tree's root sends both
// messages of a call); with it off every call has root 1. The result
// check, against the last call's root, passes both ways; a check against
// the first call's root would fail with the rotation.
func TestRootShiftBcast(t *testing.T) {
	for _, call := range []mpi.Call{mpi.CallBcast, mpi.CallIbcast} {
		got, bad := bcastSenders(t, call, 3, 1)
		if want := []int{1, 1, 2, 2, 0, 0}; !slices.Equal(got, want) {
			t.Errorf("%v root_shift on: senders %v, want %v", call, got, want)
		}
		if bad != 0 {
			t.Errorf("%v root_shift on: %d wrong elements against the last root", call, bad)
		}
		got, bad = bcastSenders(t, call, 3, 0)
		if want := []int{1, 1, 1, 1, 1, 1}; !slices.Equal(got, want) {
			t.Errorf("%v root_shift off: senders %v, want %v", call, got, want)
		}
		if bad != 0 {
			t.Errorf("%v root_shift off: %d wrong elements", call, bad)
		}
	}
}

// TestRootShiftOverlap: the overlap measurement rotates the root in each
// of its two phases from Root, as rb_nbc_overlap does.
func TestRootShiftOverlap(t *testing.T) {
	got, bad := bcastSendersOverlap(t, mpi.CallIbcast, 3, 1, true)
	if want := []int{1, 1, 2, 2, 0, 0, 1, 1, 2, 2, 0, 0}; !slices.Equal(got, want) {
		t.Errorf("senders %v, want %v", got, want)
	}
	if bad != 0 {
		t.Errorf("%d wrong elements against the last root", bad)
	}
}

// TestRootShiftLastRoot: the result check uses the root of the last call
// of the observation, (Root + max(Reps, 1) − 1) mod p, and a check against
// Root itself finds the rotated result wrong.
func TestRootShiftLastRoot(t *testing.T) {
	o := mpi.Observation{Call: mpi.CallBcast, Root: 1, Reps: 5}
	o.SetParams(factor.Of(factor.RootShift, 1))
	if !o.RootShift() {
		t.Fatal("MPI_Bcast with root_shift on does not rotate")
	}
	for i, want := range []int{1, 2, 0, 1, 2} {
		if got := o.RootOf(i, 3); got != want {
			t.Errorf("RootOf(%d, 3) = %d, want %d", i, got, want)
		}
	}
	o.Params = factor.Values{}
	if o.RootShift() || o.RootOf(4, 3) != 1 {
		t.Error("root_shift unset rotates")
	}
	b := mpi.Observation{Call: mpi.CallAllreduce, Root: 1}
	b.SetParams(factor.Of(factor.RootShift, 1))
	if b.RootShift() {
		t.Error("MPI_Allreduce takes root_shift")
	}
	// Two calls on 3 ranks: the last root is 2, whose pattern rank 0
	// holds; against root 1 rank 0's buffer is wrong.
	_, bad := bcastSenders(t, mpi.CallBcast, 2, 1)
	if bad != 0 {
		t.Errorf("%d wrong elements against the last root", bad)
	}
	recv := make([]byte, 32)
	mpi.FillCheck(recv, mpi.Int64, 2)
	first := mpi.Observation{Call: mpi.CallBcast, Count: 4, Type: mpi.Int64, Root: 1, Reps: 2}
	if n, _ := mpi.VerifyResult(&first, 3, 0, recv); n == 0 {
		t.Error("rank 0's buffer from root 2 passes a check against root 1")
	}
	first.SetParams(factor.Of(factor.RootShift, 1))
	if n, _ := mpi.VerifyResult(&first, 3, 0, recv); n != 0 {
		t.Errorf("rank 0's buffer from root 2: %d wrong elements with root_shift", n)
	}
}
