package main

import (
	"bytes"
	"encoding/csv"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

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
