package mpitest

import (
	"errors"
	"strings"
	"testing"

	"github.com/reprobench/reprobench/mpi"
	"github.com/reprobench/reprobench/mpi/internal/elem"
	"github.com/reprobench/reprobench/timing"
)

// TestPersistentAllreduce: a prepared MPI_Allreduce_init takes, call for
// call, the virtual time of MPI_Allreduce in the same world (its model
// runs the twin's messages) and gives its result; it refuses a call
// before Prepare, after the release and on other buffers, and a second
// Prepare before the release, as the binding does.
func TestPersistentAllreduce(t *testing.T) {
	const p = 5
	elapsed := map[mpi.Call][p]timing.Ticks{}
	for _, call := range []mpi.Call{mpi.CallAllreduce, mpi.CallAllreduceInit} {
		w, _ := New(Config{Ranks: p, Seed: 3, Latency: exactNet, Clock: perfectClocks})
		var got [p]timing.Ticks
		err := w.Run(func(r *Rank) error {
			c := r.Comm()
			o := &mpi.Observation{Call: call, Count: 3, Type: mpi.Int64, Op: mpi.Max, Reps: 4, Sync: mpi.SyncBarrier,
				Send: make([]byte, 24), Recv: make([]byte, 24)}
			for i := range 3 {
				elem.Put(mpi.Int64, o.Send, i, float64(10*r.ID()+i))
			}
			release, err := mpi.Prepare(c, o)
			if err != nil {
				return err
			}
			if err := c.Observe(o, r.Clock()); err != nil {
				return err
			}
			got[r.ID()] = o.End - o.Start
			for i := range 3 {
				if v := elem.Get(mpi.Int64, o.Recv, i); v != float64(10*(p-1)+i) {
					t.Errorf("%v rank %d element %d = %v, want %d", call, r.ID(), i, v, 10*(p-1)+i)
				}
			}
			return release()
		})
		if err != nil {
			t.Fatalf("%v: %v", call, err)
		}
		elapsed[call] = got
	}
	if a, b := elapsed[mpi.CallAllreduce], elapsed[mpi.CallAllreduceInit]; a != b || a[0] <= 0 {
		t.Errorf("per-rank ticks of 4 calls: MPI_Allreduce %v, MPI_Allreduce_init %v; want equal and positive", a, b)
	}

	w, _ := New(Config{Ranks: 2})
	err := w.Run(func(r *Rank) error {
		c := r.Comm()
		o := &mpi.Observation{Call: mpi.CallAllreduceInit, Count: 1, Type: mpi.Float64, Send: make([]byte, 8), Recv: make([]byte, 8)}
		want := func(what string, err error, text string) {
			var me *mpi.Error
			if !errors.As(err, &me) || me.Code != -1 || !strings.Contains(me.Msg, text) {
				t.Errorf("%s: %v, want an *mpi.Error with %q", what, err, text)
			}
		}
		want("unprepared", c.Observe(o, r.Clock()), "needs the resources of mpi.Prepare")
		release, err := mpi.Prepare(c, o)
		if err != nil {
			return err
		}
		_, err = mpi.Prepare(c, o)
		want("second Prepare", err, "still holds")
		moved := *o
		moved.Recv = make([]byte, 8)
		want("other buffers", c.Observe(&moved, r.Clock()), "bound to the buffers")
		if err := c.Observe(o, r.Clock()); err != nil {
			return err
		}
		if err := release(); err != nil {
			return err
		}
		want("released", c.Observe(o, r.Clock()), "needs the resources of mpi.Prepare")
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
