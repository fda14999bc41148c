package mpi_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/reprobench/reprobench/internal/mpirun"
)

// TestNBCIntegration runs internal/nbccheck (the non-blocking collectives
// against their blocking twins, element by element, and the overlap
// measurement's invariants) under a real mpirun with 2 ranks and
// oversubscribed 4, for every installed MPI library.
func TestNBCIntegration(t *testing.T) {
	if testing.Short() {
		t.Skip("integration test: needs mpirun")
	}
	for _, f := range mpirun.Flavors(t) {
		bin := mpirun.Build(t, f, ".", "./internal/nbccheck")
		for _, np := range []int{2, 4} {
			t.Run(fmt.Sprintf("%s/np%d", f.Name, np), func(t *testing.T) {
				out := mpirun.MustRun(t, f, np, 240*time.Second, nil, bin)
				for r := 0; r < np; r++ {
					if want := fmt.Sprintf("rank %d/%d: ok ", r, np); !strings.Contains(out, want) {
						t.Errorf("missing %q in output:\n%s", want, out)
					}
				}
			})
		}
	}
}
