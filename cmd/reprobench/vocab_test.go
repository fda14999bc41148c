package main

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/reprobench/reprobench"
	"github.com/reprobench/reprobench/design"
	"github.com/reprobench/reprobench/factor"
	"github.com/reprobench/reprobench/mpi"
)

// TestRunSeedMatchesDesign: "design --seed S" followed by "run --design"
// and "run --seed S" with the same factors run the same experiments in the
// same order, in every mpirun.
func TestRunSeedMatchesDesign(t *testing.T) {
	path := filepath.Join(t.TempDir(), "d.csv")
	factors := []string{"--calls", "MPI_Bcast,MPI_Allreduce,pingpong", "--sizes", "1K,pow2:8..64", "--proc-sync", "barrier,window"}
	if _, e, err := runCmd(append([]string{"design", "-o", path, "--seed", "9", "--mpiruns", "3"}, factors...)...); err != nil {
		t.Fatal(err, e)
	}
	for m := range 3 {
		mpirun := []string{"--mpirun", string(rune('0' + m))}
		fd, od := runFlags(io.Discard)
		if err := parseFlags(fd, append([]string{"--design", path, "--seed", "123"}, mpirun...)); err != nil {
			t.Fatal(err)
		}
		fromDesign, err := buildExperiments(od, 2)
		if err != nil {
			t.Fatal(err)
		}
		ff, of := runFlags(io.Discard)
		if err := parseFlags(ff, append(append([]string{"--seed", "9"}, mpirun...), factors...)); err != nil {
			t.Fatal(err)
		}
		fromFlags, err := buildExperiments(of, 2)
		if err != nil {
			t.Fatal(err)
		}
		if len(fromDesign) != 3*5*2 || len(fromFlags) != len(fromDesign) {
			t.Fatalf("mpirun %d: %d experiments from the design, %d from the flags; want 30", m, len(fromDesign), len(fromFlags))
		}
		for i := range fromDesign {
			a, b := fromDesign[i], fromFlags[i]
			if a.Exp != b.Exp || a.Call != b.Call || a.MsizeBytes != b.MsizeBytes || a.Sync.Method != b.Sync.Method {
				t.Fatalf("mpirun %d position %d: design runs exp %d (%v, %d B, %v), run --seed exp %d (%v, %d B, %v)",
					m, i, a.Exp, a.Call, a.MsizeBytes, a.Sync.Method, b.Exp, b.Call, b.MsizeBytes, b.Sync.Method)
			}
		}
	}
}

// TestRunRefusesBadValues: values outside their documented bounds are
// refused before MPI starts, with the flag named, instead of being replaced
// by a default while the metadata records them.
func TestRunRefusesBadValues(t *testing.T) {
	for _, c := range []struct{ args []string }{
		{[]string{"--window", "0"}}, {[]string{"--window", "-1ms"}}, {[]string{"--window", "1h"}},
		{[]string{"--loop-reps", "0"}}, {[]string{"--late-tolerance", "-1s"}}, {[]string{"--cache-bytes", "-5"}},
		{[]string{"--window-max", "1h"}}, {[]string{"--window-batch", "0"}}, {[]string{"--cache-slots", "0"}},
		{[]string{"--nrep", "0"}}, {[]string{"--roundtime-k", "0"}}, {[]string{"--window", "1ms", "--window-max", "100us"}},
		{[]string{"--run-id", "a,b"}}, {[]string{"--run-id", `q"x`}}, {[]string{"--run-id", "../escaped"}},
		{[]string{"--noise-guard", "maybe"}}, //
	} {
		err := run(io.Discard, io.Discard, append([]string{"run", "--out", t.TempDir()}, c.args...))
		if !errors.Is(err, errUsage) || !strings.Contains(err.Error(), "--"+strings.TrimPrefix(c.args[len(c.args)-2], "--")) {
			t.Errorf("run %q: %v, want a usage error naming the flag", c.args, err)
		}
	}
}

