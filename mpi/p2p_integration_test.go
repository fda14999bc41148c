package mpi_test

import "testing"

// TestP2PIntegration runs internal/p2pcheck (bw, bibw, mbw_mr, and Put,
// Get, Accumulate under fence, lock and flush, results checked element by
// element) under a real mpirun with 2 ranks, and oversubscribed 3 (mbw_mr
// refused) and 4 ranks, for every installed MPI library.
func TestP2PIntegration(t *testing.T) {
	runCheck(t, "./internal/p2pcheck", []int{2, 3, 4}, func(np int) []string {
		if np > 2 {
			return []string{"-quick"}
		}
		return nil
	})
}
