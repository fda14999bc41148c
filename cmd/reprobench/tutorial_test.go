package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/reprobench/reprobench/analysis/synth"
	"github.com/reprobench/reprobench/internal/mpirun"
)

// tutorialCommands returns the commands of README.md's tutorial, in order:
// the lines of its first sh block that are not comments, with "\"
// continuations joined. Comments at the end of a line stay (sh drops them).
func tutorialCommands(t *testing.T) []string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, sec, ok := strings.Cut(string(b), "## A five-minute tutorial")
	if !ok {
		t.Fatal("README.md has no section \"A five-minute tutorial\"")
	}
	_, block, ok := strings.Cut(sec, "```sh\n")
	if !ok {
		t.Fatal("the tutorial has no ```sh block")
	}
	block, _, _ = strings.Cut(block, "```")
	var cmds []string
	cur := ""
	for _, l := range strings.Split(block, "\n") {
		if cur == "" && (strings.TrimSpace(l) == "" || strings.HasPrefix(strings.TrimSpace(l), "#")) {
			continue
		}
		if s, ok := strings.CutSuffix(l, "\\"); ok {
			cur += s
			continue
		}
		cmds = append(cmds, strings.TrimSpace(cur+l))
		cur = ""
	}
	if len(cmds) < 8 {
		t.Fatalf("only %d commands in the tutorial:\n%s", len(cmds), block)
	}
	return cmds
}

// tutorialLine returns the one tutorial command that starts with prefix.
func tutorialLine(t *testing.T, cmds []string, prefix string) string {
	t.Helper()
	i := slices.IndexFunc(cmds, func(c string) bool { return strings.HasPrefix(c, prefix) })
	if i < 0 {
		t.Fatalf("no tutorial command starts with %q", prefix)
	}
	return cmds[i]
}

// tutorialArgs splits a tutorial command "./rb CMD ARGS" into arguments for
// run, expanding globs relative to dir as sh would (no quotes in it).
func tutorialArgs(t *testing.T, cmd, dir string) []string {
	t.Helper()
	f := strings.Fields(cmd)
	if f[0] != "./rb" {
		t.Fatalf("%q does not start with ./rb", cmd)
	}
	var args []string
	for _, a := range f[1:] {
		if strings.ContainsAny(a, "*?[") {
			m, err := filepath.Glob(filepath.Join(dir, a))
			if err != nil || len(m) == 0 {
				t.Fatalf("%s matches nothing in %s", a, dir)
			}
			args = append(args, m...)
			continue
		}
		if strings.HasPrefix(a, "tutorial/") {
			a = filepath.Join(dir, a)
		}
		args = append(args, a)
	}
	return args
}

