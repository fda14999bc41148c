package vcluster

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/reprobench/reprobench/internal/mpirun"
	"github.com/reprobench/reprobench/rawdata"
)

// TestRegionsFromCAcrossNodes runs the C and the Fortran stencil
// (examples/c-stencil, examples/fortran-stencil, built with make for each
// library) on 2 nodes × 1 rank, whose clocks differ by the nodes' time
// namespaces, and checks what the C recorder wrote: both ranks recorded
// every occurrence of the three regions, no misuse, the clocks were
// synchronized at rbr_start and at rbr_stop (the stated bound, or its
// absence, is logged), and reprobench analyze reads the file with a group
// per region.
func TestRegionsFromCAcrossNodes(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: no MPI launches")
	}
	requireVCluster(t)
	fs := flavors(t)
	c := newCluster(t, Config{Nodes: 2, Seed: 3})
	const iters = 100
	for _, f := range fs {
		bin := buildReprobench(t, f)
		for _, ex := range []struct{ name, dir string }{{"c", "../../examples/c-stencil"}, {"fortran", "../../examples/fortran-stencil"}} {
			t.Run(f+"/"+ex.name, func(t *testing.T) {
				if ex.name == "fortran" {
					if _, err := exec.LookPath("mpif90." + f); err != nil {
						if os.Getenv("RB_REQUIRE_MPI") == "1" {
							t.Fatalf("RB_REQUIRE_MPI=1 but mpif90.%s is missing (gfortran: run make setup)", f)
						}
						t.Skipf("mpif90.%s not found (gfortran; run make setup)", f)
					}
				}
				cmd := exec.Command("make", "MPI="+f)
				cmd.Dir = ex.dir
				if b, err := cmd.CombinedOutput(); err != nil {
					t.Fatalf("make MPI=%s in %s: %v\n%s", f, ex.dir, err, b)
				}
				prog, err := filepath.Abs(filepath.Join(ex.dir, "stencil-"+f))
				if err != nil {
					t.Fatal(err)
				}
				out := t.TempDir()
				args := []string{"-n", "64", "-iters", strconv.Itoa(iters), "-out", out}
				if ex.name == "fortran" {
					args = []string{"64", strconv.Itoa(iters), out}
				}
				ctx, cancel := context.WithTimeout(context.Background(), mpirun.Deadline(3*time.Minute))
				defer cancel()
				run, err := c.MPIRun(ctx, f, 2, 1, prog, args...)
				if err != nil {
					t.Fatal(err)
				}
				if b, err := run.CombinedOutput(); err != nil {
					t.Fatalf("%v (ctx: %v)\n%s", err, ctx.Err(), tail(string(b)))
				}
				base := filepath.Join(out, "stencil-"+f+"-mpirun000")
				m, err := rawdata.ReadMetadata(base + ".json")
				if err != nil {
					t.Fatal(err)
				}
				var rec struct {
					Sync    string   `json:"sync"`
					Ranks   int      `json:"ranks"`
					BoundS  *float64 `json:"bound_s"`
					PerRank []struct {
						Rank    int `json:"rank"`
						Records int `json:"records"`
					} `json:"per_rank"`
					Misuse rawdata.RegionMisuse `json:"misuse"`
				}
				if err := json.Unmarshal(m.Regions, &rec); err != nil {
					t.Fatal(err)
				}
				if rec.Sync != "start+end" || rec.Ranks != 2 || len(rec.PerRank) != 2 {
					t.Errorf("regions record: sync %q, ranks %d, per_rank %d; want start+end, 2, 2", rec.Sync, rec.Ranks, len(rec.PerRank))
				}
				for _, p := range rec.PerRank {
					if p.Records != 3*iters {
						t.Errorf("rank %d recorded %d, want %d", p.Rank, p.Records, 3*iters)
					}
				}
				if mu := rec.Misuse; mu.Misuses != 0 || mu.Drops != 0 || mu.Unclosed != 0 || mu.Partial != 0 {
					t.Errorf("misuse account %+v, want none", rec.Misuse)
				}
				bound := "no bound stated"
				if rec.BoundS != nil {
					bound = "largest stated bound " + strconv.FormatFloat(*rec.BoundS, 'g', 3, 64) + " s"
				}
				t.Logf("%s/%s across 2 nodes: %d ranks, %s", f, ex.name, rec.Ranks, bound)
				a, err := exec.Command(bin, "analyze", base+".csv").CombinedOutput()
				if err != nil {
					t.Fatalf("reprobench analyze: %v\n%s", err, a)
				}
				for _, r := range []string{"compute", "halo", "residual"} {
					if !strings.Contains(string(a), "region="+r+"/np=2") {
						t.Errorf("analyze has no group of region %s:\n%s", r, a)
					}
				}
			})
		}
	}
}
