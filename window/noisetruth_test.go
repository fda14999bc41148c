package window_test

import (
	"math"
	"testing"
	"time"

	"github.com/reprobench/reprobench/mpi"
	"github.com/reprobench/reprobench/mpi/mpitest"
	"github.com/reprobench/reprobench/window"
)

// noisyWorld is a world of ranks ranks, ranksPerNode per node, whose nodes
// have the periodic noise of src.
func noisyWorld(t *testing.T, ranks, ranksPerNode int, seed uint64, src func(node int) []mpitest.PeriodicNoise) *mpitest.World {
	t.Helper()
	w, err := mpitest.New(mpitest.Config{Ranks: ranks, Seed: seed, RanksPerNode: ranksPerNode,
		Latency: mpitest.Latency{SpikeProb: -1}, NodeNoise: src})
	if err != nil {
		t.Fatal(err)
	}
	return w
}

// tick is this machine's tick as measured (docs/windows.md): 1 ms, 35 µs ± 1.5 µs.
var tick = mpitest.PeriodicNoise{Period: time.Millisecond, Phase: 970 * time.Microsecond,
	Duration: 35 * time.Microsecond, DurationJitter: 1500 * time.Nanosecond}

// lateShare counts the late observations of rec and the span of their
// deadlines in true time.
func lateShare(w *mpitest.World, rec *window.Record) (share, from, to float64) {
	late := 0
	for i := range rec.N {
		if rec.Code[i]&window.CodeLate != 0 {
			late++
		}
	}
	return float64(late) / float64(rec.N), w.TrueTime(0, rec.Deadline[0]), w.TrueTime(0, rec.Deadline[rec.N-1])
}

// noiseCase is a world whose nodes carry periodic noise (mpitest's
// NodeNoise): ranks in all, ranks per node (0: one node), the sources of each
// node.
type noiseCase struct {
	name         string
	ranks, perNd int
	src          func(node int) []mpitest.PeriodicNoise
}

// noiseCases are the noisy worlds the window tests check against ground
// truth: one node with the tick, and two nodes with a second, drifting
// source each.
var noiseCases = []noiseCase{
	{"one node, one tick", 2, 0, func(int) []mpitest.PeriodicNoise { return []mpitest.PeriodicNoise{tick} }},
	{"two nodes, two sources each", 4, 2, func(node int) []mpitest.PeriodicNoise {
		second := mpitest.PeriodicNoise{Period: 1700 * time.Microsecond, Phase: time.Duration(300+200*node) * time.Microsecond,
			Duration: 20 * time.Microsecond, Drift: 25e-6, Prob: 0.7}
		return []mpitest.PeriodicNoise{tick, second}
	}},
}

// Without a learner, the share of late windowed observations is the share
// of time the periodic noise holds a rank past the late tolerance
// (mpitest's ground truth), within a binomial tolerance.
func TestPeriodicNoiseLateShareMatchesTruth(t *testing.T) {
	for _, tc := range noiseCases {
		t.Run(tc.name, func(t *testing.T) {
			w := noisyWorld(t, tc.ranks, tc.perNd, 3, tc.src)
			cfg := window.Config{Method: window.Fixed, Window: 100 * time.Microsecond, Batch: 100}
			const n = 20000
			rec, _ := runSync(t, w, cfg, mpi.CallAllreduce, n, nil)
			got, from, to := lateShare(w, rec)
			const tol = 1e-6 // the default late tolerance
			want := w.LateShare(from, to, tol)
			sd := math.Sqrt(want * (1 - want) / n)
			t.Logf("late share %.4f, ground truth %.4f (binomial sd %.4f)", got, want, sd)
			if want < 0.02 {
				t.Fatalf("ground truth %v: the noise should make a few percent late", want)
			}
			if math.Abs(got-want) > 4*sd {
				t.Errorf("late share %.4f, ground truth %.4f ± %.4f (4 sd)", got, want, 4*sd)
			}
			// Observation by observation: late exactly when a node's
			// noise held its ranks past the deadline plus the tolerance.
			wrong := 0
			for i := range rec.N {
				d := w.TrueTime(0, rec.Deadline[i])
				held := false
				for r := range tc.ranks {
					node := w.Node(r)
					held = held || w.NoiseEnd(node, d)-d > tol
				}
				if held != (rec.Code[i]&window.CodeLate != 0) {
					wrong++
				}
			}
			if wrong > rec.N/1000 {
				t.Errorf("%d of %d observations late when the noise did not hold a rank past its deadline, or the reverse", wrong, rec.N)
			}
		})
	}
}
