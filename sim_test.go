package reprobench_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/reprobench/reprobench"
	"github.com/reprobench/reprobench/clocksync"
	"github.com/reprobench/reprobench/mpi"
	"github.com/reprobench/reprobench/rawdata"
	"github.com/reprobench/reprobench/window"
)

// TestSimulate: a simulated mpirun writes raw data marked as simulated,
// with its model, and reports its clock syncs, windows and rows.
func TestSimulate(t *testing.T) {
	dir := t.TempDir()
	exps := []reprobench.Experiment{
		{Exp: 0, Call: mpi.CallAllreduce, MsizeBytes: 8, Type: mpi.Float64, Nrep: 30, Warmup: 5,
			Sync: window.Config{Method: window.Fixed, Window: 100 * time.Microsecond}, ClockSync: "hca3o"},
		{Exp: 1, Call: mpi.CallBcast, MsizeBytes: 64, Type: mpi.Float64, Nrep: 30,
			Sync: window.Config{Method: window.Barrier}, ClockSync: "none"},
	}
	m := reprobench.SimModel{Ranks: 16, Seed: 3, LatencyS: 2e-6, SpikeProb: -1}
	opt := reprobench.DefaultOptions()
	opt.Dir, opt.RunID = dir, "sim-test"
	res, rep, err := reprobench.Simulate(m, exps, opt)
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
	m, err := reprobench.ReadSimModel(good)
	if err != nil || m.Ranks != 64 || m.LatencyS != 1.5e-6 || m.DriftPPM != 2 {
		t.Fatalf("%+v, %v", m, err)
	}
	bad := filepath.Join(dir, "b.json")
	os.WriteFile(bad, []byte(`{"ranks": 64, "latency_us": 1.5}`), 0o644)
	if _, err := reprobench.ReadSimModel(bad); err == nil {
		t.Error("a misspelt field was accepted")
	}
}

// TestSidecarSyncRecordsCompact: beyond SyncRecordRanks ranks the sidecar
// summarizes the clock synchronization's per-rank records, unless per-rank
// data are asked for.
func TestSidecarSyncRecordsCompact(t *testing.T) {
	exps := []reprobench.Experiment{{Exp: 0, Call: mpi.CallAllreduce, MsizeBytes: 8, Type: mpi.Float64, Nrep: 5,
		Sync: window.Config{Method: window.Fixed, Window: 100 * time.Microsecond}, ClockSync: "hca3o"}}
	ranks := reprobench.SyncRecordRanks + 16
	m := reprobench.SimModel{Ranks: ranks, Seed: 5, SpikeProb: -1}
	for _, perRank := range []bool{false, true} {
		opt := reprobench.DefaultOptions()
		opt.Dir, opt.RunID, opt.PerRank = t.TempDir(), "compact", perRank
		res, _, err := reprobench.Simulate(m, exps, opt)
		if err != nil {
			t.Fatal(err)
		}
		meta, err := rawdata.ReadMetadata(res.Files.JSON)
		if err != nil {
			t.Fatal(err)
		}
		if len(meta.ClockSyncs) != 1 {
			t.Fatalf("%d clock syncs recorded", len(meta.ClockSyncs))
		}
		var r struct {
			PerRank []json.RawMessage `json:"per_rank"`
			Summary *struct {
				Ranks int               `json:"ranks"`
				Worst []json.RawMessage `json:"worst_ranks"`
			} `json:"per_rank_summary"`
		}
		if err := json.Unmarshal(meta.ClockSyncs[0].Result, &r); err != nil {
			t.Fatal(err)
		}
		switch {
		case perRank && (len(r.PerRank) != ranks || r.Summary != nil):
			t.Errorf("per-rank data asked for: %d records, summary %v", len(r.PerRank), r.Summary != nil)
		case !perRank && (r.PerRank != nil || r.Summary == nil || r.Summary.Ranks != ranks || len(r.Summary.Worst) != clocksync.WorstRanks):
			t.Errorf("%d ranks: %d records, summary %+v", ranks, len(r.PerRank), r.Summary)
		}
	}
}
