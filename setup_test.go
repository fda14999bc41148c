package reprobench_test

import (
	"fmt"
	"runtime"
	"strings"
	"testing"

	"github.com/reprobench/reprobench"
	"github.com/reprobench/reprobench/internal/launch"
	"github.com/reprobench/reprobench/mpi/mpitest"
)

// setupBytesPerRank returns the heap bytes allocated per rank by the
// set-up that every rank of Run goes through before its experiments
// (CheckLaunch, Prepare and the processor names) on an mpitest world of
// p ranks, 64 per node. The world's construction is left out.
func setupBytesPerRank(t *testing.T, p int) float64 {
	t.Helper()
	w, err := mpitest.New(mpitest.Config{Ranks: p, RanksPerNode: 64, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	noEnv := func(string) string { return "" }
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	err = w.Run(func(r *mpitest.Rank) error {
		if err := launch.CheckLaunch(r.Comm(), noEnv); err != nil {
			return err
		}
		if _, err := reprobench.Prepare(r.Comm(), reprobench.DefaultOptions()); err != nil {
			return err
		}
		names, err := reprobench.ProcessorNames(r.Comm())
		if err == nil && (r.ID() == 0) != (len(names) == p) {
			err = fmt.Errorf("rank %d: %d processor names", r.ID(), len(names))
		}
		return err
	})
	runtime.ReadMemStats(&after)
	if err != nil {
		t.Fatal(err)
	}
	return float64(after.TotalAlloc-before.TotalAlloc) / float64(p)
}

// TestSetupMemoryIndependentOfRanks: what a rank allocates in Run's set-up
// does not grow with the rank count. An allgather over the world costs
// every rank O(ranks) bytes, which in one process (a simulated world) is
// O(ranks²): the processor names' allgather alone would allocate at least
// 2 × 256 × 1024 bytes per rank at 1024 ranks (the receive buffer and the
// broadcast's copy), Prepare's 2 × 24 × 1024. The bound allows the per-rank
// cost at 16 ranks plus 16 KiB: rank 0's O(ranks) share (the names, the
// node count's gather buffer: about 24 bytes per rank) spread over the
// ranks is a few bytes per rank, and a broken set-up needs 512 KiB or more.
// The allocations are deterministic up to the runtime's own (scheduler,
// maps), far below that margin.
func TestSetupMemoryIndependentOfRanks(t *testing.T) {
	small := setupBytesPerRank(t, 16)
	large := setupBytesPerRank(t, 1024)
	t.Logf("set-up: %.0f bytes per rank at 16 ranks, %.0f at 1024", small, large)
	if large > small+16<<10 {
		t.Errorf("set-up allocates %.0f bytes per rank at 1024 ranks, %.0f at 16: it grows with the rank count", large, small)
	}
}

// TestGatherNames: rank 0 gets every rank's name, cut at 256 bytes and
// without trailing NULs, when the names differ (the allgather) and when
// they are equal (the hash's allreduce alone); the other ranks get nil.
func TestGatherNames(t *testing.T) {
	long := strings.Repeat("n", 300)
	for _, c := range []struct {
		name string
		of   func(rank int) string
	}{
		{"equal", func(int) string { return "host\x00" }},
		{"per node", func(r int) string { return fmt.Sprintf("node%d", r/3) }},
		{"long", func(r int) string { return long + fmt.Sprint(r) }},
	} {
		t.Run(c.name, func(t *testing.T) {
			const p = 7
			w, err := mpitest.New(mpitest.Config{Ranks: p, Seed: 1})
			if err != nil {
				t.Fatal(err)
			}
			got := make([][]string, p)
			err = w.Run(func(r *mpitest.Rank) error {
				var err error
				got[r.ID()], err = reprobench.GatherNames(r.Comm(), c.of(r.ID()))
				return err
			})
			if err != nil {
				t.Fatal(err)
			}
			for r := 1; r < p; r++ {
				if got[r] != nil {
					t.Errorf("rank %d got %d names, want none", r, len(got[r]))
				}
			}
			if len(got[0]) != p {
				t.Fatalf("rank 0 got %d names, want %d", len(got[0]), p)
			}
			for r, n := range got[0] {
				want := strings.TrimRight(c.of(r), "\x00")
				if len(want) > 256 {
					want = want[:256]
				}
				if n != want {
					t.Errorf("name of rank %d: %q, want %q", r, n, want)
				}
			}
		})
	}
}
