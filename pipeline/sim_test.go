package pipeline_test

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/reprobench/reprobench/engine"
	"github.com/reprobench/reprobench/mpi"
	"github.com/reprobench/reprobench/pipeline"
	"github.com/reprobench/reprobench/rawdata"
	"github.com/reprobench/reprobench/window"
)

// TestSimulate: a simulated mpirun writes raw data marked as simulated,
// with its model, and reports its clock syncs, windows and rows.
func TestSimulate(t *testing.T) {
	dir := t.TempDir()
	exps := []engine.Experiment{
		{Exp: 0, Call: mpi.CallAllreduce, MsizeBytes: 8, Type: mpi.Float64, Nrep: 30, Warmup: 5,
			Sync: window.Config{Method: window.Fixed, Window: 100 * time.Microsecond}, ClockSync: "hca3o"},
		{Exp: 1, Call: mpi.CallBcast, MsizeBytes: 64, Type: mpi.Float64, Nrep: 30,
			Sync: window.Config{Method: window.Barrier}, ClockSync: "none"},
	}
	m := pipeline.SimModel{Ranks: 16, Seed: 3, LatencyS: 2e-6, SpikeProb: -1}
	opt := pipeline.DefaultOptions()
	opt.Dir, opt.RunID = dir, "sim-test"
	res, rep, err := pipeline.Simulate(m, exps, opt)
	if err != nil {
		t.Fatal(err)
	}
	meta, err := rawdata.ReadMetadata(res.Files.JSON)
	if err != nil {
		t.Fatal(err)
	}
	if !meta.Simulated() || meta.Np != 16 {
		t.Errorf("sidecar: simulated %v, np %d", meta.Simulated(), meta.Np)
	}
	if rep.Rows != 60 || len(rep.SyncS) != 1 || rep.SyncS[0] <= 0 || len(rep.FinalWindowS) != 1 {
		t.Errorf("report: %+v", rep)
	}
	// Two 30-observation experiments of a few µs each on a 2 µs network:
	// well under a second of virtual time, and more than their windows.
	if !(rep.VirtualS > 30*100e-6 && rep.VirtualS < 1) {
		t.Errorf("virtual duration %v s", rep.VirtualS)
	}
	if rep.Rank0EngineBytes <= 0 || rep.SidecarBytes <= 0 {
		t.Errorf("memory: engine %d bytes, sidecar %d", rep.Rank0EngineBytes, rep.SidecarBytes)
	}
	if _, err := os.Stat(filepath.Join(dir, "sim-test-mpirun000.csv")); err != nil {
		t.Error(err)
	}
}

// TestReadSimModel: the model file's fields, and a misspelt one refused.
func TestReadSimModel(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "m.json")
	os.WriteFile(good, []byte(`{"ranks": 64, "seed": 2, "latency_s": 1.5e-6, "clock_drift_ppm": 2}`), 0o644)
	m, err := pipeline.ReadSimModel(good)
	if err != nil || m.Ranks != 64 || m.LatencyS != 1.5e-6 || m.DriftPPM != 2 {
		t.Fatalf("%+v, %v", m, err)
	}
	bad := filepath.Join(dir, "b.json")
	os.WriteFile(bad, []byte(`{"ranks": 64, "latency_us": 1.5}`), 0o644)
	if _, err := pipeline.ReadSimModel(bad); err == nil {
		t.Error("a misspelt field was accepted")
	}
}
