package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/reprobench/reprobench/internal/linediff"
)

var updateGolden = flag.Bool("update-golden", false, "rewrite testdata/golden/run.csv.golden and run.json.golden from run --sim")

// goldenArgs run the design testdata/golden/design.csv on the simulated
// world: every method factor (procsync's barrier, double barrier,
// dissemination and the windowed methods, window_s, runtime_type, cache,
// clocksync, noise_guard) and every call parameter (skew, bw_window,
// rma_sync, in_place, root_shift) at several levels, over calls of every
// family, sizes and datatypes. The seed fixes the world and the run. The
// clock accuracy none with resync every 0 re-synchronizes before every
// experiment by fixed counts.
var goldenArgs = []string{"run", "--sim", "--sim-ranks", "4", "--design", "testdata/golden/design.csv",
	"--seed", "11", "--run-id", "golden-sim", "--clock-accuracy", "none", "--resync-every", "0",
	"--clock-sync", "hca3:fitpts=40,exchanges=10", "--warmup", "2", "--window-baseline", "50"}

// TestGoldenSimRun is the behaviour-kept test: the raw CSV of goldenArgs
// is byte-identical to run.csv.golden in testdata/golden, and the sidecar,
// flattened to one "path = value" line per field with the fields that
// vary between runs of the same binary masked (goldenVolatile), is
// identical to run.json.golden. A change of behaviour, or a sidecar field
// added, removed or changed, is a diff; -update-golden rewrites both.
func TestGoldenSimRun(t *testing.T) {
	dir := t.TempDir()
	var out, errb bytes.Buffer
	if err := run(&out, &errb, append(slices.Clone(goldenArgs), "--out", dir)); err != nil {
		t.Fatalf("run --sim: %v\n%s", err, errb.String())
	}
	csv, err := os.ReadFile(filepath.Join(dir, "golden-sim-mpirun000.csv"))
	if err != nil {
		t.Fatal(err)
	}
	side, err := os.ReadFile(filepath.Join(dir, "golden-sim-mpirun000.json"))
	if err != nil {
		t.Fatal(err)
	}
	flat, err := flattenSidecar(side)
	if err != nil {
		t.Fatal(err)
	}
	for _, g := range []struct {
		file string
		have []byte
	}{{"run.csv.golden", csv}, {"run.json.golden", flat}} {
		path := filepath.Join("testdata", "golden", g.file)
		if *updateGolden {
			if err := os.WriteFile(path, g.have, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		want, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(g.have, want) {
			diff := linediff.Lines(string(want), string(g.have), 20)
			if g.file == "run.json.golden" {
				diff = setDiff(want, g.have, 40)
			}
			t.Errorf("%s differs (go test -run TestGoldenSimRun -update-golden rewrites it):\n%s", path, diff)
		}
	}
}

// goldenVolatile reports whether a sidecar field (its path, with list
// indices as "N") varies between runs of the same binary on the same
// input: wall-clock times and durations, allocation counts, and the
// machine's names; its value is masked. The environment record (the
// machine and the command line) is masked as a whole.
func goldenVolatile(path string) bool {
	switch path {
	case "/start_utc", "/end_utc", "/provenance/start_utc", "/duration_s", "/experiments/N/duration_s", "/experiments/N/started_at",
		"/experiments/N/heap_allocs_per_observation", "/window_baseline/duration_s", "/processor_names/N":
		return true
	}
	return false
}

// flattenSidecar writes a sidecar as sorted "path = value" lines, the
// values of goldenVolatile paths replaced by "(masked)".
func flattenSidecar(b []byte) ([]byte, error) {
	var v any
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	if err := d.Decode(&v); err != nil {
		return nil, err
	}
	var lines []string
	var walk func(v any, path, generic string)
	walk = func(v any, path, generic string) {
		switch x := v.(type) {
		case map[string]any:
			for k, e := range x {
				walk(e, path+"/"+k, generic+"/"+k)
			}
			if len(x) == 0 {
				lines = append(lines, path+" = {}")
			}
		case []any:
			for i, e := range x {
				walk(e, fmt.Sprintf("%s/%d", path, i), generic+"/N")
			}
			if len(x) == 0 {
				lines = append(lines, path+" = []")
			}
		default:
			if strings.HasPrefix(generic, "/environment/") {
				lines = append(lines, "/environment = (masked)")
				return
			}
			s, _ := json.Marshal(x)
			if goldenVolatile(generic) {
				s = []byte("(masked)")
			}
			lines = append(lines, path+" = "+string(s))
		}
	}
	walk(v, "", "")
	slices.Sort(lines)
	lines = slices.Compact(lines)
	return []byte(strings.Join(lines, "\n") + "\n"), nil
}

// setDiff lists up to max lines of want that have lacks ("-") and of have
// that want lacks ("+"): the sidecar fields removed, added or changed.
func setDiff(want, have []byte, max int) string {
	w := strings.Split(strings.TrimSuffix(string(want), "\n"), "\n")
	h := strings.Split(strings.TrimSuffix(string(have), "\n"), "\n")
	var b strings.Builder
	n := 0
	for _, d := range []struct {
		sign     string
		from, in []string
	}{{"-", w, h}, {"+", h, w}} {
		for _, l := range d.from {
			if _, found := slices.BinarySearch(d.in, l); !found {
				if n++; n > max {
					return b.String() + "…\n"
				}
				fmt.Fprintf(&b, "%s %s\n", d.sign, l)
			}
		}
	}
	return b.String()
}
