package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestAnalyzeBandwidthColumns: a bw group's bytes/s and msgs/s are
// M·msize_bytes/median and M/median (M = bw_window), in text, CSV and
// JSON; a group of another call has none.
func TestAnalyzeBandwidthColumns(t *testing.T) {
	var b strings.Builder
	b.WriteString("run_id,mpirun,exp,call,msize_bytes,count,datatype,np,rep,runtime_s,errorcode,procsync,window_s,runtime_type,cache,clocksync,bw_window,rma_sync\n")
	for i, v := range []float64{1e-3, 2e-3, 3e-3} { // median 2 ms
		fmt.Fprintf(&b, "r,0,0,bw,65536,8192,float64,2,%d,%g,0,barrier,0,local,warm,none,64,\n", i, v)
		fmt.Fprintf(&b, "r,0,1,MPI_Put,8,1,float64,2,%d,%g,0,barrier,0,local,warm,none,,fence\n", i, v/1000)
	}
	path := filepath.Join(t.TempDir(), "r-mpirun000.csv")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	if err := run(&out, &errb, []string{"analyze", "--format", "json", path}); err != nil {
		t.Fatalf("%v\n%s", err, errb.String())
	}
	var js struct {
		Groups []map[string]any `json:"groups"`
	}
	if err := json.Unmarshal(out.Bytes(), &js); err != nil {
		t.Fatal(err)
	}
	wantB, wantM := 64*65536/2e-3, 64/2e-3
	for _, g := range js.Groups {
		bps, has := g["bytes_per_s"].(float64)
		switch g["call"] {
		case "bw":
			if !has || math.Abs(bps-wantB) > 1e-6*wantB || math.Abs(g["msgs_per_s"].(float64)-wantM) > 1e-6*wantM {
				t.Errorf("bw: %v B/s, %v msg/s, want %g, %g", g["bytes_per_s"], g["msgs_per_s"], wantB, wantM)
			}
		default:
			if has {
				t.Errorf("%v has bytes_per_s %v", g["call"], bps)
			}
		}
	}
	out.Reset()
	if err := run(&out, &errb, []string{"analyze", path}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "bytes/s") || !strings.Contains(out.String(), "2.1 GB/s") || !strings.Contains(out.String(), "32 k/s") {
		t.Errorf("text lacks the bandwidth columns (2.1 GB/s, 32 k/s):\n%s", out.String())
	}
	out.Reset()
	if err := run(&out, &errb, []string{"analyze", "--format", "csv", path}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), fmt.Sprintf(",%g,%g,", wantB, wantM)) {
		t.Errorf("CSV lacks %g,%g:\n%s", wantB, wantM, out.String())
	}
}
