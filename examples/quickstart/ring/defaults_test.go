package main

import (
	"encoding/csv"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/reprobench/reprobench"
	"github.com/reprobench/reprobench/mpi/mpitest"
	"github.com/reprobench/reprobench/rawdata"
)

// methodOf is what a sidecar and its raw rows say about how the
// observations were taken, apart from the call itself: process sync,
// completion time, window, late tolerance, warm-up, number of
// observations, cache, clock synchronization and its accuracy target, the
// window baseline, and the raw rows' method columns.
type methodOf struct {
	ProcSync, RuntimeType, Cache string
	Window                       float64
	Warmup, Rows                 int
	ClockSync                    string
	ClockAccuracy                string
	BaselineObservations         int
	BaselineWindow, BaselineTol  float64
	Columns                      map[string]string
}

// readMethod reads methodOf from the only run in dir.
func readMethod(t *testing.T, dir string) methodOf {
	t.Helper()
	sidecars, _ := filepath.Glob(filepath.Join(dir, "*.json"))
	if len(sidecars) != 1 {
		t.Fatalf("%s: want one sidecar, have %v", dir, sidecars)
	}
	md, err := rawdata.ReadMetadata(sidecars[0])
	if err != nil {
		t.Fatal(err)
	}
	if len(md.Experiments) != 1 {
		t.Fatalf("%s: %d experiments, want 1", sidecars[0], len(md.Experiments))
	}
	e := md.Experiments[0]
	m := methodOf{ProcSync: e.Method, RuntimeType: e.RuntimeType, Cache: e.Cache, Window: e.InitialWindow,
		Warmup: e.WarmupCount, Rows: e.Rows, ClockSync: md.ClockSyncSpec, ClockAccuracy: md.ClockAccuracy,
		Columns: map[string]string{}}
	if b := md.WindowBaseline; b != nil {
		m.BaselineObservations, m.BaselineWindow, m.BaselineTol = b.Observations, b.WindowS, b.LateToleranceS
	}
	f, err := os.Open(filepath.Join(dir, md.Files["raw"]))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil || len(rows) < 2 {
		t.Fatalf("%s: %d rows, %v", f.Name(), len(rows), err)
	}
	for i, col := range rows[0] {
		switch col {
		case "procsync", "window_s", "runtime_type", "cache", "clocksync", "noise_guard", "errorcode":
			m.Columns[col] = rows[1][i]
		}
	}
	return m
}

// TestSameMethodAsRun: the README's first library program (this package's
// ringShift with reprobench.DefaultOptions, as main runs it) and
// "reprobench run" without flags take their observations the same way:
// every method field of their sidecars and raw rows is equal; only the
// call's own fields (name, size, datatype) differ. Both run on 2
// simulated ranks (the program on mpitest, run with --sim).
func TestSameMethodAsRun(t *testing.T) {
	lib := t.TempDir()
	w, err := mpitest.New(mpitest.Config{Ranks: 2, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	err = w.Run(func(r *mpitest.Rank) error {
		opt := reprobench.DefaultOptions() // as main: only the directory and the run id set
		opt.Dir, opt.RunID = lib, "ring"
		opt.Clock = r.Clock()
		_, err := reprobench.Run(r.Comm(), []reprobench.Experiment{ringShift(r.Comm(), 1024)}, opt)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	// The CLI without MPI (nompi): run --sim needs none.
	rb := filepath.Join(t.TempDir(), "reprobench")
	build := exec.Command("go", "build", "-tags", "nompi", "-o", rb, "./cmd/reprobench")
	build.Dir = "../../.."
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	cli := t.TempDir()
	if out, err := exec.Command(rb, "run", "--sim", "--sim-ranks", "2", "--out", cli).CombinedOutput(); err != nil {
		t.Fatalf("reprobench run --sim: %v\n%s", err, out)
	}
	lm, cm := readMethod(t, lib), readMethod(t, cli)
	if !reflect.DeepEqual(lm, cm) {
		a, _ := json.MarshalIndent(lm, "", " ")
		b, _ := json.MarshalIndent(cm, "", " ")
		t.Errorf("the README's program and run without flags differ in method:\nprogram: %s\nrun:     %s", a, b)
	}
	if lm.ProcSync != reprobench.DefaultMethod.String() || lm.Columns["procsync"] != reprobench.DefaultMethod.String() {
		t.Errorf("process sync %q (column %q), want the library's default %s", lm.ProcSync, lm.Columns["procsync"], reprobench.DefaultMethod)
	}
}
