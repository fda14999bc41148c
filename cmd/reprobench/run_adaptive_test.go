package main

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/reprobench/reprobench/design"
	"github.com/reprobench/reprobench/rawdata"
)

func TestRunNrepAuto(t *testing.T) {
	dir := t.TempDir()
	var out, errb bytes.Buffer
	err := run(&out, &errb, []string{"run", "--sim", "--sim-ranks", "3", "--nrep", "auto", "--ci-width", "3%", "--nrep-min", "50",
		"--nrep-max", "2000", "--calls", "MPI_Allreduce", "--sizes", "8,64", "--warmup", "5", "--seed", "1", "--run-id", "a", "--out", dir})
	if err != nil {
		t.Fatalf("run --nrep auto: %v\n%s", err, errb.String())
	}
	m, err := rawdata.ReadMetadata(filepath.Join(dir, "a-mpirun000.json"))
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Experiments) != 2 {
		t.Fatalf("%d experiments", len(m.Experiments))
	}
	for _, e := range m.Experiments {
		s := e.Stop
		if s == nil || s.Width != 0.03 || s.Min != 50 || s.Max != 2000 || s.Quantile != 0.5 || s.Observations != e.Rows || s.Looks < 1 {
			t.Errorf("experiment %d: stop record %+v, %d rows", e.Exp, s, e.Rows)
		}
	}
	for _, bad := range [][]string{
		{"--nrep", "0"}, {"--nrep", "many"}, {"--ci-width", "2%"}, {"--nrep", "auto", "--ci-width", "0"},
		{"--nrep", "auto", "--ci-percentile", "100"}, {"--nrep", "auto", "--nrep-min", "500", "--nrep-max", "100"},
	} {
		args := append([]string{"run", "--check-np", "2", "--out", dir, "--run-id", "b"}, bad...)
		if err := run(&out, &errb, args); !errors.Is(err, errUsage) {
			t.Errorf("%v: err = %v, want a usage error", bad, err)
		}
	}
}

func TestDesignNrepAuto(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "d.csv")
	d := &design.Design{Experiments: []design.Experiment{
		{Mpirun: 0, Exp: 0, Call: "MPI_Allreduce", MsizeBytes: 8, NrepAuto: true},
		{Mpirun: 0, Exp: 1, Call: "MPI_Allreduce", MsizeBytes: 64, Nrep: 30},
	}}
	if err := design.WriteFile(path, d); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(path)
	if !strings.Contains(string(b), ",auto,") {
		t.Fatalf("design file without auto:\n%s", b)
	}
	o := &runOptions{designFile: path, nrep: nrepFlag{n: 7}, datatype: "float64", runtimeType: "local", cache: "warm", procSync: "barrier", clockSync: "auto", out: dir, runID: "d"}
	exps, err := buildExperiments(o, 2)
	if err != nil {
		t.Fatal(err)
	}
	if exps[0].Stop == nil || exps[1].Stop != nil || exps[1].Nrep != 30 {
		t.Errorf("design rows: auto → %+v, 30 → %+v (nrep %d)", exps[0].Stop, exps[1].Stop, exps[1].Nrep)
	}
	// --nrep auto with a design: the auto row takes the run's rule, the row with a count stays fixed.
	o.nrep.auto = true
	o.adaptive.width = "4%"
	if exps, err = buildExperiments(o, 2); err != nil || exps[0].Stop == nil || exps[0].Stop.Width != 0.04 || exps[1].Stop != nil {
		t.Errorf("--nrep auto --ci-width 4%% with a design: %v, %+v", err, exps)
	}
}
