package rawdata

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// writeSidecar writes a sidecar of one experiment to dir/name.json and
// returns the name of its raw CSV.
func writeSidecar(t *testing.T, dir, name, lib string, barrier bool, labels map[string]string) string {
	t.Helper()
	m := Metadata{FormatVersion: FormatVersion, MPILibrary: lib, Labels: labels,
		Experiments: []Summary{{Call: "MPI_Allreduce", Method: "x", LibraryBarrier: barrier}}}
	b, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, name+".json"), b, 0o644); err != nil {
		t.Fatal(err)
	}
	return filepath.Join(dir, name+".csv")
}

func TestBarrierWarning(t *testing.T) {
	const ompi, mpich = "Open MPI v4.1.4, package: Debian OpenMPI", "MPICH Version:\t4.0.2\nMPICH Release date: x"
	dir := t.TempDir()
	for _, tc := range []struct {
		name               string
		libA, libB         string
		barrierA, barrierB bool
		want               string // substring; "" for no warning
	}{
		{"different libraries, both MPI_Barrier", ompi, mpich, true, true, "A (Open MPI v4.1.4), B (MPICH Version: 4.0.2)"},
		{"different libraries, one side MPI_Barrier", ompi, mpich, false, true, "B (MPICH Version: 4.0.2) synchronized"},
		{"different libraries, the tool's own sync", ompi, mpich, false, false, ""},
		{"one library, MPI_Barrier", ompi, ompi, true, true, ""},
	} {
		a := writeSidecar(t, dir, tc.name+"-a", tc.libA, tc.barrierA, nil)
		b := writeSidecar(t, dir, tc.name+"-b", tc.libB, tc.barrierB, nil)
		got := BarrierWarning([]Side{{"A", []string{a}}, {"B", []string{b}}})
		if tc.want == "" && got != "" || tc.want != "" && !strings.Contains(got, tc.want) {
			t.Errorf("%s: warning %q, want %q", tc.name, got, tc.want)
		}
	}
	// --by LABEL: the sides are the label's values in the sidecars.
	f1 := writeSidecar(t, dir, "by-1", ompi, true, map[string]string{"lib": "openmpi"})
	f2 := writeSidecar(t, dir, "by-2", mpich, true, map[string]string{"lib": "mpich"})
	f3 := writeSidecar(t, dir, "by-3", ompi, true, map[string]string{"lib": "openmpi"})
	sides := SidesByLabel([]string{f1, f2, f3, filepath.Join(dir, "missing.csv")}, "lib")
	if len(sides) != 2 || sides[0].Name != "openmpi" || len(sides[0].Files) != 2 || sides[1].Name != "mpich" {
		t.Fatalf("SidesByLabel: %+v", sides)
	}
	if w := BarrierWarning(sides); !strings.Contains(w, "mpich (MPICH Version: 4.0.2), openmpi (Open MPI v4.1.4)") {
		t.Errorf("--by warning %q", w)
	}
}
