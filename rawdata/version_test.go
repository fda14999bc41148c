package rawdata_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/reprobench/reprobench/rawdata"
)

func TestCheckFormatVersion(t *testing.T) {
	for _, c := range []struct {
		v      string
		ok     bool
		tooNew bool
	}{
		{"", true, false}, // written before versioning
		{"0.9", true, false},
		{rawdata.FormatVersion, true, false},
		{"1.7", true, false}, // a newer minor version adds what this reader may ignore
		{"2.0", false, true},
		{"10.1", false, true},
		{"1", false, false},
		{"v1.0", false, false},
		{"1.-1", false, false},
	} {
		err := rawdata.CheckFormatVersion(c.v)
		if (err == nil) != c.ok {
			t.Errorf("CheckFormatVersion(%q) = %v, want ok %v", c.v, err, c.ok)
		}
		if got := errors.Is(err, rawdata.ErrFormatVersion); got != c.tooNew {
			t.Errorf("CheckFormatVersion(%q) = %v, wraps ErrFormatVersion %v, want %v", c.v, err, got, c.tooNew)
		}
		if c.tooNew && (!strings.Contains(err.Error(), c.v) || !strings.Contains(err.Error(), rawdata.FormatVersion)) {
			t.Errorf("CheckFormatVersion(%q) = %v: want both versions named", c.v, err)
		}
	}
}

// TestSidecarVersionRoundTrip: a sidecar written by this package carries
// FormatVersion and reads back; the same file with a future major version
// is refused by ReadMetadata and by CheckCSVVersion on its CSV, naming both
// versions; one with no version at all (written before versioning) reads.
func TestSidecarVersionRoundTrip(t *testing.T) {
	dir := t.TempDir()
	w, err := rawdata.Create(rawdata.Options{Dir: dir, RunID: "v", PerRank: true, Experiments: []rawdata.Experiment{{Exp: 0}}})
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
	m, err := rawdata.ReadMetadata(n.JSON)
	if err != nil {
		t.Fatal(err)
	}
	if m.FormatVersion != rawdata.FormatVersion {
		t.Errorf("sidecar format_version %q, want %q", m.FormatVersion, rawdata.FormatVersion)
	}
	for _, csv := range []string{n.CSV, n.Ranks} {
		if err := rawdata.CheckCSVVersion(csv); err != nil {
			t.Errorf("CheckCSVVersion(%s) = %v", csv, err)
		}
	}
	b, err := os.ReadFile(n.JSON)
	if err != nil {
		t.Fatal(err)
	}
	old := `"format_version": "` + rawdata.FormatVersion + `"`
	if !strings.Contains(string(b), old) {
		t.Fatalf("sidecar has no %s:\n%s", old, b)
	}
	write := func(s string) {
		t.Helper()
		if err := os.WriteFile(n.JSON, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(strings.Replace(string(b), old, `"format_version": "99.0"`, 1))
	if _, err := rawdata.ReadMetadata(n.JSON); err == nil || !strings.Contains(err.Error(), "99.0") || !strings.Contains(err.Error(), rawdata.FormatVersion) {
		t.Errorf("ReadMetadata of a future major version = %v, want an error naming 99.0 and %s", err, rawdata.FormatVersion)
	}
	for _, csv := range []string{n.CSV, n.Ranks} {
		if err := rawdata.CheckCSVVersion(csv); !errors.Is(err, rawdata.ErrFormatVersion) || !strings.Contains(err.Error(), filepath.Base(n.JSON)) {
			t.Errorf("CheckCSVVersion(%s) with a future sidecar = %v, want ErrFormatVersion naming the sidecar", csv, err)
		}
	}
	write(strings.Replace(string(b), old+",", "", 1))
	if m, err := rawdata.ReadMetadata(n.JSON); err != nil || m.FormatVersion != "" {
		t.Errorf("ReadMetadata of an unversioned sidecar = %+v, %v; want it read", m, err)
	}
	if err := rawdata.CheckCSVVersion(filepath.Join(dir, "alone.csv")); err != nil {
		t.Errorf("CheckCSVVersion of a CSV without a sidecar = %v, want nil", err)
	}
}

// A sidecar of format 1.4, written before the provenance record, reads
// with no provenance; one of this version keeps it.
func TestReadSidecarBeforeProvenance(t *testing.T) {
	dir := t.TempDir()
	old := filepath.Join(dir, "old-mpirun000.json")
	if err := os.WriteFile(old, []byte(`{"format_version": "1.4", "run_id": "old", "mpirun": 0, "np": 2, "mpi_library_version": "Open MPI v4.1.4"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	m, err := rawdata.ReadMetadata(old)
	if err != nil || m.Provenance != nil || m.MPILibrary != "Open MPI v4.1.4" || m.Np != 2 {
		t.Errorf("1.4 sidecar: %+v, %v", m, err)
	}
	w, err := rawdata.Create(rawdata.Options{Dir: dir, RunID: "new", Experiments: []rawdata.Experiment{{Exp: 0}}})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Close(&rawdata.Metadata{Provenance: []byte(`{"version":1}`)}); err != nil {
		t.Fatal(err)
	}
	m, err = rawdata.ReadMetadata(w.Names().JSON)
	if err != nil || strings.Join(strings.Fields(string(m.Provenance)), "") != `{"version":1}` || m.FormatVersion < "1.5" {
		t.Errorf("new sidecar: provenance %s, version %s, %v", m.Provenance, m.FormatVersion, err)
	}
}
