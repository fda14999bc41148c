package provenance_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/reprobench/reprobench/internal/mpirun"
	"github.com/reprobench/reprobench/provenance"
)

// Under a real mpirun (2 ranks, each installed library), a setting made
// where no environment variable shows it is seen through MPI_T with its
// default: for Open MPI coll_tuned_allreduce_algorithm=4 only in
// $HOME/.openmpi/mca-params.conf (HOME a temporary directory); for MPICH
// MPIR_CVAR_ALLREDUCE_INTRA_ALGORITHM=recursive_doubling (3) in the
// environment. Both defaults are 0 (ompi_info --all --parsable; MPICH's
// cvar documentation: auto). The launcher is named too.
func TestMPITIntegration(t *testing.T) {
	if testing.Short() {
		t.Skip("integration test: needs mpirun")
	}
	for _, f := range mpirun.Flavors(t) {
		t.Run(f.Name, func(t *testing.T) {
			bin := mpirun.Build(t, f, ".", "./internal/mpitcheck")
			var env []string
			name, value, source := "MPIR_CVAR_ALLREDUCE_INTRA_ALGORITHM", "3", "environment MPIR_CVAR_ALLREDUCE_INTRA_ALGORITHM"
			if f.Name == "openmpi" {
				home := t.TempDir()
				if err := os.MkdirAll(filepath.Join(home, ".openmpi"), 0o755); err != nil {
					t.Fatal(err)
				}
				conf := filepath.Join(home, ".openmpi", "mca-params.conf")
				if err := os.WriteFile(conf, []byte("coll_tuned_allreduce_algorithm = 4\n"), 0o644); err != nil {
					t.Fatal(err)
				}
				env = []string{"HOME=" + home}
				name, value, source = "coll_tuned_allreduce_algorithm", "4", "file "+conf
			} else {
				env = []string{"MPIR_CVAR_ALLREDUCE_INTRA_ALGORITHM=recursive_doubling"}
			}
			out := mpirun.MustRun(t, f, 2, 120*time.Second, env, bin)
			var got struct {
				MPIT     *provenance.MPIT    `json:"mpi_t"`
				Launcher provenance.Launcher `json:"launcher"`
			}
			if err := json.Unmarshal([]byte(strings.TrimSpace(out)), &got); err != nil || got.MPIT == nil {
				t.Fatalf("output %q: %v", out, err)
			}
			if got.MPIT.Count < 100 || provenance.IsUnavailable(got.MPIT.DefaultsFrom) {
				t.Errorf("%d control variables, defaults from %q", got.MPIT.Count, got.MPIT.DefaultsFrom)
			}
			found := false
			var names []string
			for _, c := range got.MPIT.Differ {
				names = append(names, c.Name+"="+c.Value+" ("+c.Default+", "+c.Source+")")
				if c.Name == name {
					found = true
					if c.Value != value || c.Default != "0" || c.Source != source {
						t.Errorf("%+v, want value %s, default 0, source %s", c, value, source)
					}
				}
			}
			if !found {
				t.Errorf("%s not among the differing variables: %q", name, names)
			}
			t.Logf("differing: %q", names)
			if !strings.HasPrefix(got.Launcher.Name, "mpi") {
				t.Errorf("launcher %+v", got.Launcher)
			}
		})
	}
}
