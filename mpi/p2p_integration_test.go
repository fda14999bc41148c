package mpi_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/reprobench/reprobench/internal/mpirun"
)

// TestP2PIntegration runs internal/p2pcheck (bw, bibw, mbw_mr, and Put,
// Get, Accumulate under fence, lock and flush, results checked element by
// element) under a real mpirun with 2 ranks, and oversubscribed 3 (mbw_mr
// refused) and 4 ranks, for every installed MPI library.
func TestP2PIntegration(t *testing.T) {
	if testing.Short() {
		t.Skip("integration test: needs mpirun")
	}
	for _, f := range mpirun.Flavors(t) {
		bin := mpirun.Build(t, f, ".", "./internal/p2pcheck")
		for _, np := range []int{2, 3, 4} {
			t.Run(fmt.Sprintf("%s/np%d", f.Name, np), func(t *testing.T) {
				var args []string
				if np > 2 {
					args = []string{"-quick"}
				}
				out := mpirun.MustRun(t, f, np, 240*time.Second, nil, bin, args...)
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
