package mpitest

import (
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/reprobench/reprobench/mpi"
	"github.com/reprobench/reprobench/mpi/internal/opcheck"
	"github.com/reprobench/reprobench/timing"
)

// TestModels: every model a row of the table may name is implemented here.
func TestModels(t *testing.T) {
	for _, m := range mpi.Models() {
		if int(m) >= len(models) || models[m].run == nil {
			t.Errorf("model %v is not implemented (models.go)", m)
		}
	}
	for _, op := range mpi.Ops() {
		if _, err := modelOf(&mpi.Observation{Call: op.Call}); err != nil {
			t.Errorf("%v: %v", op.Name, err)
		}
	}
}

// runCases runs opcheck's cases on a world of p ranks and returns the
// mismatches of every rank.
func runCases(t *testing.T, p int, cases []opcheck.Case, wrap func(mpi.Comm) mpi.Comm) []string {
	t.Helper()
	w, err := New(Config{Ranks: p, Seed: uint64(p)})
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var errs []string
	err = w.Run(func(r *Rank) error {
		c := r.Comm()
		if wrap != nil {
			c = wrap(c)
		}
		for _, k := range cases {
			if err := opcheck.Run(c, r.Clock(), k); err != nil {
				mu.Lock()
				errs = append(errs, err.Error())
				mu.Unlock()
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return errs
}

// TestOpsResults checks every row of the table against its Result on 1 to
// 6 simulated ranks, every datatype the row takes, counts 1 and 7, root 0
// and the last rank, skews 1 and 3 (opcheck.Cases), with MPI_SUM, and on
// 4 ranks with MPI_MAX.
func TestOpsResults(t *testing.T) {
	types := []mpi.Datatype{mpi.Byte, mpi.Int32, mpi.Int64, mpi.Float32, mpi.Float64}
	n := 0
	for p := 1; p <= 6; p++ {
		cases := opcheck.Cases(p, types, []int{1, 7}, []int{0, p - 1}, mpi.Sum)
		if p == 4 {
			cases = append(cases, opcheck.Cases(p, types[1:], []int{5}, []int{2}, mpi.Max)...)
		}
		n += len(cases)
		for _, e := range runCases(t, p, cases, nil) {
			t.Errorf("p %d: %s", p, e)
		}
	}
	// Every row with a Result was checked somewhere.
	seen := map[mpi.Call]bool{}
	for p := 1; p <= 6; p++ {
		for _, k := range opcheck.Cases(p, types, []int{1}, []int{0}, mpi.Sum) {
			seen[k.Call] = true
		}
	}
	for _, op := range mpi.Ops() {
		if op.Result != nil && !seen[op.Call] {
			t.Errorf("%v has a Result but no case", op.Name)
		}
	}
	t.Logf("%d cases", n)
}

// corrupt is a communicator whose observations leave one wrong byte in the
// receive buffer of its last rank.
type corrupt struct{ mpi.Comm }

func (c corrupt) Observe(o *mpi.Observation, clk timing.Clock) error {
	err := c.Comm.Observe(o, clk)
	if c.Rank() == c.Size()-1 && len(o.Recv) > 0 {
		o.Recv[0] ^= 0x10
	}
	return err
}

// TestOpsResultsCanFail: a communicator that gets one byte wrong fails the
// check of every row that defines a result on the last rank.
func TestOpsResultsCanFail(t *testing.T) {
	cases := opcheck.Cases(3, []mpi.Datatype{mpi.Int32}, []int{2}, []int{0}, mpi.Sum)
	errs := runCases(t, 3, cases, func(c mpi.Comm) mpi.Comm { return corrupt{c} })
	got := strings.Join(errs, "\n")
	for _, call := range []mpi.Call{mpi.CallAllreduce, mpi.CallAlltoall, mpi.CallIallreduce, mpi.CallAllgatherv, mpi.CallReduceBcast, mpi.CallAllreduceInit} {
		if !strings.Contains(got, fmt.Sprintf("%v int32", call)) {
			t.Errorf("a corrupted %v passed the check", call)
		}
	}
}
