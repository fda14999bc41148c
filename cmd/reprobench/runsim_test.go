package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRunSimAndCompareRefusal: run --sim writes simulated raw data and a
// report; compare refuses it against measured data unless --allow-sim.
func TestRunSimAndCompareRefusal(t *testing.T) {
	dir := t.TempDir()
	var out, errb bytes.Buffer
	for _, id := range []string{"a-sim", "b-sim"} {
		out.Reset()
		err := run(&out, &errb, []string{"run", "--sim", "--sim-ranks", "8", "--nrep", "12", "--warmup", "2",
			"--proc-sync", "window", "--seed", "4", "--run-id", id, "--out", dir})
		if err != nil {
			t.Fatalf("run --sim: %v\n%s", err, errb.String())
		}
	}
	for _, want := range []string{"(simulated)", "clock syncs ", "invalid observations", "rank 0, engine per exp.", "campaign, 1 mpirun(s)"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("report lacks %q:\n%s", want, out.String())
		}
	}
	// b: the same data declared measured (its sidecar without the simulation record).
	side := filepath.Join(dir, "b-sim-mpirun000.json")
	b, err := os.ReadFile(side)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	if _, ok := m["simulation"]; !ok {
		t.Fatalf("sidecar has no simulation record")
	}
	delete(m, "simulation")
	b, _ = json.Marshal(m)
	if err := os.WriteFile(side, b, 0o644); err != nil {
		t.Fatal(err)
	}
	a, bb := filepath.Join(dir, "a-sim-mpirun000.csv"), filepath.Join(dir, "b-sim-mpirun000.csv")
	err = run(&out, &errb, []string{"compare", a, "--", bb})
	if !errors.Is(err, errUsage) || !strings.Contains(err.Error(), "--allow-sim") {
		t.Errorf("compare of simulated with measured data: %v", err)
	}
	if err := run(&out, &errb, []string{"compare", "--allow-sim", a, "--", bb}); err != nil && strings.Contains(err.Error(), "simulated") {
		t.Errorf("compare --allow-sim: %v", err)
	}
}
