package reprobench_test

import (
	"testing"

	"github.com/reprobench/reprobench"
	"github.com/reprobench/reprobench/design"
	"github.com/reprobench/reprobench/factor"
	"github.com/reprobench/reprobench/mpi"
)

// run --skew is the default of the calls with count vectors only; a
// design's skew cell applies as written, and the engine refuses it where
// there are no count vectors.
func TestSkewFromDesign(t *testing.T) {
	base := reprobench.Experiment{Type: mpi.Float64, Nrep: 1, Params: factor.Of(factor.Skew, 4)}
	for _, tc := range []struct {
		call    string
		cell    int
		want    int
		refused bool
	}{
		{"MPI_Alltoallv", 0, 4, false},
		{"MPI_Alltoallv", 2, 2, false},
		{"MPI_Reduce_scatter", 0, 4, false},
		{"MPI_Sendrecv", 0, 0, false},
		{"MPI_Allreduce", 0, 0, false},
		{"MPI_Sendrecv", 2, 0, true},
	} {
		de := design.Experiment{Call: tc.call, MsizeBytes: 64}
		if tc.cell != 0 {
			de.Factors.Set(factor.Skew, int64(tc.cell))
		}
		ex, err := reprobench.FromDesign(de, reprobench.Base{Experiment: base}, 1, 4)
		if tc.refused {
			if err == nil {
				t.Errorf("%s with skew cell %d accepted", tc.call, tc.cell)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s skew cell %d: %v", tc.call, tc.cell, err)
			continue
		}
		if got, _ := ex.Params.Get(factor.Skew); int(got) != tc.want {
			t.Errorf("%s skew cell %d: skew %d, want %d", tc.call, tc.cell, got, tc.want)
		}
	}
}
