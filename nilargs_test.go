package reprobench_test

import (
	"testing"

	"github.com/reprobench/reprobench"
	"github.com/reprobench/reprobench/analysis"
	"github.com/reprobench/reprobench/clocksync"
	"github.com/reprobench/reprobench/kernel"
	"github.com/reprobench/reprobench/mpi/mpitest"
	"github.com/reprobench/reprobench/rawdata"
	"github.com/reprobench/reprobench/timing"
	"github.com/reprobench/reprobench/window"
)

// TestNilArguments: the library's entry points return an error for a nil
// communicator, clock, function, record or metadata instead of panicking,
// and the order statistics take unsorted samples.
func TestNilArguments(t *testing.T) {
	clk := timing.NewMonotonic()
	w, err := mpitest.New(mpitest.Config{Ranks: 1})
	if err != nil {
		t.Fatal(err)
	}
	err = w.Run(func(r *mpitest.Rank) error {
		c := r.Comm()
		sp, _ := clocksync.ParseSpec("hca3")
		alg, _ := sp.New()
		sy, err := window.New(c, r.Clock(), nil, window.Config{})
		if err != nil {
			return err
		}
		for name, f := range map[string]func() error{
			"window.New(nil comm)":   func() error { _, err := window.New(nil, clk, nil, window.Config{}); return err },
			"window.New(nil clock)":  func() error { _, err := window.New(c, nil, nil, window.Config{}); return err },
			"Sync.Run(nil, nil)":     func() error { return sy.Run(nil, 1, nil, false) },
			"Sync.RunFunc(nil)":      func() error { return sy.RunFunc(nil, 1, window.NewRecord(1), false) },
			"kernel.Bracket(nil)":    func() error { _, err := kernel.Bracket(c, r.Clock(), nil, nil); return err },
			"Engine{}.Run":           func() error { _, err := (&reprobench.Engine{}).Run(nil, nil); return err },
			"Algorithm.Sync(nil)":    func() error { _, err := alg.Sync(nil, nil); return err },
			"Harness.Run(nil)":       func() error { _, err := (&clocksync.Harness{}).Run(c, nil); return err },
			"timing.Measure(nil)":    func() error { _, err := timing.Measure(nil); return err },
			"timing.TimeFunc(nil f)": func() error { _, err := timing.TimeFunc(clk, 0, 1, nil); return err },
			"reprobench.Run(nil)":    func() error { _, err := reprobench.Run(nil, nil, reprobench.Options{}); return err },
			"CollectMetadata(nil)":   func() error { _, err := reprobench.CollectMetadata(c, nil); return err },
		} {
			if err := f(); err == nil {
				t.Errorf("%s: no error", name)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	rw, err := rawdata.Create(rawdata.Options{Dir: t.TempDir(), RunID: "nil"})
	if err != nil {
		t.Fatal(err)
	}
	if rw.Row(nil) == nil || rw.RankRow(nil) == nil || rw.Close(nil) == nil {
		t.Error("rawdata.Writer accepted a nil row or metadata")
	}
	if err := rw.Abort(nil, nil); err != nil {
		t.Error(err)
	}
	if iv := analysis.MedianCI([]float64{5, 1, 4, 2, 3, 9, 8, 7, 6}, 0.9); !iv.Valid() {
		t.Errorf("MedianCI of an unsorted sample: %+v", iv)
	}
}
