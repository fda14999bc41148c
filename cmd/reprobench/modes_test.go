package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/reprobench/reprobench/internal/rawcases"
)

// writeModesCSV writes a raw file of 20 mpiruns of 8-byte allreduce in
// which an odd prehistory_msgs makes the mpirun 1.4× slower, and returns
// its path.
func writeModesCSV(t *testing.T) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "modes.csv")
	if err := os.WriteFile(p, []byte(rawcases.ModesCSV()), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestAnalyzeModes checks that analyze's modes column and its warning
// flag a split group and name the covariate that explains it, and that
// --by makes the covariate part of the group key.
func TestAnalyzeModes(t *testing.T) {
	p := writeModesCSV(t)
	var out, errb bytes.Buffer
	if err := run(&out, &errb, []string{"analyze", "--columns", "n,mpiruns,median,modes", p}); err != nil {
		t.Fatalf("%v: %s", err, errb.String())
	}
	if !strings.Contains(out.String(), "modes") || !strings.Contains(out.String(), "2: 1.00×50% ") || !strings.Contains(out.String(), "(prehistory_msgs)") {
		t.Errorf("analyze did not flag the modes:\n%s", out.String())
	}
	if !strings.Contains(out.String(), "split into 2 modes") || !strings.Contains(out.String(), "explained by prehistory_msgs") {
		t.Errorf("no warning about the modes:\n%s", out.String())
	}
	out.Reset()
	if err := run(&out, &errb, []string{"analyze", "--by", "prehistory_msgs", p}); err != nil {
		t.Fatalf("%v: %s", err, errb.String())
	}
	if strings.Count(out.String(), "prehistory_msgs=") != 4 || strings.Contains(out.String(), "2: ") {
		t.Errorf("analyze --by prehistory_msgs: want 4 groups without modes:\n%s", out.String())
	}
	if err := run(&out, &errb, []string{"analyze", "--by", "procsync", p}); err == nil {
		t.Error("--by accepted a factor column")
	}
}