// TestRenamedFlags: an old spelling gets an error naming the new one, in
// run, in design, and in the run flags launch passes through (checked
// before any mpirun starts, so nothing is created).
func TestRenamedFlags(t *testing.T) {
	for old, now := range renamedRunFlags {
		for _, cmd := range []string{"run", "design"} {
			err := run(io.Discard, io.Discard, []string{cmd, "--" + old, "8"})
			if !errors.Is(err, errUsage) || !strings.Contains(err.Error(), "renamed --"+now) {
				t.Errorf("%s --%s: %v, want an error naming --%s", cmd, old, err, now)
			}
		}
		dir := t.TempDir()
		err := run(io.Discard, io.Discard, []string{"launch", "--out", dir, "--mpiruns", "1", "--np", "2", "--launcher", "env NP={np}", "--", "--" + old, "8"})
		if !errors.Is(err, errUsage) || !strings.Contains(err.Error(), "renamed --"+now) {
			t.Errorf("launch -- --%s: %v, want an error naming --%s", old, err, now)
		}
		if left, _ := os.ReadDir(dir); len(left) != 0 {
			t.Errorf("launch -- --%s left %d files in --out", old, len(left))
		}
	}
}

// TestDesignValidatesAtDesignTime: a clock synchronization spec, a window
// and a size are checked when the design is written, not mid-campaign.
func TestDesignValidatesAtDesignTime(t *testing.T) {
	for _, args := range [][]string{
		{"--clock-sync", "bogus:x=1"}, {"--clock-sync", "hca3:nosuchkey=1"}, {"--clock-sync", "auto"},
		{"--window", "0"}, {"--window", "1h"}, {"--window", "1e-4"}, {"--sizes", "8-64"},
	} {
		if _, _, err := runCmd(append([]string{"design", "--seed", "1"}, args...)...); !errors.Is(err, errUsage) || !strings.Contains(err.Error(), args[0]) {
			t.Errorf("design %q: %v, want a usage error naming %s", args, err, args[0])
		}
	}
	out, e, err := runCmd("design", "--seed", "1", "--mpiruns", "1", "--window", "130us,1ms", "--proc-sync", "window", "--clock-sync", "hca3:fitpts=10,exchanges=5", "--clock-sync", "none")
	if err != nil {
		t.Fatal(err, e)
	}
	if !strings.Contains(out, ",0.00013,") || !strings.Contains(out, `"hca3:fitpts=10,exchanges=5"`) {
		t.Errorf("design output:\n%s", out)
	}
}

// TestDesignFlagsFromTable: every factor a design row sets has a design
// flag named by its table row, and a level given there reaches the
// design file's column as reprobench.DesignLevel writes it.
func TestDesignFlagsFromTable(t *testing.T) {
	vocab := reprobench.Vocabulary()
	for _, id := range factor.DesignColumns() {
		row := id.Row()
		var level string
		switch {
		case vocab.Levels[id] != nil:
			level = vocab.Levels[id][len(vocab.Levels[id])-1]
		case row.Kind == factor.KindText:
			level = "hca3:fitpts=10,exchanges=5" // with a comma: one level per flag
		case row.Kind == factor.KindSeconds:
			level = "250us"
		case row.Kind == factor.KindInt:
			level = strconv.FormatInt(max(row.Min, 2), 10)
		default:
			level = row.Levels[len(row.Levels)-1]
		}
		call := "MPI_Bcast"
		if row.Call {
			call = mpi.CallsTaking(mpi.FactorParam(id))[0].String()
		}
		want, err := reprobench.DesignLevel(id, level)
		if err != nil {
			t.Fatalf("%v: level %q: %v", id, level, err)
		}
		out, e, err := runCmd("design", "--seed", "1", "--mpiruns", "1", "--calls", call, "--"+row.Flag, level)
		if err != nil {
			t.Errorf("design --%s %s: %v\n%s", row.Flag, level, err, e)
			continue
		}
		d, err := design.Read(strings.NewReader(out), "out", designCLIVocabulary())
		if err != nil {
			t.Fatalf("design --%s %s: %v\n%s", row.Flag, level, err, out)
		}
		if got := d.Experiments[0].Factors.Cell(id); got != want {
			t.Errorf("design --%s %s: column %s holds %q, want %q", row.Flag, level, row.Name, got, want)
		}
	}
}
