package window_test

import (
	"math"
	"testing"
	"time"

	"github.com/reprobench/reprobench/mpi/mpitest"
	"github.com/reprobench/reprobench/rawdata"
	"github.com/reprobench/reprobench/window"
)

// baseline runs MeasureBaseline on every rank of w and returns rank 0's
// result and the true-time span it ran in.
func baseline(t *testing.T, w *mpitest.World, cfg window.Config, n int) (res *rawdata.WindowBaseline, from, to float64) {
	t.Helper()
	err := w.Run(func(r *mpitest.Rank) error {
		c := r.Comm()
		t0 := r.Clock().Now()
		b, err := window.MeasureBaseline(c, r.Clock(), truth{w, c.Rank()}, cfg, n)
		if err != nil {
			return err
		}
		if c.Rank() == 0 {
			res, from, to = b, w.TrueTime(0, t0), w.TrueTime(0, r.Clock().Now())
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return res, from, to
}

// The window loop with nothing to time loses what the machine's noise
// makes late (mpitest's ground truth, within 4 binomial standard errors:
// a false failure about once in 16 000 seeds), and nothing on a quiet
// machine.
func TestMeasureBaselineMatchesTruth(t *testing.T) {
	cfg := window.Config{Window: 100 * time.Microsecond}
	const n = 10000
	for _, tc := range noiseCases {
		t.Run(tc.name, func(t *testing.T) {
			w := noisyWorld(t, tc.ranks, tc.perNd, 5, tc.src)
			b, from, to := baseline(t, w, cfg, n)
			if b.Observations != n || b.Batches != n/100 || b.WindowS != 1e-4 || b.LateToleranceS != 1e-6 {
				t.Fatalf("record %+v", b)
			}
			got := float64(b.Invalid) / n
			want := w.LateShare(from, to, 1e-6)
			sd := math.Sqrt(want * (1 - want) / n)
			t.Logf("baseline invalid share %.4f (late %d of %d), ground truth %.4f (binomial sd %.4f)", got, b.Late, n, want, sd)
			if want < 0.02 {
				t.Fatalf("ground truth %v: the noise should make a few percent late", want)
			}
			if math.Abs(got-want) > 4*sd {
				t.Errorf("baseline invalid share %.4f, ground truth %.4f ± %.4f (4 sd)", got, want, 4*sd)
			}
		})
	}
	t.Run("quiet", func(t *testing.T) {
		b, _, _ := baseline(t, newWorld(t, 2, 5), cfg, 1000)
		if b.Invalid != 0 || b.Late != 0 {
			t.Errorf("a machine without noise lost %d of %d (late %d)", b.Invalid, b.Observations, b.Late)
		}
	})
}

// MeasureBaseline needs a global clock and refuses a negative count.
func TestMeasureBaselineErrors(t *testing.T) {
	w := newWorld(t, 2, 1)
	err := w.Run(func(r *mpitest.Rank) error {
		if _, err := window.MeasureBaseline(r.Comm(), r.Clock(), nil, window.Config{}, 10); err != window.ErrNoGlobalClock {
			t.Errorf("no global clock: %v", err)
		}
		if _, err := window.MeasureBaseline(r.Comm(), r.Clock(), truth{w, r.Comm().Rank()}, window.Config{}, -1); err == nil {
			t.Error("a negative count was accepted")
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
