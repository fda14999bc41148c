package mpi_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/reprobench/reprobench/internal/mpirun"
)

// TestIntegration runs internal/mpicheck, which checks every operation of
// the binding element by element, under a real mpirun with 2 ranks and
// oversubscribed 4 and 8 ranks, for every installed MPI library.
func TestIntegration(t *testing.T) {
	runCheck(t, "./internal/mpicheck", []int{2, 4, 8}, nil)
}

// runCheck runs the check program pkg (a main package that prints "rank
// R/P: ok …" on every rank that passed) under a real mpirun with each of
// nps ranks, for every installed MPI library; args, when not nil, gives
// its arguments for np ranks.
func runCheck(t *testing.T, pkg string, nps []int, args func(np int) []string) {
	t.Helper()
	if testing.Short() {
		t.Skip("integration test: needs mpirun")
	}
	for _, f := range mpirun.Flavors(t) {
		bin := mpirun.Build(t, f, ".", pkg)
		for _, np := range nps {
			t.Run(fmt.Sprintf("%s/np%d", f.Name, np), func(t *testing.T) {
				var a []string
				if args != nil {
					a = args(np)
				}
				out := mpirun.MustRun(t, f, np, 240*time.Second, nil, bin, a...)
				for r := 0; r < np; r++ {
					if want := fmt.Sprintf("rank %d/%d: ok ", r, np); !strings.Contains(out, want) {
						t.Errorf("missing %q in output:\n%s", want, out)
					}
				}
			})
		}
	}
}
