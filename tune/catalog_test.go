package tune

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/reprobench/reprobench/internal/mpirun"
	"github.com/reprobench/reprobench/mpi"
	"github.com/reprobench/reprobench/mpi/mpitest"
)

// cvarHelperEnv makes the test binary print the library's control
// variables as JSON and exit (TestMain), in the environment its parent
// gave it.
const cvarHelperEnv = "RB_TUNE_CVAR_HELPER"

func TestMain(m *testing.M) {
	if os.Getenv(cvarHelperEnv) == "1" {
		vs, err := mpi.ControlVariables()
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		_ = json.NewEncoder(os.Stdout).Encode(vs)
		os.Exit(0)
	}
	os.Exit(m.Run())
}

func TestCandidateNames(t *testing.T) {
	c := CatalogFor(OpenMPI)
	got, err := c.Candidate("MPI_Allreduce", "segmented_ring+segsize=1024")
	if err != nil {
		t.Fatal(err)
	}
	wantEnv := []string{"OMPI_MCA_coll_tuned_use_dynamic_rules=1", "OMPI_MCA_coll_tuned_allreduce_algorithm=5",
		"OMPI_MCA_coll_tuned_allreduce_algorithm_segmentsize=1024"}
	if !slices.Equal(got.Env(), wantEnv) {
		t.Errorf("Env = %v, want %v", got.Env(), wantEnv)
	}
	if e := got.Expect(); e != "coll_tuned_use_dynamic_rules=1;coll_tuned_allreduce_algorithm=5;coll_tuned_allreduce_algorithm_segmentsize=1024" {
		t.Errorf("Expect = %q", e)
	}
	m, err := CatalogFor(MPICH).Candidate("MPI_Allreduce", "recursive_doubling")
	if err != nil {
		t.Fatal(err)
	}
	if e := m.Expect(); e != "MPIR_CVAR_COLLECTIVE_FALLBACK=0;MPIR_CVAR_ALLREDUCE_DEVICE_COLLECTIVE=0;MPIR_CVAR_ALLREDUCE_INTRA_ALGORITHM=3" {
		t.Errorf("MPICH Expect = %q", e)
	}
	if !slices.Contains(m.Env(), "MPIR_CVAR_ALLREDUCE_INTRA_ALGORITHM=recursive_doubling") {
		t.Errorf("MPICH Env = %v", m.Env())
	}
	for _, bad := range []string{"ring+segsize=1024", "nosuch", "segmented_ring+segsize=0", "segmented_ring+x=1"} {
		if _, err := c.Candidate("MPI_Allreduce", bad); err == nil {
			t.Errorf("Candidate(%q) accepted", bad)
		}
	}
	if _, err := CatalogFor(MPICH).Candidate("MPI_Bcast", "binomial+segsize=64"); err == nil {
		t.Error("MPICH segment size accepted")
	}
	d, err := c.Candidate("MPI_Bcast", DefaultCandidate)
	if err != nil || len(d.Settings) != 0 || d.Expect() != "" {
		t.Errorf("default = %+v, %v", d, err)
	}
}

func TestCandidatesEveryCall(t *testing.T) {
	for _, c := range catalogs() {
		for _, call := range []string{"MPI_Allreduce", "MPI_Bcast", "MPI_Reduce"} {
			cs, err := c.Candidates(call, nil)
			if err != nil {
				t.Fatal(err)
			}
			col := c.Collective(call)
			if len(cs) != 1+len(col.Algorithms) || len(col.Algorithms) < 2 || cs[0].Name != DefaultCandidate {
				t.Errorf("%s %s: %d candidates", c.Library, call, len(cs))
			}
			seen := map[string]bool{}
			for _, k := range cs {
				if seen[k.Name] {
					t.Errorf("%s %s: %s twice", c.Library, call, k.Name)
				}
				seen[k.Name] = true
				back, err := c.Candidate(call, k.Name)
				if err != nil || back.Expect() != k.Expect() {
					t.Errorf("%s %s: %s does not round-trip: %v", c.Library, call, k.Name, err)
				}
			}
		}
	}
	cs, err := CatalogFor(OpenMPI).Candidates("MPI_Allreduce", []int{1024, 65536})
	if err != nil || len(cs) != 1+6+2 {
		t.Fatalf("with segment sizes: %d, %v", len(cs), err)
	}
}

