package main

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/reprobench/reprobench/internal/mpirun"
	"github.com/reprobench/reprobench/provenance"
	"github.com/reprobench/reprobench/rawdata"
)

// TestBatchCPUUnderMPI: "run" under real MPI, 2 ranks, as the launcher
// binds them (no taskset), reads each rank's CPU from
// /proc/thread-self/stat before and after each batch of measured
// observations: two fixed experiments are two batches, so every rank has
// 2 + 2·2 samples, the CPUs it was seen on, migrations and moved batches
// within their counts, and run prints a binding note for each rank that
// migrated and for no other.
func TestBatchCPUUnderMPI(t *testing.T) {
	if testing.Short() {
		t.Skip("integration test: needs mpirun")
	}
	for _, f := range mpirun.Flavors(t) {
		t.Run(f.Name, func(t *testing.T) {
			bin := mpirun.BuildShared(t, f, ".", ".")
			dir := t.TempDir()
			r := mpirun.Run(f, 2, 120*time.Second, nil, bin, "run", "--out", dir, "--run-id", "cpu", "--seed", "3",
				"--calls", "MPI_Allreduce", "--sizes", "8,1024", "--nrep", "50", "--warmup", "2",
				"--proc-sync", "barrier", "--clock-sync", "none")
			if r.TimedOut || r.Err != nil {
				t.Fatalf("timed out %v, %v\n%s", r.TimedOut, r.Err, r.Stderr)
			}
			m, err := rawdata.ReadMetadata(filepath.Join(dir, "cpu-mpirun000.json"))
			if err != nil {
				t.Fatal(err)
			}
			var rec provenance.Record
			if err := json.Unmarshal(m.Provenance, &rec); err != nil {
				t.Fatal(err)
			}
			if len(rec.Ranks) != 2 {
				t.Fatalf("provenance %s", m.Provenance)
			}
			for _, k := range rec.Ranks {
				t.Logf("rank %d: mask %s, CPUs %v, %d samples, %d migrations, %d of %d batches moved", k.Rank, k.MaskStart, k.CPUs, k.Samples,
					k.Migrations, k.MovedBatches, k.Batches)
				if k.Samples != 6 || k.Batches != 2 || k.CPUSource != "/proc/thread-self/stat" || len(k.CPUs) == 0 ||
					k.Migrations > k.Samples-1 || k.MovedBatches > k.Batches || (k.Migrations == 0) != (len(k.CPUs) == 1) {
					t.Errorf("rank %d: %+v, want 6 samples and 2 batches read from /proc/thread-self/stat", k.Rank, k)
				}
				note := fmt.Sprintf("NOTE: binding: rank %d moved between CPUs", k.Rank)
				if strings.Contains(r.Stderr, note) != (k.Migrations > 0) {
					t.Errorf("rank %d: %d migrations; stderr:\n%s", k.Rank, k.Migrations, r.Stderr)
				}
			}
		})
	}
}