// TestTutorialStep6 runs the tutorial's step 6 (compare) and its compare
// plot, verbatim from README.md, on data laid out as the tutorial's steps 3
// and 4 write it: two campaigns of one design, labelled lib=openmpi and
// lib=mpich. Every group must match its counterpart (a mismatch once
// found no group in common) and the header must say that lib names the sides.
func TestTutorialStep6(t *testing.T) {
	cmds := tutorialCommands(t)
	dir := t.TempDir()
	for i, lib := range []string{"openmpi", "mpich"} {
		sub := filepath.Join(dir, "tutorial", map[string]string{"openmpi": "ompi", "mpich": "mpich"}[lib])
		if err := os.MkdirAll(sub, 0o755); err != nil {
			t.Fatal(err)
		}
		var b bytes.Buffer
		if err := synth.Write(&b, synth.Config{RunID: "20261123T000000Z", Mpiruns: 5, Reps: 40,
			Calls: []string{"MPI_Bcast", "MPI_Allreduce"}, Msizes: []int{8, 1024, 32768}, Np: 2,
			Label: "lib", LabelValues: []string{lib}, Factors: []float64{1 + 0.3*float64(i)},
			MpirunSD: 0.05, NoiseSD: 0.1, Seed: uint64(10 * i)}); err != nil {
			t.Fatal(err)
		}
		// One file per mpirun, as launch writes them.
		lines := strings.SplitAfter(b.String(), "\n")
		files := map[string]*strings.Builder{}
		for _, l := range lines[1:] {
			if l == "" {
				continue
			}
			m := strings.Split(l, ",")[1]
			if files[m] == nil {
				files[m] = &strings.Builder{}
				files[m].WriteString(lines[0])
			}
			files[m].WriteString(l)
		}
		if len(files) != 5 {
			t.Fatalf("%d mpiruns in the synthetic data, want 5", len(files))
		}
		for m, fb := range files {
			f := filepath.Join(sub, "20261123T000000Z-mpirun00"+m+".csv")
			if err := os.WriteFile(f, []byte(fb.String()), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	var out, errb bytes.Buffer
	step6 := tutorialLine(t, cmds, "./rb compare ")
	if err := run(&out, &errb, tutorialArgs(t, step6, dir)); err != nil {
		t.Fatalf("%s: %v\n%s", step6, err, errb.String())
	}
	text := out.String()
	rows := 0
	for _, l := range strings.Split(text, "\n") {
		if strings.HasPrefix(l, "MPI_") {
			rows++
		}
	}
	if rows != 6 || strings.Contains(errb.String(), "only in") || !strings.Contains(text, "label lib names the sides") {
		t.Errorf("%s: %d rows (want 6), stderr %q:\n%s", step6, rows, errb.String(), text)
	}
	plotCmd := tutorialLine(t, cmds, "./rb plot --kind compare ")
	if err := run(&out, &errb, tutorialArgs(t, plotCmd, dir)); err != nil {
		t.Errorf("%s: %v", plotCmd, err)
	}
}

// TestTutorial runs every command of README.md's tutorial twice in a row,
// under real Open MPI and MPICH, in a fresh copy of the repository (the
// working tree as committed to a new git repository), and checks that each
// succeeds both times and that git status is clean afterwards. On the
// 2-vCPU development machine it took 289 s at load 10-12; at load 22 one
// MPICH mpirun of the tutorial took 139 s instead of 4-7 s (MPICH's busy
// polling suffers most from load), so each command may take 15 min and
// go test needs a -timeout to match.
func TestTutorial(t *testing.T) {
	if testing.Short() {
		t.Skip("integration test: needs Open MPI and MPICH")
	}
	fs := mpirun.Flavors(t)
	if len(fs) < 2 {
		if os.Getenv("RB_REQUIRE_MPI") == "1" {
			t.Fatal("RB_REQUIRE_MPI=1: the tutorial needs Open MPI and MPICH")
		}
		t.Skip("the tutorial needs Open MPI and MPICH")
	}
	cmds := tutorialCommands(t)
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	repo := filepath.Join(t.TempDir(), "repo")
	// A fresh clone of the working tree: git archive of a stash commit
	// (HEAD plus the changes to tracked files; new files must be committed
	// or staged), committed anew so that git status starts clean.
	stash, _ := exec.Command("git", "-C", root, "stash", "create").Output()
	rev := strings.TrimSpace(string(stash))
	if rev == "" {
		rev = "HEAD"
	}
	sh := func(dir string, timeout time.Duration, env []string, script string) (string, error) {
		ctx, cancel := context.WithTimeout(context.Background(), timeout)
		defer cancel()
		cmd := exec.CommandContext(ctx, "sh", "-c", script)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), env...)
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
		cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
		cmd.WaitDelay = 5 * time.Second
		b, err := cmd.CombinedOutput()
		return string(b), err
	}
	if out, err := sh(root, time.Minute, nil, "mkdir -p "+repo+" && git archive "+rev+" | tar -x -C "+repo+
		" && cd "+repo+" && git init -q && git add -A && git -c user.email=t@t -c user.name=t commit -qm tutorial"); err != nil {
		t.Fatalf("copying the repository: %v\n%s", err, out)
	}
	env := []string{"OMPI_MCA_btl_vader_single_copy_mechanism=none"}
	start := time.Now()
	for _, c := range cmds {
		for round := 1; round <= 2; round++ {
			t0 := time.Now()
			limit := 15 * time.Minute
			if dl, ok := t.Deadline(); ok {
				// Stop the command (its whole process group) before go
				// test's own timeout panics and leaves it running.
				if left := time.Until(dl) - 15*time.Second; left < limit {
					limit = max(left, time.Second)
				}
			}
			out, err := sh(repo, limit, env, c)
			t.Logf("round %d, %.1f s: %s", round, time.Since(t0).Seconds(), c)
			if err != nil {
				t.Fatalf("round %d: %s: %v\n%s", round, c, err, out)
			}
			if strings.HasPrefix(c, "./rb analyze ") || strings.HasPrefix(c, "./rb compare ") {
				for _, l := range strings.Split(out, "\n") {
					if n := utf8.RuneCountInString(l); n > 120 {
						t.Errorf("%s: a line of %d characters:\n%s", c, n, l)
					}
				}
			}
			if strings.HasPrefix(c, "./rb compare ") && (strings.Contains(out, "only in") || !strings.Contains(out, "label lib names the sides")) {
				t.Errorf("round %d: %s: groups not matched across the libraries:\n%s", round, c, out)
			}
			if strings.HasPrefix(c, "export ") {
				for _, kv := range strings.Fields(strings.TrimPrefix(c, "export "))[0:] {
					if kv == "#" || strings.HasPrefix(kv, "#") {
						break
					}
					env = append(env, kv)
				}
			}
		}
	}
	t.Logf("tutorial run twice in %.0f s", time.Since(start).Seconds())
	out, err := sh(repo, time.Minute, nil, "git status --porcelain")
	if err != nil || strings.TrimSpace(out) != "" {
		t.Errorf("git status after the tutorial: %v\n%s", err, out)
	}
}
