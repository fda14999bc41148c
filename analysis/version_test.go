package analysis_test

import (
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/reprobench/reprobench/analysis"
	"github.com/reprobench/reprobench/rawdata"
)

// TestReadFilesChecksFormatVersion: ReadFiles reads a raw file whose sidecar
// this version of rawdata wrote, and refuses it once the sidecar claims a
// newer major format version.
func TestReadFilesChecksFormatVersion(t *testing.T) {
	w, err := rawdata.Create(rawdata.Options{Dir: t.TempDir(), RunID: "v", Experiments: []rawdata.Experiment{{Exp: 0}}})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Row(&rawdata.Row{Call: "Barrier", Datatype: "byte", Np: 2, RuntimeS: 1e-6}); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(&rawdata.Metadata{}); err != nil {
		t.Fatal(err)
	}
	n := w.Names()
	if err := analysis.NewDataset().ReadFiles(n.CSV); err != nil {
		t.Fatalf("ReadFiles of today's file: %v", err)
	}
	b, err := os.ReadFile(n.JSON)
	if err != nil {
		t.Fatal(err)
	}
	s := strings.Replace(string(b), `"format_version": "`+rawdata.FormatVersion+`"`, `"format_version": "2.0"`, 1)
	if err := os.WriteFile(n.JSON, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
	err = analysis.NewDataset().ReadFiles(n.CSV)
	if !errors.Is(err, rawdata.ErrFormatVersion) || !strings.Contains(err.Error(), "2.0") {
		t.Errorf("ReadFiles with a future sidecar = %v, want ErrFormatVersion naming 2.0", err)
	}
}
