package report

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/reprobench/reprobench/internal/rawcases"
)

// TestReportModes checks that the per-group table gives each mode's
// median and share of mpiruns and names the covariate that explains them,
// for 20 mpiruns in which an odd prehistory_msgs makes a mpirun 1.4×
// slower.
func TestReportModes(t *testing.T) {
	p := filepath.Join(t.TempDir(), "modes.csv")
	if err := os.WriteFile(p, []byte(rawcases.ModesCSV()), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := Load([]string{p}, false)
	if err != nil {
		t.Fatal(err)
	}
	rep, err := New([]*Side{s}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := rep.WriteHTML(&out); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"2 modes: ", "in 10 of 20 mpiruns (50", "explained by prehistory_msgs"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("report lacks %q", want)
		}
	}
}
