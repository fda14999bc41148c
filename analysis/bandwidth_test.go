package analysis

import (
	"math"
	"testing"
)

func TestRates(t *testing.T) {
	for _, c := range []struct {
		k           GroupKey
		t           float64
		bytes, msgs float64
		ok          bool
	}{
		{GroupKey{Call: "bw", MsizeBytes: 65536, Np: 2, Labels: "bw_window=64,cache=warm"}, 1e-3, 64 * 65536 / 1e-3, 64 / 1e-3, true},
		{GroupKey{Call: "bibw", MsizeBytes: 8, Np: 2, Labels: "bw_window=16"}, 2e-6, 2 * 16 * 8 / 2e-6, 32 / 2e-6, true},
		{GroupKey{Call: "mbw_mr", MsizeBytes: 1024, Np: 6, Labels: "bw_window=10"}, 1e-4, 3 * 10 * 1024 / 1e-4, 30 / 1e-4, true},
		{GroupKey{Call: "MPI_Put", MsizeBytes: 8, Np: 2, Labels: "rma_sync=fence"}, 1e-6, 0, 0, false},
		{GroupKey{Call: "bw", MsizeBytes: 8, Np: 2}, 1e-6, 0, 0, false}, // no bw_window column
		{GroupKey{Call: "bw", MsizeBytes: 8, Np: 2, Labels: "bw_window=64"}, math.NaN(), 0, 0, false},
	} {
		b, m, ok := Rates(c.k, c.t)
		if ok != c.ok || math.Abs(b-c.bytes) > 1e-9*c.bytes || math.Abs(m-c.msgs) > 1e-9*c.msgs {
			t.Errorf("%v at %g s: %g B/s %g msg/s %v, want %g %g %v", c.k, c.t, b, m, ok, c.bytes, c.msgs, c.ok)
		}
	}
}