func TestLibraryOf(t *testing.T) {
	for v, want := range map[string]Library{"Open MPI v4.1.4, package: Debian": OpenMPI, "MPICH Version:\t4.0.2": MPICH, "simulated": Simulated} {
		if got, ok := LibraryOf(v); !ok || got != want {
			t.Errorf("LibraryOf(%q) = %q, %v", v, got, ok)
		}
	}
	if _, ok := LibraryOf("Intel(R) MPI Library 2021"); ok {
		t.Error("Intel MPI recognized")
	}
}

// TestCatalogAgainstMPIT checks the catalogue of the library this binary
// links (Open MPI by default, MPICH with -tags mpich) against the library
// itself: the MPI_T enumerations (CheckEnumerations), then, for every
// candidate of MPI_Allreduce, MPI_Bcast and MPI_Reduce (segmented ones
// with 1024 bytes), a fresh process with the candidate's environment reads
// every control variable back through MPI_T, which must equal the
// candidate's Expect. MPI_T needs no MPI_Init, so no launcher is needed.
func TestCatalogAgainstMPIT(t *testing.T) {
	vs, err := mpi.ControlVariables()
	if errors.Is(err, mpi.ErrNoMPI) {
		t.Skip("no MPI library in this build")
	}
	if err != nil {
		t.Fatal(err)
	}
	var c *Catalog
	names := map[string]bool{}
	for _, v := range vs {
		names[v.Name] = true
	}
	switch {
	case names["coll_tuned_use_dynamic_rules"]:
		c = CatalogFor(OpenMPI)
	case names["MPIR_CVAR_COLLECTIVE_FALLBACK"]:
		c = CatalogFor(MPICH)
	default:
		t.Skip("library is neither Open MPI nor MPICH")
	}
	if err := c.CheckEnumerations(vs); err != nil {
		t.Error(err)
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for _, col := range c.Collectives {
		var seg []int
		if col.Segsize != "" {
			seg = []int{1024}
		}
		cs, err := c.Candidates(col.Call, seg)
		if err != nil {
			t.Fatal(err)
		}
		for _, k := range cs[1:] {
			ctx, cancel := context.WithTimeout(context.Background(), mpirun.Deadline(30*time.Second))
			cmd := exec.CommandContext(ctx, exe)
			cmd.Env = append(append(os.Environ(), cvarHelperEnv+"=1"), k.Env()...)
			out, err := cmd.Output()
			cancel()
			if err != nil {
				t.Fatalf("%s %s: helper: %v", col.Call, k.Name, err)
			}
			var got []mpi.ControlVariable
			if err := json.Unmarshal(out, &got); err != nil {
				t.Fatal(err)
			}
			val := map[string]string{}
			for _, v := range got {
				val[v.Name] = v.Value
			}
			for _, s := range k.Settings {
				if val[s.Cvar] != s.ReadBack {
					t.Errorf("%s %s: %s=%s read back %q, want %q", col.Call, k.Name, s.Env, s.Value, val[s.Cvar], s.ReadBack)
				}
			}
			checked++
		}
	}
	t.Logf("%s: %d candidates read back through MPI_T", c.Library, checked)
	if !strings.Contains(c.Versions, "checked") || checked < 10 {
		t.Errorf("only %d candidates checked", checked)
	}
}

// TestSimulatedCatalog: every candidate of the simulated catalogue, set
// as a simulated mpirun's environment, reads back as Expect says from the
// simulated world's MPI_T table.
func TestSimulatedCatalog(t *testing.T) {
	c := CatalogFor(Simulated)
	if err := c.CheckEnumerations(mpitest.ControlVariableTable()); err != nil {
		t.Fatal(err)
	}
	for _, col := range c.Collectives {
		cs, err := c.Candidates(col.Call, []int{64})
		if err != nil {
			t.Fatal(err)
		}
		if len(cs) != 5 {
			t.Errorf("%s: %d candidates, want default, binomial, linear, segmented, segmented+segsize=64", col.Call, len(cs))
		}
		for _, k := range cs {
			w, err := mpitest.New(mpitest.Config{Ranks: 2, Cvars: mpitest.CvarsFromEnv(k.Env())})
			if err != nil {
				t.Fatal(err)
			}
			got := map[string]string{}
			if err := w.Run(func(r *mpitest.Rank) error {
				if r.ID() == 0 {
					vals, _ := r.Comm().(mpi.ControlVariableSource).ControlVariables()
					for _, v := range vals {
						got[v.Name] = v.Value
					}
				}
				return nil
			}); err != nil {
				t.Fatal(err)
			}
			for _, s := range k.Settings {
				if got[s.Cvar] != s.ReadBack {
					t.Errorf("%s %s: %s = %q, want %q", col.Call, k.Name, s.Cvar, got[s.Cvar], s.ReadBack)
				}
			}
		}
	}
}
