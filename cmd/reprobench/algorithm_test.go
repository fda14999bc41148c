package main

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/reprobench/reprobench/campaign"
	"github.com/reprobench/reprobench/factor"
	"github.com/reprobench/reprobench/provenance"
)

// TestSimAlgorithmColumn: a simulated mpirun launched with an algorithm
// (the factor's environment variable, the simulated control variable, the
// read-back expectation, as launch sets them) writes the level in every
// row's algorithm column and the read-back in the sidecar; an expectation
// the world does not meet fails the run and leaves no sidecar.
func TestSimAlgorithmColumn(t *testing.T) {
	dir := t.TempDir()
	args := func(id string) []string {
		return []string{"run", "--sim", "--sim-ranks", "4", "--calls", "MPI_Allreduce", "--sizes", "8,65536", "--nrep", "5", "--warmup", "1",
			"--proc-sync", "barrier", "--clock-sync", "none", "--seed", "3", "--run-id", id, "--out", dir}
	}
	t.Setenv(factor.Algorithm.Row().Env, "segmented+segsize=64")
	t.Setenv("RBSIM_ALLREDUCE_ALGORITHM", "segmented")
	t.Setenv("RBSIM_ALLREDUCE_SEGSIZE", "64")
	t.Setenv(provenance.ExpectEnv, "RBSIM_ALLREDUCE_ALGORITHM=3;RBSIM_ALLREDUCE_SEGSIZE=64")
	var out, errb bytes.Buffer
	if err := run(&out, &errb, args("alg")); err != nil {
		t.Fatalf("run: %v\n%s", err, errb.String())
	}
	f, err := os.Open(filepath.Join(dir, "alg-mpirun000.csv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	col := -1
	for i, h := range rows[0] {
		if h == factor.Algorithm.String() {
			col = i
		}
	}
	if col < 0 || len(rows) < 11 {
		t.Fatalf("header %v, %d rows", rows[0], len(rows))
	}
	for _, r := range rows[1:] {
		if r[col] != "segmented+segsize=64" {
			t.Fatalf("row %v: algorithm %q", r, r[col])
		}
	}
	side, err := os.ReadFile(filepath.Join(dir, "alg-mpirun000.json"))
	if err != nil {
		t.Fatal(err)
	}
	var meta struct {
		PerMpirun map[string]string `json:"per_mpirun"`
	}
	if err := json.Unmarshal(side, &meta); err != nil || meta.PerMpirun[factor.Algorithm.String()] != "segmented+segsize=64" {
		t.Errorf("sidecar per_mpirun %v, %v", meta.PerMpirun, err)
	}
	if !strings.Contains(string(side), `"checked"`) || !strings.Contains(string(side), `"RBSIM_ALLREDUCE_ALGORITHM"`) {
		t.Errorf("sidecar lacks the read-back")
	}

	// The world runs binomial, the launcher expected segmented.
	t.Setenv("RBSIM_ALLREDUCE_ALGORITHM", "binomial")
	err = run(&out, &errb, args("bad"))
	if err == nil || !strings.Contains(err.Error(), "RBSIM_ALLREDUCE_ALGORITHM read 1, want 3") {
		t.Fatalf("run with a setting that did not take effect: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "bad-mpirun000.json")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the failed run left a sidecar: %v", err)
	}
}

// TestLaunchSimAlgorithm: launch --sim --algorithm runs each mpirun with
// one level (two of each, in randomized blocks), writes the level in the
// raw column algorithm, and the simulated algorithm takes effect: at
// 64 KiB every observation of segmented with 64-byte segments (1024
// segments, each mpitest's segment overhead, 1 µs per rank) is slower than every
// one of binomial (virtual time, deterministic for the seed: the gap of
// about 1 ms exceeds binomial's whole run time many times over).
func TestLaunchSimAlgorithm(t *testing.T) {
	if _, _, err := runCmd("launch", "--sim", "--mpiruns", "3", "--np", "4", "--out", t.TempDir(), "--algorithm", "MPI_Allreduce:binomial,linear"); !errors.Is(err, errUsage) {
		t.Errorf("3 mpiruns for 2 levels: %v, want a usage error", err)
	}
	if _, _, err := runCmd("launch", "--sim", "--mpiruns", "2", "--np", "4", "--out", t.TempDir(), "--algorithm", "MPI_Allreduce:ring"); !errors.Is(err, errUsage) {
		t.Errorf("a level the simulator lacks: %v, want a usage error", err)
	}
	tmp := t.TempDir()
	bin := filepath.Join(tmp, "reprobench")
	if out, err := exec.Command("go", "build", "-tags", "nompi", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("building reprobench: %v\n%s", err, out)
	}
	out := filepath.Join(tmp, "out")
	cmd := exec.Command(bin, "launch", "--sim", "--mpiruns", "4", "--np", "4", "--out", out, "--run-id", "a", "--seed", "5",
		"--algorithm", "MPI_Allreduce:binomial,segmented+segsize=64",
		"--", "--calls", "MPI_Allreduce", "--sizes", "65536", "--nrep", "10", "--proc-sync", "barrier")
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%v\n%s", err, b)
	}
	m, err := campaign.ReadManifest(campaign.ManifestPath(out, "a"))
	if err != nil {
		t.Fatal(err)
	}
	if m.PerMpirun == nil || m.PerMpirun.Factor != factor.Algorithm.String() || len(m.PerMpirun.Levels) != 2 {
		t.Fatalf("manifest per_mpirun %+v", m.PerMpirun)
	}
	times := map[string][]float64{}
	for i, r := range m.Runs {
		f, err := os.Open(filepath.Join(out, fmt.Sprintf("a-mpirun%03d.csv", i)))
		if err != nil {
			t.Fatal(err)
		}
		rows, err := csv.NewReader(f).ReadAll()
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
		col, rt := slices.Index(rows[0], factor.Algorithm.String()), slices.Index(rows[0], "runtime_s")
		if col < 0 || len(rows) != 11 {
			t.Fatalf("mpirun %d: header %v, %d rows", i, rows[0], len(rows))
		}
		for _, row := range rows[1:] {
			if row[col] != r.Level {
				t.Fatalf("mpirun %d of level %s: row says %s", i, r.Level, row[col])
			}
			v, _ := strconv.ParseFloat(row[rt], 64)
			times[r.Level] = append(times[r.Level], v)
		}
	}
	bin64, seg := times["binomial"], times["segmented+segsize=64"]
	if len(bin64) != 20 || len(seg) != 20 {
		t.Fatalf("observations per level: %d, %d, want 20 each", len(bin64), len(seg))
	}
	if slices.Min(seg) <= slices.Max(bin64) {
		t.Errorf("segmented %v s not above binomial %v s", slices.Min(seg), slices.Max(bin64))
	}
}
