//go:build cgo && !nompi

package main

import (
	"encoding/json"
	"path/filepath"
	"testing"
	"time"

	"github.com/reprobench/reprobench/internal/mpirun"
	"github.com/reprobench/reprobench/rawdata"
)

// TestCXX builds testdata/cxx.cpp with the first installed library's C++
// wrapper (mpicxx) against the C archive and runs it at np 2: rbregion.h
// compiles as C++, and both ranks record the 100 occurrences of its
// region with no misuse.
func TestCXX(t *testing.T) {
	if testing.Short() {
		t.Skip("integration test: needs mpirun and mpicxx")
	}
	f := mpirun.Flavors(t)[0]
	prog := buildTestdata(t, f, "mpicxx", "testdata/cxx.cpp")
	dir := t.TempDir()
	if r := mpirun.Run(f, 2, 120*time.Second, nil, prog, dir); r.Err != nil || r.TimedOut {
		t.Fatalf("cxx run: %v (timed out %v)\n%s\n%s", r.Err, r.TimedOut, r.Stdout, r.Stderr)
	}
	m, err := rawdata.ReadMetadata(filepath.Join(dir, "cxx-mpirun000.json"))
	if err != nil {
		t.Fatal(err)
	}
	var rec struct {
		Ranks   int `json:"ranks"`
		PerRank []struct {
			Records int `json:"records"`
		} `json:"per_rank"`
		Misuse rawdata.RegionMisuse `json:"misuse"`
	}
	if err := json.Unmarshal(m.Regions, &rec); err != nil {
		t.Fatal(err)
	}
	if rec.Ranks != 2 || len(rec.PerRank) != 2 || rec.Misuse.Misuses != 0 {
		t.Fatalf("regions record: %d ranks, %d per-rank entries, %d misuses; want 2, 2, 0", rec.Ranks, len(rec.PerRank), rec.Misuse.Misuses)
	}
	for r, p := range rec.PerRank {
		if p.Records != 100 {
			t.Errorf("rank %d recorded %d, want 100", r, p.Records)
		}
	}
}
