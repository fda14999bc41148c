//go:build cgo && !nompi

package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/reprobench/reprobench/internal/mpirun"
	"github.com/reprobench/reprobench/rawdata"
)

// TestMisuseAndEarlyErrors runs testdata/misuse.c at np 2 on the first
// installed library: each misuse kind of the C marks is noted on standard
// error at run time and counted in the sidecar (one per rank), the
// unclosed region is counted, the clean regions are written; a second run
// into the same directory fails at rbr_start, on every rank, before
// recording, because its output files exist.
func TestMisuseAndEarlyErrors(t *testing.T) {
	if testing.Short() {
		t.Skip("integration test: needs mpirun and mpicc")
	}
	f := mpirun.Flavors(t)[0]
	prog := buildTestdata(t, f, "mpicc", "testdata/misuse.c")
	dir := t.TempDir()
	r := mpirun.Run(f, 2, 120*time.Second, nil, prog, dir)
	if r.Err != nil || r.TimedOut {
		t.Fatalf("misuse run: %v (timed out %v)\n%s\n%s", r.Err, r.TimedOut, r.Stdout, r.Stderr)
	}
	for _, want := range []string{"End without an open region: End(nothing)", "Begin with a region name that is empty or holds a comma",
		"End of another region than the innermost open one: End(inner) in outer"} {
		for rank := range 2 {
			if n := strings.Count(r.Stderr, fmt.Sprintf("region: rank %d: %s", rank, want)); n != 1 {
				t.Errorf("rank %d notes %q %d times on stderr; want once:\n%s", rank, want, n, r.Stderr)
			}
		}
	}
	m, err := rawdata.ReadMetadata(filepath.Join(dir, "misuse-mpirun000.json"))
	if err != nil {
		t.Fatal(err)
	}
	var rec struct {
		Misuse rawdata.RegionMisuse `json:"misuse"`
	}
	if err := json.Unmarshal(m.Regions, &rec); err != nil {
		t.Fatal(err)
	}
	want := map[string]int64{"end_without_begin": 2, "end_mismatch": 2, "bad_name": 2}
	for k, n := range want {
		if rec.Misuse.Kinds[k] != n {
			t.Errorf("misuse kind %s: %d; want %d (%+v)", k, rec.Misuse.Kinds[k], n, rec.Misuse)
		}
	}
	if rec.Misuse.Misuses != 6 || rec.Misuse.Unclosed != 2 {
		t.Errorf("misuse account %+v; want 6 misuses, 2 unclosed", rec.Misuse)
	}
	csv, err := os.ReadFile(filepath.Join(dir, "misuse-mpirun000.csv"))
	if err != nil || !strings.Contains(string(csv), "fine") || !strings.Contains(string(csv), "outer") {
		t.Errorf("raw data lacks the regions fine and outer: %v\n%s", err, csv)
	}

	again := mpirun.Run(f, 2, 120*time.Second, nil, prog, dir)
	if again.TimedOut || again.Err == nil || strings.Count(again.Stdout, "start failed: ") != 2 || !strings.Contains(again.Stdout, "misuse-mpirun000") {
		t.Errorf("a second run into %s: %v; want rbr_start to fail on both ranks naming the existing file:\n%s\n%s", dir, again.Err, again.Stdout, again.Stderr)
	}
}
