package guidecheck_test

import (
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/reprobench/reprobench/guidelines"
	"github.com/reprobench/reprobench/internal/guidecheck"
	"github.com/reprobench/reprobench/mpi"
	"github.com/reprobench/reprobench/mpi/mpitest"
)

// counts include 1 (fewer elements than ranks), a prime (the split
// mock-ups pad) and a multiple of every p tested.
var counts = []int{1, 7, 12}

func run(t *testing.T, p int, gs []guidelines.Guideline, root int) (checks int, errs []error) {
	t.Helper()
	w, err := mpitest.New(mpitest.Config{Ranks: p, Seed: uint64(p)})
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	err = w.Run(func(r *mpitest.Rank) error {
		n, e := guidecheck.Check(r.Comm(), r.Clock(), gs, counts, []mpi.Datatype{mpi.Int64, mpi.Float64, mpi.Int32}, mpi.Sum, root)
		mu.Lock()
		checks += n
		errs = append(errs, e...)
		mu.Unlock()
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return checks, errs
}

// TestMockupsComputeTheLeftHandSide: in the simulator, every right-hand
// side of the default table gives the left-hand side's result element by
// element, on 2, 3 (blocks padded) and 4 ranks, rooted at 0 and at the last rank.
func TestMockupsComputeTheLeftHandSide(t *testing.T) {
	for _, p := range []int{2, 3, 4} {
		for _, root := range []int{0, p - 1} {
			t.Run(fmt.Sprintf("np%d/root%d", p, root), func(t *testing.T) {
				checks, errs := run(t, p, guidelines.Default(), root)
				for _, e := range errs {
					t.Error(e)
				}
				if checks < len(guidelines.Default())*len(counts)*3 {
					t.Errorf("only %d comparisons", checks)
				}
			})
		}
	}
}

// TestCheckFindsWrongMockups: guidelines whose sides do different jobs are
// caught.
func TestCheckFindsWrongMockups(t *testing.T) {
	for _, text := range []string{
		"MPI_Scan(n) <= MPI_Exscan(n)",
		"MPI_Allreduce(n) <= MPI_Reduce(n)",
		"MPI_Allgather(n) <= MPI_Alltoall(n)", // without input=replicated
		"MPI_Scatter(n) <= MPI_Bcast(p*n)",    // without output=rank-block
	} {
		g, err := guidelines.Parse("wrong", text)
		if err != nil {
			t.Fatal(err)
		}
		if _, errs := run(t, 3, []guidelines.Guideline{g}, 0); len(errs) == 0 || !strings.Contains(errs[0].Error(), "gives") && !strings.Contains(errs[0].Error(), "result") {
			t.Errorf("%s: no mismatch found (%v)", text, errs)
		}
	}
}
