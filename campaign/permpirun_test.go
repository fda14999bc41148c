package campaign

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"testing"
	"time"
)

func TestAssignLevels(t *testing.T) {
	a := AssignLevels(3, 12, 7)
	if !slices.Equal(a, AssignLevels(3, 12, 7)) {
		t.Fatal("not deterministic for a seed")
	}
	for b := 0; b < 12; b += 3 {
		blk := slices.Sorted(slices.Values(a[b : b+3]))
		if !slices.Equal(blk, []int{0, 1, 2}) {
			t.Fatalf("block %d = %v: not a permutation of the levels", b/3, a[b:b+3])
		}
	}
	// Over seeds, every level comes first in a block about as often:
	// 3000 blocks, each level first with p = 1/3: 1000 ± 4.5 sd (sd 25.8)
	// has a false-failure rate below 1e-5.
	first := [3]int{}
	for s := range uint64(300) {
		x := AssignLevels(3, 30, s)
		for b := 0; b < 30; b += 3 {
			first[x[b]]++
		}
	}
	for l, n := range first {
		if n < 1000-116 || n > 1000+116 {
			t.Errorf("level %d first in %d of 3000 blocks, want 1000 ± 116", l, n)
		}
	}
}

// TestPerMpirunCampaign: every mpirun runs with its level's environment,
// each level twice in blocks of three, recorded in the manifest; the
// program (a shell script standing in for run) writes what it saw.
func TestPerMpirunCampaign(t *testing.T) {
	dir := t.TempDir()
	script := `out=$2; id=$4; i=$(printf %03d "$6"); printf '{"alg":"%s","x":"%s"}' "$RB_TEST_ALG" "$X" > "$out/$id-mpirun$i.json"`
	pf := &MpirunFactor{Factor: "algorithm", Env: "RB_TEST_ALG", Levels: []MpirunLevel{
		{Name: "default"}, {Name: "ring", Env: []string{"X=4"}}, {Name: "ring+segsize=1024", Env: []string{"X=5"}}}}
	c := Campaign{Dir: dir, RunID: "pm", Mpiruns: 6, Np: 1, Program: []string{"/bin/sh", "-c", script, "sh"}, Seed: 5, PerMpirun: pf}
	m, err := Start(context.Background(), c, Options{Timeout: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"default": "", "ring": "4", "ring+segsize=1024": "5"}
	count := map[string]int{}
	order := AssignLevels(3, 6, 5)
	for i, r := range m.Runs {
		b, err := os.ReadFile(sidecarPath(dir, "pm", i))
		if err != nil {
			t.Fatal(err)
		}
		var got struct{ Alg, X string }
		if err := json.Unmarshal(b, &got); err != nil {
			t.Fatal(err)
		}
		if got.Alg != r.Level || got.X != want[r.Level] || r.Level != pf.Levels[order[i]].Name {
			t.Errorf("mpirun %d: level %q, saw %+v", i, r.Level, got)
		}
		count[r.Level]++
	}
	if fmt.Sprint(count) != "map[default:2 ring:2 ring+segsize=1024:2]" {
		t.Errorf("levels %v", count)
	}
	m2, err := ReadManifest(ManifestPath(dir, "pm"))
	if err != nil || m2.PerMpirun == nil || len(m2.PerMpirun.Levels) != 3 || !slices.Equal(m2.Runs[3].Env, m.Runs[3].Env) {
		t.Errorf("manifest: %+v, %v", m2.PerMpirun, err)
	}
	for _, bad := range []Campaign{
		{Dir: dir, RunID: "b1", Mpiruns: 5, Np: 1, Program: c.Program, PerMpirun: pf},
		{Dir: dir, RunID: "b2", Mpiruns: 2, Np: 1, Program: c.Program, PerMpirun: &MpirunFactor{Factor: "algorithm", Env: "A", Levels: []MpirunLevel{{Name: "x"}, {Name: "x"}}}},
		{Dir: dir, RunID: "b3", Mpiruns: 3, Np: 1, Program: c.Program, PerMpirun: pf, Batch: []string{"sbatch"}, Array: true},
	} {
		if _, err := Start(context.Background(), bad, Options{}); err == nil {
			t.Errorf("campaign %s accepted", bad.RunID)
		}
	}
}
