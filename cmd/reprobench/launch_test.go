package main

import (
	"bytes"
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

	"github.com/reprobench/reprobench"
	"github.com/reprobench/reprobench/campaign"
	"github.com/reprobench/reprobench/design"
	"github.com/reprobench/reprobench/rawdata"
)

func runCmd(args ...string) (stdout, stderr string, err error) {
	var o, e bytes.Buffer
	err = run(&o, &e, args)
	return o.String(), e.String(), err
}

func TestDesignCommandDeterministic(t *testing.T) {
	args := []string{"design", "--seed", "3", "--mpiruns", "2", "--calls", "bcast,MPI_Allreduce", "--sizes", "pow2:8..64", "--factor", "impl=a,b"}
	out1, errs, err := runCmd(args...)
	if err != nil {
		t.Fatal(err, errs)
	}
	if !strings.Contains(errs, "seed 3") {
		t.Errorf("seed not printed: %q", errs)
	}
	out2, _, _ := runCmd(args...)
	if out1 != out2 {
		t.Error("same seed, different design files")
	}
	args[2] = "4"
	out3, _, _ := runCmd(args...)
	if out1 == out3 {
		t.Error("seeds 3 and 4 gave the same file")
	}
	d, err := design.Read(strings.NewReader(out1), "out", designCLIVocabulary())
	if err != nil {
		t.Fatal(err)
	}
	if !d.HasSeed || d.Seed != 3 || len(d.Experiments) != 2*4*2*2 || !slices.Equal(d.LabelKeys(), []string{"impl"}) {
		t.Errorf("seed %d, %d experiments, labels %v", d.Seed, len(d.Experiments), d.LabelKeys())
	}
	if d.Experiments[0].Call != "MPI_Bcast" && d.Experiments[0].Call != "MPI_Allreduce" {
		t.Errorf("calls not canonical: %q", d.Experiments[0].Call)
	}
}

func TestDesignCommandFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "d.csv")
	if _, e, err := runCmd("design", "-o", path, "--seed", "1", "--mpiruns", "3", "--sizes", "logu:8..1M:5:8", "--nrep", "10,20", "--replicates", "2"); err != nil {
		t.Fatal(err, e)
	}
	d, err := design.ReadFile(path, designCLIVocabulary())
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Experiments) != 3*5*2*2 {
		t.Errorf("%d experiments", len(d.Experiments))
	}
	for _, e := range d.Experiments {
		if e.MsizeBytes%8 != 0 || e.MsizeBytes < 8 || e.MsizeBytes > 1<<20 {
			t.Errorf("size %d", e.MsizeBytes)
		}
	}
	if _, _, err := runCmd("design", "-o", path, "--seed", "1"); err == nil {
		t.Error("existing design file overwritten")
	}
}

func TestDesignCommandErrors(t *testing.T) {
	for _, args := range [][]string{
		{"--calls", "MPI_Nope"},
		{"--sizes", "0"},
		{"--sizes", "logu:1..10"},
		{"--sizes", "12", "--datatype", "float64"},
		{"--calls", "MPI_Allreduce", "--datatype", "byte"},
		{"--proc-sync", "sometimes"},
		{"--factor", "novalue"},
		{"--factor", "bad key=1"},
		{"--seed", "-1"},
		{"--mpiruns", "0"},
		{"--nrep", "0"},
		{"extra"},
	} {
		if _, _, err := runCmd(append([]string{"design", "--seed", "1"}, args...)...); !errors.Is(err, errUsage) {
			t.Errorf("design %q: err %v, want a usage error", args, err)
		}
	}
}

