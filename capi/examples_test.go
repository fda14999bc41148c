//go:build cgo && !nompi

package main

import (
	"bytes"
	"encoding/csv"
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

// makeIn runs make in dir with MPI set to the flavor's name and returns
// the program it built (dir/stencil-<flavor>).
func makeIn(t *testing.T, f mpirun.Flavor, dir string) string {
	t.Helper()
	cmd := exec.Command("make", "MPI="+f.Name)
	cmd.Dir = dir
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("make MPI=%s in %s: %v\n%s", f.Name, dir, err, b)
	}
	p, err := filepath.Abs(filepath.Join(dir, "stencil-"+f.Name))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// buildCLI builds the reprobench command into a temporary directory.
func buildCLI(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "reprobench")
	cmd := exec.Command("go", "build", "-tags", "nompi", "-o", bin, "../cmd/reprobench")
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build reprobench: %v\n%s", err, b)
	}
	return bin
}

// cli runs the reprobench command and returns its standard output.
func cli(t *testing.T, bin string, args ...string) string {
	t.Helper()
	var so, se bytes.Buffer
	cmd := exec.Command(bin, args...)
	cmd.Stdout, cmd.Stderr = &so, &se
	if err := cmd.Run(); err != nil {
		t.Fatalf("reprobench %s: %v\n%s\n%s", strings.Join(args, " "), err, so.String(), se.String())
	}
	return so.String()
}

// TestExamplesUnderMPI builds the C and the Fortran stencil with make for
// every installed MPI library, runs each at np 2 under the library's
// launcher, and checks what the recorder wrote: every rank recorded every
// occurrence of the three regions (iters each), with no misuse; the clocks
// were synchronized at the start and at rbr_stop; every rank's local start
// lies within the run (the C side read the Go clock's ticks since its
// epoch: a different clock or epoch puts it hours away); and the files go
// through reprobench analyze, compare --by region and report.
func TestExamplesUnderMPI(t *testing.T) {
	if testing.Short() {
		t.Skip("integration test: needs mpirun, mpicc and mpif90")
	}
	fs := mpirun.Flavors(t)
	bin := buildCLI(t)
	const iters = 200
	for _, f := range fs {
		for _, ex := range []struct{ name, dir string }{{"c", "../examples/c-stencil"}, {"fortran", "../examples/fortran-stencil"}} {
			t.Run(f.Name+"/"+ex.name, func(t *testing.T) {
				if ex.name == "fortran" {
					if _, err := exec.LookPath("mpif90." + f.Name); err != nil {
						if os.Getenv("RB_REQUIRE_MPI") == "1" {
							t.Fatalf("RB_REQUIRE_MPI=1 but mpif90.%s is missing (gfortran: run make setup)", f.Name)
						}
						t.Skipf("mpif90.%s not found (gfortran; run make setup)", f.Name)
					}
				}
				prog := makeIn(t, f, ex.dir)
				out := t.TempDir()
				args := []string{"-n", "64", "-iters", strconv.Itoa(iters), "-out", out}
				if ex.name == "fortran" {
					args = []string{"64", strconv.Itoa(iters), out}
				}
				t0 := time.Now()
				mpirun.MustRun(t, f, 2, 180*time.Second, nil, prog, args...)
				wall := time.Since(t0).Seconds()
				base := filepath.Join(out, "stencil-"+f.Name+"-mpirun000")
				m, err := rawdata.ReadMetadata(base + ".json")
				if err != nil {
					t.Fatal(err)
				}
				checkSidecar(t, m.Regions, iters)
				checkLocalStarts(t, base+".ranks.csv", wall)
				a := cli(t, bin, "analyze", base+".csv")
				for _, r := range []string{"compute", "halo", "residual"} {
					if !strings.Contains(a, "region="+r+"/np=2") {
						t.Errorf("analyze has no group of region %s:\n%s", r, a)
					}
				}
				if c := cli(t, bin, "compare", "--by", "region", base+".csv"); !strings.Contains(c, "compute") || !strings.Contains(c, "residual") {
					t.Errorf("compare --by region names no regions:\n%s", c)
				}
				html := filepath.Join(out, "report.html")
				cli(t, bin, "report", "-o", html, base+".csv")
				if b, err := os.ReadFile(html); err != nil || !bytes.Contains(b, []byte("residual")) {
					t.Errorf("report %s: %v, or it names no region residual", html, err)
				}
			})
		}
	}
}

