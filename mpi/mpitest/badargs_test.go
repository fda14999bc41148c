package mpitest_test

import (
	"testing"

	"github.com/reprobench/reprobench/mpi/internal/badargs"
	"github.com/reprobench/reprobench/mpi/mpitest"
)

// TestBadArguments: the simulator rejects every invalid call of the shared
// list with the binding's error (mpicheck runs the same list under real
// MPI).
func TestBadArguments(t *testing.T) {
	w, err := mpitest.New(mpitest.Config{Ranks: 3, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	got := make([][]string, 3)
	err = w.Run(func(r *mpitest.Rank) error {
		for _, c := range badargs.Cases() {
			e := c.Call(r.Comm())
			s := "<nil>"
			if e != nil {
				s = e.Error()
			}
			got[r.ID()] = append(got[r.ID()], s)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for rank := range 3 {
		for i, c := range badargs.Cases() {
			if want := c.Want(3); got[rank][i] != want {
				t.Errorf("rank %d, %s: %q, want %q", rank, c.Name, got[rank][i], want)
			}
		}
	}
}