func TestLaunchUsageErrors(t *testing.T) {
	dir := t.TempDir()
	for _, args := range [][]string{
		{"--np", "2"},
		{"--mpiruns", "2"},
		{"--mpiruns", "2", "--np", "2", "positional"},
		{"--mpiruns", "2", "--np", "2", "--", "--out", "x"},
		{"--mpiruns", "2", "--np", "2", "--launcher", "mpirun 'unterminated"},
		{"--mpiruns", "2", "--np", "2", "--run-id", "a/b"},
		{"--mpiruns", "100000000", "--np", "2"}, // refused, not built
		{"--mpiruns", "10001", "--np", "2"},
	} {
		if _, _, err := runCmd(append([]string{"launch", "--out", dir}, args...)...); !errors.Is(err, errUsage) {
			t.Errorf("launch %q: err %v, want a usage error", args, err)
		}
	}
	if _, _, err := runCmd("launch", "--resume", "--out", dir); err == nil || !strings.Contains(err.Error(), "no campaign manifest") {
		t.Errorf("resume without a manifest: %v", err)
	}
}

// TestLaunchCommandFakeRun runs a campaign of a design with the fake run
// (campaign/internal/fakerun) and no MPI ("env" as the launcher).
func TestLaunchCommandFakeRun(t *testing.T) {
	tmp := t.TempDir()
	fake := filepath.Join(tmp, "fakerun")
	if out, err := exec.Command("go", "build", "-o", fake, "../../campaign/internal/fakerun").CombinedOutput(); err != nil {
		t.Fatalf("building fakerun: %v\n%s", err, out)
	}
	dfile := filepath.Join(tmp, "d.csv")
	if _, e, err := runCmd("design", "-o", dfile, "--seed", "8", "--mpiruns", "2", "--calls", "MPI_Bcast", "--np", "2"); err != nil {
		t.Fatal(err, e)
	}
	out := filepath.Join(tmp, "out")
	_, errs, err := runCmd("launch", "--design", dfile, "--launcher", "env NP={np}", "--exe", fake, "--out", out, "--run-id", "c1", "--", "--sleep", "10ms")
	if err != nil {
		t.Fatalf("%v\n%s", err, errs)
	}
	m, err := campaign.ReadManifest(campaign.ManifestPath(out, "c1"))
	if err != nil {
		t.Fatal(err)
	}
	// From the design: 2 mpiruns, np 2, seed 8.
	if m.Mpiruns != 2 || m.Np != 2 || m.Seed != 8 || m.DesignSHA256 == "" {
		t.Errorf("manifest %+v", m)
	}
	copied := filepath.Join(m.Dir, "c1-design.csv")
	if m.DesignFile != copied || !slices.Contains(m.Runs[1].Argv, copied) {
		t.Errorf("design %s, argv %q", m.DesignFile, m.Runs[1].Argv)
	}
	a, _ := os.ReadFile(dfile)
	b, _ := os.ReadFile(copied)
	if !bytes.Equal(a, b) {
		t.Error("the design copy differs")
	}
	if !strings.Contains(errs, "campaign: mpirun 1 ok") || !strings.Contains(errs, "2 of 2 mpiruns complete") {
		t.Errorf("stderr:\n%s", errs)
	}
	if in := m.Incomplete(); len(in) != 0 {
		t.Errorf("incomplete %v", in)
	}
	// The same run id again: refused; resume: nothing to do.
	if _, _, err := runCmd("launch", "--design", dfile, "--launcher", "env NP={np}", "--exe", fake, "--out", out, "--run-id", "c1"); err == nil {
		t.Error("second launch of the same run id accepted")
	}
	if _, errs, err := runCmd("launch", "--resume", "--out", out); err != nil || !strings.Contains(errs, "2 of 2 mpiruns complete") {
		t.Errorf("resume: %v\n%s", err, errs)
	}
	// The original command with --resume added is accepted ...
	orig := []string{"launch", "--design", dfile, "--launcher", "env NP={np}", "--exe", fake, "--out", out, "--run-id", "c1", "--", "--sleep", "10ms"}
	if _, errs, err := runCmd(append([]string{orig[0], "--resume"}, orig[1:]...)...); err != nil || !strings.Contains(errs, "2 of 2 mpiruns complete") {
		t.Errorf("resume with the original command: %v\n%s", err, errs)
	}
	// ... and a real change is refused, by name.
	changed := slices.Clone(orig)
	changed[len(changed)-1] = "20ms"
	changed = append(changed[:1], append([]string{"--resume", "--np", "3"}, changed[1:]...)...)
	if _, _, err := runCmd(changed...); !errors.Is(err, errUsage) || !strings.Contains(err.Error(), "--np 3 (campaign: 2)") || !strings.Contains(err.Error(), "--sleep 20ms") || strings.Contains(err.Error(), "--design") {
		t.Errorf("resume with changes: %v", err)
	}
}

