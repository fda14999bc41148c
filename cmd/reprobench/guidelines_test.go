package main

import (
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/reprobench/reprobench/internal/mpirun"
)

func TestGuidelinesUsageErrors(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.txt")
	if err := os.WriteFile(bad, []byte("x MPI_Bcast(n) <= MPI_Nonsense(n)\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--table", bad, "--list"}, "unknown call"},
		{[]string{"--data"}, "--data needs raw data files"},
		{[]string{"--sizes", "12", "--out", dir}, "multiple of the 8-byte element"},
		{[]string{"--alpha", "1.5"}, "--alpha"},
		{[]string{"--datatype", "byte", "--out", dir}, "reduces"},
		{[]string{"a.csv"}, "need --data"},
	} {
		_, _, err := runCmd(append([]string{"guidelines"}, c.args...)...)
		if !errors.Is(err, errUsage) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("guidelines %v: %v, want a usage error with %q", c.args, err, c.want)
		}
	}
	out, _, err := runCmd("guidelines", "--list")
	if err != nil || strings.Count(out, "\n") < 11 || !strings.Contains(out, "MPI_Allgather(n) <= MPI_Alltoall(n); input=replicated") {
		t.Errorf("--list: %v\n%s", err, out)
	}
}

// TestGuidelinesUnderMPI runs the whole command under both libraries: it
// designs a small campaign, launches it (2 mpiruns of 2 ranks), decides
// and writes the JSON; then --data on the campaign's raw files must give
// the same decisions.
func TestGuidelinesUnderMPI(t *testing.T) {
	if testing.Short() {
		t.Skip("needs mpirun")
	}
	for _, f := range mpirun.Flavors(t) {
		t.Run(f.Name, func(t *testing.T) {
			bin := mpirun.BuildShared(t, f, ".", ".")
			dir := t.TempDir()
			launcher := strings.Join(f.Launcher, " ") + " -np {np}"
			js := filepath.Join(dir, "r.json")
			cmd := exec.Command(bin, "guidelines", "--np", "2", "--mpiruns", "2", "--nrep", "5", "--sizes", "8,1K",
				"--launcher", launcher, "--timeout", "3m", "--out", dir, "--run-id", "g", "--seed", "1", "--json", js,
				"--plot", filepath.Join(dir, "r.png"), "--", "--warmup", "2", "--clock-sync", "none")
			cmd.Env = append(os.Environ(), f.Env...)
			timer := time.AfterFunc(mpirun.Deadline(5*time.Minute), func() { _ = cmd.Process.Kill() })
			out, err := cmd.CombinedOutput()
			timer.Stop()
			if err != nil {
				t.Fatalf("%v\n%s", err, out)
			}
			for _, line := range strings.Split(string(out), "\n") {
				if n := utf8.RuneCountInString(line); n > 120 && !strings.HasPrefix(line, "launch:") {
					t.Errorf("line of %d > 120 characters: %q", n, line)
				}
			}
			for _, want := range []string{"scan-exscan-reduce_local", "barrier-allreduce", "violation(s) in total", "deciding needs ≥"} {
				if !strings.Contains(string(out), want) {
					t.Errorf("output lacks %q:\n%s", want, out)
				}
			}
			var rep struct {
				Schema   string `json:"schema"`
				Contexts []struct {
					Tests     int `json:"tests"`
					Decisions []struct {
						Guideline string   `json:"guideline"`
						Mpiruns   int      `json:"mpiruns"`
						P         *float64 `json:"p"`
					} `json:"decisions"`
				} `json:"contexts"`
			}
			b, err := os.ReadFile(js)
			if err != nil {
				t.Fatal(err)
			}
			if err := json.Unmarshal(b, &rep); err != nil {
				t.Fatal(err)
			}
			// 10 guidelines at 2 sizes and the barrier once.
			if rep.Schema != "reprobench-guidelines/1" || len(rep.Contexts) != 1 || len(rep.Contexts[0].Decisions) != 21 {
				t.Fatalf("JSON: %s", b)
			}
			for _, d := range rep.Contexts[0].Decisions {
				if d.Mpiruns != 2 {
					t.Errorf("%s: %d paired mpiruns, want 2", d.Guideline, d.Mpiruns)
				}
			}
			if _, err := os.Stat(filepath.Join(dir, "r.png")); err != nil {
				t.Error(err)
			}
			raw, _ := filepath.Glob(filepath.Join(dir, "g-mpirun*.csv"))
			js2 := filepath.Join(dir, "r2.json")
			if _, _, err := runCmd(append([]string{"guidelines", "--data", "--sizes", "8,1K", "--json", js2}, raw...)...); err != nil {
				t.Fatal(err)
			}
			b2, _ := os.ReadFile(js2)
			if string(b2) != string(b) {
				t.Errorf("--data on the raw files decides differently:\n%s\nvs\n%s", b2, b)
			}
		})
	}
}
