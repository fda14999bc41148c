package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestRecover writes the spill files of a 2-rank run by hand, in the
// format docs/data-format.md gives (as a C writer would), rank 1's cut
// mid-line by its death; recover writes them as raw data marked
// incomplete, and analyze reads it.
func TestRecover(t *testing.T) {
	dir := t.TempDir()
	sp := filepath.Join(dir, "heat-mpirun000.spill")
	if err := os.MkdirAll(sp, 0o755); err != nil {
		t.Fatal(err)
	}
	for rank, n := range []int{6, 4} {
		var b strings.Builder
		start := time.Unix(1e9, 0).UTC().Format(time.RFC3339Nano)
		fmt.Fprintf(&b, "reprobench-spill\t1\nrank\t%d\t2\nclock\tmonotonic\t1e9\nstart_utc\t%s\nargs\t[\"heat\"]\nspill_every\t2\n", rank, start)
		fmt.Fprintf(&b, "sync\t0.001\t0\t%g\t1e-07\t0\thca3\nname\t0\tcompute\nlabels\t0\t\n", 1e-6*float64(rank))
		for i := range n {
			t0 := int64(2_000_000 + 10_000*i)
			fmt.Fprintf(&b, "r\t0\t0\t%d\t0\t%d\t%d\n", i, t0, t0+4000+1000*int64(rank))
		}
		b.WriteString("account\t0\t0\t0\t0\t0\t0\nspilled\t2\t2e-06\n")
		if rank == 1 {
			b.WriteString("r\t0\t0\t4\t0\t2040") // torn by the kill
		}
		if err := os.WriteFile(filepath.Join(sp, fmt.Sprintf("rank%d.txt", rank)), []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var so, se bytes.Buffer
	if err := run(&so, &se, []string{"recover", dir}); err != nil {
		t.Fatalf("recover: %v\n%s", err, se.String())
	}
	if !strings.Contains(so.String(), "6 occurrences of 1 regions on 2 ranks, incomplete") {
		t.Errorf("recover printed:\n%s", so.String())
	}
	raw := filepath.Join(dir, "heat-mpirun000.csv")
	so.Reset()
	if err := run(&so, &se, []string{"analyze", raw}); err != nil {
		t.Fatalf("analyze: %v\n%s", err, se.String())
	}
	if !strings.Contains(so.String(), "compute") {
		t.Errorf("analyze:\n%s", so.String())
	}
	if err := run(&so, &se, []string{"recover", t.TempDir()}); err == nil {
		t.Error("recover of a directory without spill files: no error")
	}
}