// checkSidecar checks the recorder's record: 2 ranks, iters occurrences
// of 3 regions on each, no misuse, drop or unclosed region, both
// synchronizations, and a measured pair cost.
func checkSidecar(t *testing.T, raw []byte, iters int) {
	t.Helper()
	var rec struct {
		Clock   string `json:"clock"`
		Sync    string `json:"sync"`
		Ranks   int    `json:"ranks"`
		PerRank []struct {
			Rank           int     `json:"rank"`
			Records        int     `json:"records"`
			PairOverheadNs float64 `json:"pair_overhead_ns"`
		} `json:"per_rank"`
		Misuse rawdata.RegionMisuse `json:"misuse"`
	}
	if err := json.Unmarshal(raw, &rec); err != nil {
		t.Fatal(err)
	}
	if rec.Clock != "monotonic_raw" || rec.Sync != "start+end" || rec.Ranks != 2 || len(rec.PerRank) != 2 {
		t.Errorf("regions record: clock %q sync %q ranks %d per_rank %d; want monotonic_raw, start+end, 2, 2", rec.Clock, rec.Sync, rec.Ranks, len(rec.PerRank))
	}
	for _, p := range rec.PerRank {
		if p.Records != 3*iters || !(p.PairOverheadNs > 0) {
			t.Errorf("rank %d: %d records, pair %.1f ns; want %d and a measured cost", p.Rank, p.Records, p.PairOverheadNs, 3*iters)
		}
	}
	if rec.Misuse.Misuses != 0 || rec.Misuse.Drops != 0 || rec.Misuse.Unclosed != 0 {
		t.Errorf("misuse account %+v; want none", rec.Misuse)
	}
}

// checkLocalStarts checks that every local start and end in the per-rank
// file lies in [0, wall] seconds: the recorder's clock starts at rbr_start,
// within the program's run.
func checkLocalStarts(t *testing.T, path string, wall float64) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil || len(rows) < 2 {
		t.Fatalf("%s: %v (%d rows)", path, err, len(rows))
	}
	col := map[string]int{}
	for i, h := range rows[0] {
		col[h] = i
	}
	for _, name := range []string{"local_start_s", "local_end_s"} {
		i, ok := col[name]
		if !ok {
			t.Fatalf("%s: no column %s in %v", path, name, rows[0])
		}
		for _, r := range rows[1:] {
			v, err := strconv.ParseFloat(r[i], 64)
			if err != nil || v < 0 || v > wall {
				t.Fatalf("%s: %s %s outside [0, %.1f] s (%v)", path, name, r[i], wall, err)
			}
		}
	}
}

// buildTestdata builds the recorder's archive for f (make in capi) and
// then src with f's compiler wrapper (mpicc or mpicxx) against it, into a
// temporary directory; it returns the program.
func buildTestdata(t *testing.T, f mpirun.Flavor, wrapper, src string) string {
	t.Helper()
	if b, err := exec.Command("make", "MPI="+f.Name).CombinedOutput(); err != nil {
		t.Fatalf("make MPI=%s: %v\n%s", f.Name, err, b)
	}
	prog := filepath.Join(t.TempDir(), strings.TrimSuffix(filepath.Base(src), filepath.Ext(src)))
	cc := exec.Command(wrapper+"."+f.Name, "-O2", "-Wall", "-I.", "-o", prog, src,
		filepath.Join("lib", f.Name, "librbregion.a"), "-lpthread", "-ldl", "-lm")
	if b, err := cc.CombinedOutput(); err != nil {
		t.Fatalf("%s.%s: %v\n%s", wrapper, f.Name, err, b)
	}
	return prog
}