// TestLaunchNotes: the notes and warnings the runs wrote to their stderr
// logs are shown on launch's console, each once per campaign.
func TestLaunchNotes(t *testing.T) {
	dir := t.TempDir()
	m := &campaign.Manifest{RunID: "n", Dir: dir}
	for i := range 3 {
		log := filepath.Join(dir, "e"+strconv.Itoa(i))
		text := "reprobench run: experiment 1/6 done\nreprobench run: note: Open MPI runs its event loop\n"
		if i == 2 {
			text += "reprobench run: warning: something else\n"
		}
		if err := os.WriteFile(log, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		m.Runs = append(m.Runs, campaign.RunRecord{Mpirun: i, Attempts: []campaign.Attempt{{StderrLog: log}}})
	}
	var b bytes.Buffer
	launchNotes(&b, m)
	out := b.String()
	if strings.Count(out, "event loop") != 1 || strings.Count(out, "something else") != 1 || strings.Contains(out, "experiment 1/6") {
		t.Errorf("notes:\n%s", out)
	}
}

// Launch checks the run flags (and the design) for --np
// processes before it starts any mpirun; bad ones are one usage error, and
// no mpirun, manifest or output is made. Good ones start the campaign.
func TestLaunchChecksRunFlagsFirst(t *testing.T) {
	dir := t.TempDir()
	marker := filepath.Join(dir, "launcher-ran")
	launcher := "sh -c 'touch " + marker + "; exit 1'"
	dfile := filepath.Join(dir, "d.csv")
	if _, e, err := runCmd("design", "-o", dfile, "--seed", "8", "--mpiruns", "2", "--calls", "MPI_Bcast", "--np", "2"); err != nil {
		t.Fatal(err, e)
	}
	for i, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--", "--bogus-flag"}, "bogus-flag"},
		{[]string{"--", "--nrep", "0"}, "--nrep"},
		{[]string{"--", "--calls", "MPI_Bogus"}, "MPI_Bogus"},
		{[]string{"--", "--clock-sync", "bogus:x=1"}, "--clock-sync"},
		{[]string{"--", "--clock", "sundial"}, "sundial"},
		{[]string{"--", "--calls", "MPI_Bcast", "--root", "5"}, "root"}, // root 5 of 2 processes
		{[]string{"--", "-h"}, "help"},
		{[]string{"--design", dfile, "--", "--root", "3"}, "root"},
	} {
		runID := fmt.Sprintf("bad%d", i)
		args := append([]string{"launch", "--np", "2", "--launcher", launcher, "--out", dir, "--run-id", runID}, tc.args...)
		if tc.args[0] != "--design" {
			args = append(args[:1], append([]string{"--mpiruns", "3"}, args[1:]...)...)
		}
		_, errs, err := runCmd(args...)
		if !errors.Is(err, errUsage) || !strings.Contains(err.Error(), "no mpirun was started") || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: err %v, want a usage error naming %q\n%s", tc.args, err, tc.want, errs)
		}
		if _, err := os.Stat(campaign.ManifestPath(dir, runID)); err == nil {
			t.Errorf("%q: a manifest was written", tc.args)
		}
		if _, err := os.Stat(marker); err == nil {
			t.Fatalf("%q: the launcher was started", tc.args)
		}
	}
	// Good flags pass the check and the launcher runs (and fails: sh exit 1).
	_, errs, err := runCmd("launch", "--mpiruns", "1", "--np", "2", "--launcher", launcher, "--out", dir, "--run-id", "good", "--", "--calls", "MPI_Bcast", "--nrep", "5")
	if !errors.Is(err, campaign.ErrIncomplete) {
		t.Fatalf("good flags: %v\n%s", err, errs)
	}
	if _, err := os.Stat(marker); err != nil {
		t.Errorf("good flags: the launcher did not run: %v", err)
	}
}

