package rawdata_test

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/reprobench/reprobench/factor"
	"github.com/reprobench/reprobench/rawdata"
)

// TestReadMetadata reads back the sidecar the Writer wrote, ignores fields
// it does not know (a newer writer's), and names the file of one that is
// not a sidecar.
func TestReadMetadata(t *testing.T) {
	dir := t.TempDir()
	w, err := rawdata.Create(rawdata.Options{Dir: dir, RunID: "m", Mpirun: 3,
		Experiments: []rawdata.Experiment{{Exp: 0, Factors: factor.Values{}.WithText(factor.ProcSync, "barrier").WithText(factor.RuntimeType, "local").WithText(factor.Cache, "warm").WithText(factor.ClockSync, "none")}}})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Row(&rawdata.Row{Exp: 0, Call: "MPI_Bcast", MsizeBytes: 8, Count: 1, Datatype: "float64", Np: 2, RuntimeS: 1e-6}); err != nil {
		t.Fatal(err)
	}
	start := time.Date(2026, 11, 22, 0, 0, 0, 0, time.UTC)
	if err := w.Close(&rawdata.Metadata{RunID: "m", Mpirun: 3, Np: 2, Seed: 42, StartUTC: start, MPIThreadProvided: "MPI_THREAD_SINGLE",
		Experiments: []rawdata.Summary{{Exp: 0, Call: "MPI_Bcast", Rows: 1, WarmupCount: 20}}}); err != nil {
		t.Fatal(err)
	}
	path := rawdata.SidecarPath(dir, "m", 3)
	m, err := rawdata.ReadMetadata(path)
	if err != nil {
		t.Fatal(err)
	}
	if m.RunID != "m" || m.Mpirun != 3 || m.Seed != 42 || !m.StartUTC.Equal(start) || m.MPIThreadProvided != "MPI_THREAD_SINGLE" ||
		len(m.Experiments) != 1 || m.Experiments[0].WarmupCount != 20 || m.Files["raw"] != "m-mpirun003.csv" {
		t.Errorf("read back %+v", m)
	}

	newer := filepath.Join(dir, "newer.json")
	os.WriteFile(newer, []byte(`{"run_id": "n", "mpirun": 1, "progress_while_waiting": "mpi_test", "clock_target": {"s": 1e-6}}`), 0o644)
	if m, err := rawdata.ReadMetadata(newer); err != nil || m.RunID != "n" || m.Mpirun != 1 {
		t.Errorf("a sidecar with fields added later: %+v, %v", m, err)
	}
	bad := filepath.Join(dir, "bad.json")
	os.WriteFile(bad, []byte(`run_id,mpirun`), 0o644)
	if _, err := rawdata.ReadMetadata(bad); err == nil || !strings.Contains(err.Error(), bad) {
		t.Errorf("a CSV read as a sidecar: err = %v, want one naming %s", err, bad)
	}
	if _, err := rawdata.ReadMetadata(filepath.Join(dir, "none.json")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a missing sidecar: err = %v, want fs.ErrNotExist", err)
	}
}
