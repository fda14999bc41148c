package main

import (
	"math"
	"testing"
	"time"

	"github.com/reprobench/reprobench"
	"github.com/reprobench/reprobench/analysis"
	"github.com/reprobench/reprobench/mpi/mpitest"
	"github.com/reprobench/reprobench/rawdata"
)

// 4 simulated ranks, clocks up to 1 s apart drifting ±50 ppm; every message takes 2 µs.
func TestRingShift(t *testing.T) {
	w, err := mpitest.New(mpitest.Config{Ranks: 4, Seed: 1, Latency: mpitest.Latency{
		Base: 2 * time.Microsecond, Jitter: mpitest.Off, SpikeProb: mpitest.Off, BytesPerSecond: mpitest.Off}})
	if err != nil {
		t.Fatal(err)
	}
	dir, d := t.TempDir(), analysis.NewDataset()
	err = w.Run(func(r *mpitest.Rank) error {
		_, err := reprobench.Run(r.Comm(), []reprobench.Experiment{ringShift(r.Comm(), 8)},
			reprobench.Options{Dir: dir, RunID: "sim", Clock: r.Clock()})
		return err
	})
	if err == nil {
		err = d.ReadFiles(rawdata.NamesFor(dir, "sim", 0, false).CSV)
	}
	if err != nil {
		t.Fatal(err)
	}
	if g, med := d.Groups[0], analysis.Median(d.Groups[0].Runtimes); g.Invalid > 0 || math.Abs(med-2e-6) > 100e-9 {
		t.Errorf("median %.4g s, %d invalid; want 2 µs and none", med, g.Invalid)
	}
}
