package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/reprobench/reprobench"
	"github.com/reprobench/reprobench/analysis"
	"github.com/reprobench/reprobench/mpi/mpitest"
	"github.com/reprobench/reprobench/window"
)

// parityAllowed are the sidecar fields in which a Go program that uses the
// library's named defaults and "reprobench run" may differ: the run's
// identity and seed value, times, and what describes the host and the
// process rather than the measurement (the clock's measured read cost, the
// environment, processor names, the command line and its flags, heap
// allocations per observation, the measured clock sync results and the
// latest start of a window, the window baseline's counts and time, the provenance record's start time, and
// the CPU time other processes took, which are measurements). Paths are
// JSON paths with [*] for any index.
var parityAllowed = []string{
	"run_id", "seed", "files",
	"start_utc", "end_utc", "provenance.start_utc", "duration_s", "experiments[*].started_at", "experiments[*].duration_s",
	"clock", "environment", "processor_names", "args", "flags",
	"experiments[*].heap_allocs_per_observation", "experiments[*].max_late_s", "experiments[*].wait",
	"clock_syncs[*].result",
	"window_baseline.duration_s", "window_baseline.invalid", "window_baseline.late",
	"cpu_load", "experiments[*].cpu_load",
}

// TestLibraryRunParity: a Go program that runs the library's named defaults
// (reprobench.DefaultExperiment, reprobench.DefaultOptions, reprobench.Run) and
// "reprobench run" write sidecars that differ only in parityAllowed, raw
// rows that fall into the same analyze groups, and the window that ran —
// for the default method without flags (reprobench.DefaultMethod), and for
// barrier synchronization with the local completion time (the default of
// the barrier methods, and what run --proc-sync barrier asks for). Both
// run on 2 simulated ranks (mpitest).
func TestLibraryRunParity(t *testing.T) {
	for _, tc := range []struct {
		name   string
		method window.Method
		args   []string
	}{
		{"default", reprobench.DefaultMethod, nil},
		{"barrier", window.Barrier, []string{"--proc-sync", "barrier"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			lib := t.TempDir()
			runOnSimWorld(t, func(r *mpitest.Rank) error {
				opt := reprobench.DefaultOptions()
				opt.Dir = lib
				opt.Clock = r.Clock()
				_, err := reprobench.Run(r.Comm(), []reprobench.Experiment{reprobench.DefaultExperiment(tc.method)}, opt)
				return err
			})
			cli := t.TempDir()
			runOnSimWorld(t, func(r *mpitest.Rank) error {
				fs, o := runFlags(io.Discard)
				if err := parseFlags(fs, append([]string{"--out", cli}, tc.args...)); err != nil {
					return err
				}
				if err := o.check(); err != nil {
					return err
				}
				return runOn(r.Comm(), r.Clock(), io.Discard, io.Discard, fs, o)
			})
			lm, lc := runFiles(t, lib)
			cm, cc := runFiles(t, cli)
			if diffs := jsonDiff("", lm, cm); len(diffs) > 0 {
				t.Errorf("the sidecars differ beyond %v:\n%s", parityAllowed, strings.Join(diffs, "\n"))
			}
			lg, cg := groups(t, lc), groups(t, cc)
			if !slices.Equal(lg, cg) || len(lg) != 1 {
				t.Errorf("analyze groups: library %v, run %v", lg, cg)
			}
			wantRT, wantWin := "local", "0"
			if tc.method.Windowed() {
				wantRT, wantWin = "global", "0.0001"
			}
			for _, csvPath := range []string{lc, cc} {
				b, _ := os.ReadFile(csvPath)
				if !strings.Contains(string(b), ","+tc.method.String()+","+wantWin+","+wantRT+",") {
					t.Errorf("%s: rows do not record procsync %s, window_s %s, runtime_type %s:\n%.300s", csvPath, tc.method, wantWin, wantRT, b)
				}
			}
		})
	}
}

// runOnSimWorld runs f on every rank of a 2-rank simulated world.
func runOnSimWorld(t *testing.T, f func(r *mpitest.Rank) error) {
	t.Helper()
	w, err := mpitest.New(mpitest.Config{Ranks: 2, Seed: 7})
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var errs []error
	_ = w.Run(func(r *mpitest.Rank) error {
		if err := f(r); err != nil {
			mu.Lock()
			errs = append(errs, fmt.Errorf("rank %d: %w", r.ID(), err))
			mu.Unlock()
		}
		return nil
	})
	for _, err := range errs {
		t.Fatal(err)
	}
}

