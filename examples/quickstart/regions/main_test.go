package main

import (
	"path/filepath"
	"testing"

	"github.com/reprobench/reprobench/analysis"
	"github.com/reprobench/reprobench/mpi/mpitest"
)

// TestApp runs the application on 2 simulated ranks and reads what it
// wrote as analyze does: one group per region, 1000 rows each.
func TestApp(t *testing.T) {
	w, err := mpitest.New(mpitest.Config{Ranks: 2, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := w.Run(func(r *mpitest.Rank) error {
		return app(r.Comm(), r.Clock(), dir, "hca3:fitpts=50,exchanges=10")
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
