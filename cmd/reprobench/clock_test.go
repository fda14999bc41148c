package main

import (
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/reprobench/reprobench"
	"github.com/reprobench/reprobench/internal/mpirun"
	"github.com/reprobench/reprobench/mpi/mpitest"
	"github.com/reprobench/reprobench/rawdata"
	"github.com/reprobench/reprobench/timing"
)

// TestClockDefaultIsLibrarys: run's --clock default is the library's one
// default clock, timing.DefaultClockName, and the name makes that clock.
func TestClockDefaultIsLibrarys(t *testing.T) {
	fs, _ := runFlags(io.Discard)
	if def := fs.Lookup("clock").DefValue; def != timing.DefaultClockName {
		t.Errorf("run --clock defaults to %q, the library to timing.DefaultClockName = %q", def, timing.DefaultClockName)
	}
	clk, err := clockByName(timing.DefaultClockName, 0)
	if err != nil {
		t.Fatal(err)
	}
	if clk.Name() != timing.NewDefault().Name() {
		t.Errorf("--clock %s makes %q, timing.NewDefault %q", timing.DefaultClockName, clk.Name(), timing.NewDefault().Name())
	}
}

// TestClockNameRoundTrip: each monotonic clock's name, given to --clock,
// passes the flag checks, makes the clock of that name, and is what the
// metadata sidecar records (reprobench.CollectMetadata, on a one-rank
// simulated communicator) as the clock's name and counter.
func TestClockNameRoundTrip(t *testing.T) {
	for _, name := range []string{"monotonic_raw", "monotonic"} {
		fs, o := runFlags(io.Discard)
		if err := fs.Parse([]string{"--clock", name}); err != nil {
			t.Fatal(err)
		}
		if err := o.check(); err != nil {
			t.Fatalf("--clock %s: %v", name, err)
		}
		clk, err := clockByName(o.clock, o.tscHz)
		if err != nil {
			t.Fatal(err)
		}
		w, err := mpitest.New(mpitest.Config{Ranks: 1})
		if err != nil {
			t.Fatal(err)
		}
		var meta *rawdata.Metadata
		if err := w.Run(func(r *mpitest.Rank) error {
			meta, err = reprobench.CollectMetadata(r.Comm(), clk)
			return err
		}); err != nil {
			t.Fatal(err)
		}
		var m timing.Measurement
		if err := json.Unmarshal(meta.Clock, &m); err != nil {
			t.Fatalf("--clock %s: sidecar clock %s: %v", name, meta.Clock, err)
		}
		if m.Name != name || m.Source != name {
			t.Errorf("--clock %s: sidecar records clock %q on counter %q", name, m.Name, m.Source)
		}
	}
	fs, o := runFlags(io.Discard)
	if err := fs.Parse([]string{"--clock", "monotonic-raw"}); err != nil {
		t.Fatal(err)
	}
	if err := o.check(); err == nil {
		t.Error("--clock monotonic-raw accepted")
	}
}

// TestDefaultClockUnderMPI runs "reprobench run" without --clock under
// mpirun (2 ranks, every installed MPI library): the C timed path reads
// the default clock (rb_now's RB_CLK_MONOTONIC_RAW), and the sidecar names
// it.
func TestDefaultClockUnderMPI(t *testing.T) {
	if testing.Short() {
		t.Skip("integration test: needs mpirun")
	}
	for _, f := range mpirun.Flavors(t) {
		t.Run(f.Name, func(t *testing.T) {
			bin := mpirun.BuildShared(t, f, ".", ".")
			dir := t.TempDir()
			mpirun.MustRun(t, f, 2, 120*time.Second, nil, bin, "run", "--out", dir, "--run-id", "clk",
				"--calls", "allreduce", "--sizes", "8", "--nrep", "20", "--warmup", "2")
			matches, _ := filepath.Glob(filepath.Join(dir, "clk*.json"))
			if len(matches) != 1 {
				t.Fatalf("want one sidecar, found %v", matches)
			}
			b, err := os.ReadFile(matches[0])
			if err != nil {
				t.Fatal(err)
			}
			var meta rawdata.Metadata
			if err := json.Unmarshal(b, &meta); err != nil {
				t.Fatal(err)
			}
			var m timing.Measurement
			if err := json.Unmarshal(meta.Clock, &m); err != nil {
				t.Fatal(err)
			}
			if m.Name != timing.DefaultClockName || meta.Flags["clock"] != timing.DefaultClockName {
				t.Errorf("sidecar: clock %q (flag %q), want the default %q", m.Name, meta.Flags["clock"], timing.DefaultClockName)
			}
		})
	}
}
