package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/reprobench/reprobench/factor"
	"github.com/reprobench/reprobench/internal/mpirun"
	"github.com/reprobench/reprobench/provenance"
	"github.com/reprobench/reprobench/tune"
)

// TestAlgorithmUnderMPI: on 2 ranks under each library, a run given a
// candidate's environment as launch --algorithm gives it (Open MPI's
// segmented ring with 1 KiB segments, MPICH's recursive doubling) records
// the level in the algorithm column and its read-back in the sidecar, every
// setting ok; and a run whose expectation the library does not meet
// (Open MPI's algorithm forced without coll_tuned_use_dynamic_rules, the
// silent non-use this check exists for; MPICH's algorithm not set at all)
// fails and leaves no sidecar.
func TestAlgorithmUnderMPI(t *testing.T) {
	if testing.Short() {
		t.Skip("integration test: needs mpirun")
	}
	for _, f := range mpirun.Flavors(t) {
		t.Run(f.Name, func(t *testing.T) {
			bin := mpirun.BuildShared(t, f, ".", ".")
			lib, name := tune.OpenMPI, "segmented_ring+segsize=1024"
			if f.Name == "mpich" {
				lib, name = tune.MPICH, "recursive_doubling"
			}
			c, err := tune.CatalogFor(lib).Candidate("MPI_Allreduce", name)
			if err != nil {
				t.Fatal(err)
			}
			env := append(c.Env(), factor.Algorithm.Row().Env+"="+c.Name, provenance.ExpectEnv+"="+c.Expect())
			dir := t.TempDir()
			args := func(id string) []string {
				return []string{"run", "--out", dir, "--run-id", id, "--seed", "7", "--calls", "MPI_Allreduce", "--sizes", "8,65536",
					"--nrep", "6", "--warmup", "1", "--proc-sync", "barrier", "--clock-sync", "none"}
			}
			mpirun.MustRun(t, f, 2, 180*time.Second, env, bin, args("ok")...)
			recs := readCSV(t, filepath.Join(dir, "ok-mpirun000.csv"))
			col := -1
			for i, h := range recs[0] {
				if h == factor.Algorithm.String() {
					col = i
				}
			}
			if col < 0 || len(recs) != 13 {
				t.Fatalf("header %v, %d rows", recs[0], len(recs))
			}
			for _, r := range recs[1:] {
				if r[col] != name {
					t.Fatalf("algorithm %q, want %q", r[col], name)
				}
			}
			b, err := os.ReadFile(filepath.Join(dir, "ok-mpirun000.json"))
			if err != nil {
				t.Fatal(err)
			}
			var side struct {
				Provenance struct {
					MPIT provenance.MPIT `json:"mpi_t"`
				} `json:"provenance"`
			}
			if err := json.Unmarshal(b, &side); err != nil {
				t.Fatal(err)
			}
			if ch := side.Provenance.MPIT.Checked; len(ch) != len(c.Settings) || side.Provenance.MPIT.CheckError() != nil {
				t.Errorf("read-back %+v", ch)
			}

			// An expectation the library does not meet fails the run.
			bad := []string{factor.Algorithm.Row().Env + "=" + c.Name, provenance.ExpectEnv + "=" + c.Expect()}
			if lib == tune.OpenMPI {
				bad = append(bad, "OMPI_MCA_coll_tuned_allreduce_algorithm=5")
			}
			r := mpirun.Run(f, 2, 180*time.Second, bad, bin, args("bad")...)
			if r.TimedOut || r.Err == nil || !strings.Contains(r.Stderr+r.Stdout, "did not take effect") {
				t.Errorf("run with a setting that did not take effect: %v, timed out %v\n%s", r.Err, r.TimedOut, r.Stderr)
			}
			if _, err := os.Stat(filepath.Join(dir, "bad-mpirun000.json")); err == nil {
				t.Error("the failed run left a sidecar")
			}
		})
	}
}
