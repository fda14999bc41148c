package mpi_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/reprobench/reprobench/internal/mpirun"
)

// TestVCollIntegration runs internal/vcollcheck (every vcoll call, checked
// element by element) under a real mpirun with 2 ranks and oversubscribed
// 4 ranks, for every installed MPI library.
func TestVCollIntegration(t *testing.T) {
	if testing.Short() {
		t.Skip("integration test: needs mpirun")
	}
	for _, f := range mpirun.Flavors(t) {
		bin := mpirun.Build(t, f, ".", "./internal/vcollcheck")
		for _, np := range []int{2, 4} {
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
