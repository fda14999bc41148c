package main

import (
	"path/filepath"
	"testing"

	"github.com/reprobench/reprobench/analysis"
	"github.com/reprobench/reprobench/clocksync"
	"github.com/reprobench/reprobench/mpi/mpitest"
	"github.com/reprobench/reprobench/region"
)

// TestApp runs the application on 2 simulated ranks and reads what it
// wrote as analyze does: one group per region, 1000 rows each.
func TestApp(t *testing.T) {
	w, err := mpitest.New(mpitest.Config{Ranks: 2, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	sp, err := clocksync.ParseSpec("hca3:fitpts=50,exchanges=10")
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Run(func(r *mpitest.Rank) error {
		alg, err := sp.New()
		if err != nil {
			return err
		}
		rec, err := region.StartWith(r.Comm(), r.Clock(), region.Options{Sync: alg}, region.Output{Dir: dir, RunID: "app"})
		if err != nil {
			return err
		}
		if err := app(r.Comm(), rec); err != nil {
			return err
		}
		_, err = rec.Stop()
		return err
	}); err != nil {
		t.Fatal(err)
	}
	d := analysis.NewDataset()
	if err := d.ReadFiles(filepath.Join(dir, "app-mpirun000.csv")); err != nil {
		t.Fatal(err)
	}
	if len(d.Groups) != 2 || len(d.Groups[0].Runtimes) != 1000 || d.Groups[0].Key.LabelValue("region") != "allreduce" {
		t.Errorf("%d groups; first %v with %d rows", len(d.Groups), d.Groups[0].Key, len(d.Groups[0].Runtimes))
	}
}
