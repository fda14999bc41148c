package clocksync_test

import (
	"runtime"
	"testing"

	"github.com/reprobench/reprobench/clocksync"
	"github.com/reprobench/reprobench/mpi/mpitest"
)

// harnessBytesPerRank returns the bytes allocated per rank by the
// accuracy harness (one check, no synchronization before it) on p
// simulated ranks, world included.
func harnessBytesPerRank(t *testing.T, p int) float64 {
	t.Helper()
	var m0, m1 runtime.MemStats
	runtime.ReadMemStats(&m0)
	w, err := mpitest.New(mpitest.Config{Ranks: p, Seed: 2})
	if err != nil {
		t.Fatal(err)
	}
	err = w.Run(func(r *mpitest.Rank) error {
		g := clocksync.NewGlobalClock(r.Clock())
		h := &clocksync.Harness{Sleep: r.Sleep, Offset: &clocksync.SKaMPIPingPong{MinPingPongs: 2, MaxPingPongs: 2}}
		_, err := h.Run(r.Comm(), g)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	runtime.ReadMemStats(&m1)
	return float64(m1.TotalAlloc-m0.TotalAlloc) / float64(p)
}

// TestHarnessMemoryLinear: the harness allocates O(P) in all, not O(P²):
// per rank, as much at 1024 ranks as at 128, within 1.5×. A link to every
// rank on every rank (144 bytes each) would add 129 KB per rank at 1024
// ranks against 18 KB at 128.
func TestHarnessMemoryLinear(t *testing.T) {
	small, large := harnessBytesPerRank(t, 128), harnessBytesPerRank(t, 1024)
	t.Logf("harness: %.0f bytes per rank at 128 ranks, %.0f at 1024", small, large)
	if large > 1.5*small {
		t.Errorf("harness allocated %.0f bytes per rank at 1024 ranks, %.0f at 128", large, small)
	}
}