// TestLaunchResumeBatch: --resume with the original --batch (and --array)
// is accepted, though the manifest holds the template launch built from
// it; another batch command or mode is refused by name.
func TestLaunchResumeBatch(t *testing.T) {
	dir := t.TempDir()
	for _, array := range []bool{false, true} {
		m := &campaign.Manifest{RunID: "b", Dir: dir, Batch: launchBatch([]string{"sbatch", "-p", "x"}, dir, "b", array), Array: array}
		set := map[string]bool{"batch": true, "array": true}
		if diff := launchResumeChanges(m, set, 0, 0, "", "sbatch -p x", array, "", "", "", nil); len(diff) != 0 {
			t.Errorf("array=%v: the original --batch refused: %q", array, diff)
		}
		if diff := launchResumeChanges(m, set, 0, 0, "", "sbatch", array, "", "", "", nil); len(diff) != 1 || !strings.Contains(diff[0], "--batch") {
			t.Errorf("array=%v: another --batch: %q", array, diff)
		}
		if diff := launchResumeChanges(m, set, 0, 0, "", "sbatch -p x", !array, "", "", "", nil); !slices.ContainsFunc(diff, func(d string) bool { return strings.HasPrefix(d, "--array") }) {
			t.Errorf("array=%v: another --array: %q", array, diff)
		}
	}
	if _, _, err := runCmd("launch", "--out", dir, "--mpiruns", "2", "--np", "2", "--array"); !errors.Is(err, errUsage) || !strings.Contains(err.Error(), "--array needs --batch") {
		t.Errorf("--array without --batch: %v", err)
	}
}

// TestLaunchSim: launch --sim runs each mpirun as "run --sim" on a world of
// --np simulated ranks, with no launcher, each mpirun with its own world
// (drawn from its seed); its raw data are marked simulated.
func TestLaunchSim(t *testing.T) {
	for _, args := range [][]string{
		{"--launcher", "mpirun -np {np}"},
		{"--batch", "sbatch"},
		{"--", "--sim-ranks", "4"},
		{"--", "--sim"},
	} {
		a := append([]string{"launch", "--sim", "--mpiruns", "2", "--np", "8", "--out", t.TempDir()}, args...)
		if _, _, err := runCmd(a...); !errors.Is(err, errUsage) {
			t.Errorf("%q: %v, want a usage error", a, err)
		}
	}
	tmp := t.TempDir()
	bin := filepath.Join(tmp, "reprobench")
	if out, err := exec.Command("go", "build", "-tags", "nompi", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("building reprobench: %v\n%s", err, out)
	}
	out := filepath.Join(tmp, "out")
	cmd := exec.Command(bin, "launch", "--sim", "--mpiruns", "2", "--np", "8", "--out", out, "--run-id", "s", "--seed", "5",
		"--", "--calls", "MPI_Allreduce", "--sizes", "8", "--nrep", "10", "--proc-sync", "barrier", "--sim-latency-us", "2")
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%v\n%s", err, b)
	}
	m, err := campaign.ReadManifest(campaign.ManifestPath(out, "s"))
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Launcher) != 0 || !slices.Equal(m.Program[1:], []string{"run", "--sim", "--sim-ranks", "8"}) || len(m.Incomplete()) != 0 {
		t.Errorf("manifest: launcher %q, program %q, incomplete %v", m.Launcher, m.Program, m.Incomplete())
	}
	seeds := map[uint64]bool{}
	for i := range 2 {
		meta, err := rawdata.ReadMetadata(filepath.Join(out, fmt.Sprintf("s-mpirun%03d.json", i)))
		if err != nil {
			t.Fatal(err)
		}
		var sm reprobench.SimModel
		if !meta.Simulated() || meta.Np != 8 || json.Unmarshal(meta.Simulation, &sm) != nil || sm.Ranks != 8 {
			t.Errorf("mpirun %d: simulated %v, np %d, model %s", i, meta.Simulated(), meta.Np, meta.Simulation)
		}
		seeds[sm.Seed] = true
	}
	if len(seeds) != 2 {
		t.Errorf("world seeds %v: the mpiruns share one world", seeds)
	}
}
