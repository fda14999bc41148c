package main

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/reprobench/reprobench/analysis"
	"github.com/reprobench/reprobench/mpi"
	"github.com/reprobench/reprobench/mpi/mpitest"
	"github.com/reprobench/reprobench/rawdata"
	"github.com/reprobench/reprobench/window"
)

func readDataset(t *testing.T, files ...string) *analysis.Dataset {
	t.Helper()
	d := analysis.NewDataset()
	for _, f := range files {
		fh, err := os.Open(f)
		if err != nil {
			t.Fatal(err)
		}
		err = d.Read(fh, f)
		fh.Close()
		if err != nil {
			t.Fatal(err)
		}
	}
	return d
}

// TestRunCallSimulated runs RunCall on 2 simulated ranks and reads its raw
// data back with package analysis: one group whose key is the one
// "reprobench run --calls MPI_Allreduce --sizes 8" (defaults otherwise)
// produces.
func TestRunCallSimulated(t *testing.T) {
	w, err := mpitest.New(mpitest.Config{Ranks: 2, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	cfg := Config{Sync: "auto", Method: window.Barrier, N: 40, Warmup: 2, Bytes: 8}
	rows := 0
	err = w.Run(func(r *mpitest.Rank) error {
		n, err := RunCall(r.Comm(), r.Clock(), mpi.CallAllreduce, cfg, Output{Dir: dir, RunID: "lib"})
		if r.ID() == 0 {
			rows = n
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if rows != 40 {
		t.Errorf("%d rows, want 40", rows)
	}
	d := readDataset(t, filepath.Join(dir, "lib-mpirun000.csv"))
	want := analysis.GroupKey{Call: "MPI_Allreduce", MsizeBytes: 8, Np: 2, Datatype: "float64",
		Labels: "cache=warm,clocksync=none,noise_guard=off,procsync=barrier,runtime_type=local,window_s=0"}
	if len(d.Groups) != 1 || d.Groups[0].Key != want || len(d.Groups[0].Runtimes) != 40 {
		t.Fatalf("groups %+v, want one group %+v with 40 runtimes", d.Groups, want)
	}
	if _, err := os.Stat(rawdata.SidecarPath(dir, "lib", 0)); err != nil {
		t.Errorf("no sidecar: %v", err)
	}
}

// TestWriteRawSimulated writes the halo exchange's observations of Bench
// and reads them back: every observation, the invalid ones counted.
func TestWriteRawSimulated(t *testing.T) {
	w, err := mpitest.New(mpitest.Config{Ranks: 2, Seed: 5})
	if err != nil {
		t.Fatal(err)
	}
	cfg := Config{Sync: "hca3:fitpts=50,exchanges=10", Method: window.Fixed, Window: 100 * time.Microsecond, N: 30, Bytes: 64}
	var res *Result
	err = w.Run(func(r *mpitest.Rank) error {
		out, _, err := Bench(r.Comm(), r.Clock(), cfg)
		if r.ID() == 0 {
			res = out
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := WriteRaw(Output{Dir: dir, RunID: "halo"}, cfg, 2, res); err != nil {
		t.Fatal(err)
	}
	d := readDataset(t, filepath.Join(dir, "halo-mpirun000.csv"))
	if len(d.Groups) != 1 {
		t.Fatalf("%d groups", len(d.Groups))
	}
	g := d.Groups[0]
	if g.Key.Call != HaloCall || g.Key.MsizeBytes != 64 || g.Key.LabelValue("window_s") != "0.0001" || g.Key.LabelValue("procsync") != "window" ||
		len(g.Runtimes)+g.Invalid != 30 || g.Invalid != res.Invalid {
		t.Errorf("group %+v: %d valid, %d invalid; Bench counted %d invalid", g.Key, len(g.Runtimes), g.Invalid, res.Invalid)
	}
}
