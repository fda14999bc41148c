package mpi_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/reprobench/reprobench/internal/mpirun"
)

// TestGuidelineMockups runs mpi/internal/guidecheck, which checks that
// every performance guideline's right-hand side (the mock-ups of guide.go
// in the C critical path, and their Go reference) computes its left-hand
// side's result element by element, under a real mpirun with 2 ranks and
// oversubscribed 3 (padded blocks) and 4, for every installed MPI library.
func TestGuidelineMockups(t *testing.T) {
	if testing.Short() {
		t.Skip("integration test: needs mpirun")
	}
	for _, f := range mpirun.Flavors(t) {
		bin := mpirun.Build(t, f, ".", "./internal/guidecheck")
		for _, np := range []int{2, 3, 4} {
			t.Run(fmt.Sprintf("%s/np%d", f.Name, np), func(t *testing.T) {
				out := mpirun.MustRun(t, f, np, 240*time.Second, nil, bin)
				for r := 0; r < np; r++ {
					want := fmt.Sprintf("rank %d/%d: ok ", r, np)
					if !strings.Contains(out, want) {
						t.Errorf("missing %q in output:\n%s", want, out)
					}
				}
			})
		}
	}
}