// runFiles returns the parsed sidecar and the raw CSV path of the one run
// in dir.
func runFiles(t *testing.T, dir string) (any, string) {
	t.Helper()
	js, _ := filepath.Glob(filepath.Join(dir, "*.json"))
	cs, _ := filepath.Glob(filepath.Join(dir, "*.csv"))
	var raw []string
	for _, c := range cs {
		if !strings.Contains(filepath.Base(c), "rank") {
			raw = append(raw, c)
		}
	}
	if len(js) != 1 || len(raw) != 1 {
		t.Fatalf("%s: want one sidecar and one raw file, have %v %v", dir, js, cs)
	}
	b, err := os.ReadFile(js[0])
	if err != nil {
		t.Fatal(err)
	}
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatal(err)
	}
	return v, raw[0]
}

// groups returns the analyze group keys of a raw file.
func groups(t *testing.T, path string) []string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	d, err := analysis.ReadRaw(f, path)
	if err != nil {
		t.Fatal(err)
	}
	var keys []string
	for _, g := range d.Groups {
		keys = append(keys, g.Key.String())
	}
	sort.Strings(keys)
	return keys
}

var indexRE = regexp.MustCompile(`\[\d+\]`)

// jsonDiff lists the paths where a and b differ, except the allowed ones.
func jsonDiff(path string, a, b any) []string {
	if slices.Contains(parityAllowed, indexRE.ReplaceAllString(path, "[*]")) {
		return nil
	}
	switch av := a.(type) {
	case map[string]any:
		bv, ok := b.(map[string]any)
		if !ok {
			return []string{fmt.Sprintf("%s: %v vs %v", path, short(a), short(b))}
		}
		keys := map[string]bool{}
		for k := range av {
			keys[k] = true
		}
		for k := range bv {
			keys[k] = true
		}
		var out []string
		for _, k := range slices.Sorted(func(yield func(string) bool) {
			for k := range keys {
				if !yield(k) {
					return
				}
			}
		}) {
			p := k
			if path != "" {
				p = path + "." + k
			}
			out = append(out, jsonDiff(p, av[k], bv[k])...)
		}
		return out
	case []any:
		bv, ok := b.([]any)
		if !ok || len(av) != len(bv) {
			return []string{fmt.Sprintf("%s: %v vs %v", path, short(a), short(b))}
		}
		var out []string
		for i := range av {
			out = append(out, jsonDiff(fmt.Sprintf("%s[%d]", path, i), av[i], bv[i])...)
		}
		return out
	}
	ja, _ := json.Marshal(a)
	jb, _ := json.Marshal(b)
	if !bytes.Equal(ja, jb) {
		return []string{fmt.Sprintf("%s: %s vs %s", path, ja, jb)}
	}
	return nil
}

// short is v's JSON, cut for a message.
func short(v any) string {
	b, _ := json.Marshal(v)
	if len(b) > 200 {
		return string(b[:200]) + "…"
	}
	return string(b)
}

// TestLibraryDefaultsRecorded: the library's defaults are what the sidecar
// of a Go program records — the fields a new user found missing: a
// warm-up of 100, a drawn and recorded seed, and for a windowed run the
// clock accuracy target derived from the late tolerance, its first
// synchronization, and the 100 µs window.
func TestLibraryDefaultsRecorded(t *testing.T) {
	dir := t.TempDir()
	runOnSimWorld(t, func(r *mpitest.Rank) error {
		opt := reprobench.DefaultOptions()
		opt.Dir = dir
		opt.Clock = r.Clock()
		_, err := reprobench.Run(r.Comm(), []reprobench.Experiment{reprobench.DefaultExperiment(window.Fixed)}, opt)
		return err
	})
	m, _ := runFiles(t, dir)
	meta := m.(map[string]any)
	ex := meta["experiments"].([]any)[0].(map[string]any)
	syncs, _ := meta["clock_syncs"].([]any)
	if ex["warmup_count"] != 100.0 || meta["seed_generated"] != true || meta["clock_accuracy"] != "1µs@1s" ||
		len(syncs) == 0 || syncs[0].(map[string]any)["reason"] != "first synchronization" || ex["initial_window_s"] != 0.0001 || ex["runtime_type"] != "global" {
		b, _ := json.MarshalIndent(meta, "", " ")
		t.Errorf("sidecar lacks a default:\n%.3000s", b)
	}
	for _, p := range parityAllowed { // no stale entry
		if p == "flags" || p == "args" {
			continue // a Go program has none
		}
		if !hasPath(meta, strings.Split(strings.ReplaceAll(p, "[*]", ""), ".")) {
			t.Errorf("parityAllowed names %s, which the sidecar does not have", p)
		}
	}
}

// hasPath reports whether v has the keys of path, looking into the first
// element of arrays.
func hasPath(v any, path []string) bool {
	if len(path) == 0 {
		return true
	}
	if a, ok := v.([]any); ok {
		return len(a) > 0 && hasPath(a[0], path)
	}
	m, ok := v.(map[string]any)
	if !ok {
		return false
	}
	next, ok := m[path[0]]
	return ok && hasPath(next, path[1:])
}
