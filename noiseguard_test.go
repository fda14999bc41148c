package reprobench_test

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/reprobench/reprobench"
	"github.com/reprobench/reprobench/design"
	"github.com/reprobench/reprobench/factor"
	"github.com/reprobench/reprobench/mpi"
	"github.com/reprobench/reprobench/mpi/mpitest"
	"github.com/reprobench/reprobench/window"
)

func TestNodeIndex(t *testing.T) {
	got := reprobench.NodeIndex([]string{"b", "b", "a", "c", "a"})
	if want := []int{0, 0, 1, 2, 1}; !slices.Equal(got, want) {
		t.Errorf("NodeIndex = %v, want %v", got, want)
	}
}

// Every rank gets rank 0's node numbering and seeds; a probe without
// periodic sources, or not JSON, is refused on every rank.
func TestNewNoiseGuard(t *testing.T) {
	w, err := mpitest.New(mpitest.Config{Ranks: 4})
	if err != nil {
		t.Fatal(err)
	}
	probe := `{"periodic_sources": [{"period_s": 0.001, "duration_s": 3.5e-05, "end_s": 12345.000005}]}`
	for _, tc := range []struct {
		probe, err string
	}{{probe, ""}, {"", ""}, {`{"cpus": []}`, "no periodic_sources"}, {"{", "noise probe"}} {
		nodes := make([]int, 4)
		err = w.Run(func(r *mpitest.Rank) error {
			var names []string
			var p []byte
			if r.ID() == 0 {
				names, p = []string{"n1", "n2", "n1", "n2"}, []byte(tc.probe)
			}
			g, err := reprobench.NewNoiseGuard(r.Comm(), names, p)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Errorf("rank %d, probe %q: %v, want an error with %q", r.ID(), tc.probe, err, tc.err)
				}
				return nil
			}
			if err != nil {
				return err
			}
			nodes[r.ID()] = g.Nodes()
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if tc.err == "" && !slices.Equal(nodes, []int{2, 2, 2, 2}) {
			t.Errorf("node counts per rank %v, want 2 everywhere", nodes)
		}
	}
}

func TestFromDesignNoiseGuard(t *testing.T) {
	base := reprobench.Experiment{Type: mpi.Float64, Nrep: 3, Sync: window.Config{Method: window.Fixed, Window: 100 * time.Microsecond, NoiseGuard: true}}
	for _, tc := range []struct {
		cell string
		want bool
	}{{"", true}, {"on", true}, {"off", false}} {
		de := design.Experiment{Call: "MPI_Allreduce", MsizeBytes: 8}
		if err := de.Factors.SetCell(factor.NoiseGuard, tc.cell); err != nil {
			t.Fatal(err)
		}
		ex, err := reprobench.FromDesign(de, reprobench.Base{Experiment: base}, 1, 2)
		if err != nil {
			t.Fatal(err)
		}
		if ex.Sync.NoiseGuard != tc.want {
			t.Errorf("noise_guard cell %q over a guarded base: %v, want %v", tc.cell, ex.Sync.NoiseGuard, tc.want)
		}
		if f := ex.Raw().Factors.Cell(factor.NoiseGuard); f != map[bool]string{true: "on", false: "off"}[tc.want] {
			t.Errorf("cell %q: raw factor %q", tc.cell, f)
		}
	}
	if !reprobench.GuardsNoise([]reprobench.Experiment{base}) || reprobench.GuardsNoise([]reprobench.Experiment{{Sync: window.Config{Method: window.Barrier, NoiseGuard: true}}}) {
		t.Error("GuardsNoise: a guarded window must count, a guarded barrier not")
	}
}
