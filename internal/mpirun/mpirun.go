package mpirun

import (
	"bytes"
	"context"
	"crypto/sha256"
	_ "embed"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"
)

// Flavor is one MPI library and how to build for and launch with it.
type Flavor struct {
	Name     string   // "openmpi" or "mpich"
	Tags     string   // go build -tags value
	Launcher []string // launcher command, before "-np N"
	Env      []string // extra environment for the launcher
	CC       string   // the library's C compiler wrapper (mpicc), "" if not found
	// Note says what is missing for this flavor, "" when nothing is (Flavors
	// logs it).
	Note    string
	oversub []string // arguments for more ranks than cores (see the package doc)
}

// Args returns the launcher command line for np ranks running prog.
func (f Flavor) Args(np int, prog string, args ...string) []string {
	cmd := append([]string{}, f.Launcher...)
	if np > runtime.NumCPU() {
		cmd = append(cmd, f.oversub...)
	}
	cmd = append(cmd, "-np", fmt.Sprint(np), prog)
	return append(cmd, args...)
}

// OpenMPIEnv is the environment Open MPI needs on these machines: running
// as root is allowed, and the slow CMA single-copy mechanism is disabled.
var OpenMPIEnv = []string{
	"OMPI_ALLOW_RUN_AS_ROOT=1",
	"OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1",
	"OMPI_MCA_btl_vader_single_copy_mechanism=none",
}

func pkgConfig(mod string) bool {
	return exec.Command("pkg-config", "--exists", mod).Run() == nil
}

func find(names ...string) string {
	for _, n := range names {
		if p, err := exec.LookPath(n); err == nil {
			return p
		}
	}
	return ""
}

// Available returns the flavors installed on this machine, in the order
// Open MPI, MPICH, filtered by RB_MPI_FLAVORS when set.
func Available() []Flavor {
	var fs []Flavor
	if l := find("mpirun.openmpi", "orterun"); l != "" && pkgConfig("mpi") {
		fs = append(fs, Flavor{Name: "openmpi", Launcher: []string{l}, Env: OpenMPIEnv, CC: find("mpicc.openmpi"),
			oversub: []string{"--oversubscribe"}})
	}
	if l := find("mpiexec.mpich", "mpiexec.hydra"); l != "" && pkgConfig("mpich") {
		f := Flavor{Name: "mpich", Tags: "mpich", Launcher: []string{l}, CC: find("mpicc.mpich")}
		if so, err := yieldShim(); err == nil {
			f.oversub = []string{"-genv", "LD_PRELOAD", so}
		} else {
			f.Note = "oversubscribed MPICH ranks busy-poll (slowly): " + err.Error()
		}
		fs = append(fs, f)
	}
	if only := os.Getenv("RB_MPI_FLAVORS"); only != "" {
		var keep []Flavor
		for _, f := range fs {
			if strings.Contains(","+only+",", ","+f.Name+",") {
				keep = append(keep, f)
			}
		}
		fs = keep
	}
	return fs
}

// Flavors returns the available flavors for a test. With none installed it
// skips the test, or fails it when RB_REQUIRE_MPI=1. With RB_REQUIRE_MPI=1
// both Open MPI and MPICH must be present unless RB_MPI_FLAVORS narrows it.
func Flavors(t testing.TB) []Flavor {
	t.Helper()
	fs := Available()
	required := os.Getenv("RB_REQUIRE_MPI") == "1"
	if required && os.Getenv("RB_MPI_FLAVORS") == "" && len(fs) < 2 {
		t.Fatalf("RB_REQUIRE_MPI=1 but found only %d MPI libraries (%v); run make setup", len(fs), names(fs))
	}
	for _, f := range fs {
		if f.Note != "" {
			t.Logf("%s: %s", f.Name, f.Note)
		}
	}
	if len(fs) == 0 {
		if required {
			t.Fatal("RB_REQUIRE_MPI=1 but no MPI library found; run make setup")
		}
		t.Skip("no MPI library installed (Open MPI: libopenmpi-dev openmpi-bin; MPICH: libmpich-dev mpich); set RB_REQUIRE_MPI=1 to fail instead")
	}
	return fs
}

func names(fs []Flavor) []string {
	var n []string
	for _, f := range fs {
		n = append(n, f.Name)
	}
	return n
}

// Build compiles the Go package pkg (an import path or ./relative path
// resolved from dir) for flavor f into a temporary directory and returns
// the binary's path.
func Build(t testing.TB, f Flavor, dir, pkg string) string {
	t.Helper()
	out := filepath.Join(t.TempDir(), filepath.Base(pkg)+"-"+f.Name)
	build(t, f, dir, pkg, out)
	return out
}

func build(t testing.TB, f Flavor, dir, pkg, out string) {
	t.Helper()
	args := []string{"build", "-o", out}
	if f.Tags != "" {
		args = append(args, "-tags", f.Tags)
	}
	cmd := exec.Command("go", append(args, pkg)...)
	cmd.Dir = dir
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build %s for %s: %v\n%s", pkg, f.Name, err, b)
	}
}

//go:embed yieldshim/yield.c
var yieldSource []byte

// yieldShim returns the path of the MPICH yield shim, building it on first
// use into the user's cache directory under a name from its source's hash
// (so one build serves every test binary and a changed source rebuilds).
var yieldShim = sync.OnceValues(func() (string, error) {
	cache, err := os.UserCacheDir()
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256(yieldSource)
	dir := filepath.Join(cache, "reprobench")
	so := filepath.Join(dir, fmt.Sprintf("mpich-yield-%x.so", sum[:6]))
	if _, err := os.Stat(so); err == nil {
		return so, nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	cc := find("cc", "gcc")
	if cc == "" {
		return "", fmt.Errorf("no C compiler (cc) for %s", "yieldshim/yield.c")
	}
	src, err := os.CreateTemp(dir, "mpich-yield-*.c")
	if err != nil {
		return "", err
	}
	defer os.Remove(src.Name())
	if _, err := src.Write(yieldSource); err != nil {
		src.Close()
		return "", err
	}
	src.Close()
	tmp := src.Name() + ".so"
	defer os.Remove(tmp)
	if out, err := exec.Command(cc, "-shared", "-fPIC", "-O2", "-o", tmp, src.Name(), "-ldl").CombinedOutput(); err != nil {
		return "", fmt.Errorf("%s yieldshim/yield.c: %v: %s", cc, err, out)
	}
	return so, os.Rename(tmp, so) // atomic: a concurrent build renames the same content
})

var shared struct {
	sync.Mutex
	dir  string
	bins map[string]string
}

// BuildShared is Build for the tests of one test binary that launch the
// same program: the first call for a flavor, dir and pkg builds it, later
// ones return the same binary (a build of cmd/reprobench takes about a
// second even with a warm cache, and a package's tests asked for it 14
// times). The binaries live until RemoveBuilds, which the package's
// TestMain calls after m.Run.
func BuildShared(t testing.TB, f Flavor, dir, pkg string) string {
	t.Helper()
	abs, err := filepath.Abs(dir)
	if err != nil {
		t.Fatal(err)
	}
	key := f.Name + "\x00" + abs + "\x00" + pkg
	shared.Lock()
	defer shared.Unlock()
	if bin, ok := shared.bins[key]; ok {
		return bin
	}
	if shared.dir == "" {
		if shared.dir, err = os.MkdirTemp("", "rbbuild"); err != nil {
			t.Fatal(err)
		}
		shared.bins = map[string]string{}
	}
	out := filepath.Join(shared.dir, fmt.Sprintf("%d-%s-%s", len(shared.bins), filepath.Base(pkg), f.Name))
	build(t, f, dir, pkg, out)
	shared.bins[key] = out
	return out
}

// RemoveBuilds removes the binaries of BuildShared.
func RemoveBuilds() error {
	shared.Lock()
	defer shared.Unlock()
	if shared.dir == "" {
		return nil
	}
	err := os.RemoveAll(shared.dir)
	shared.dir, shared.bins = "", nil
	return err
}

// Result is the outcome of one launch.
type Result struct {
	Stdout, Stderr string
	Err            error // nil when every rank exited with status 0
	TimedOut       bool
	Timeout        time.Duration // the deadline applied: Run's timeout stretched by TimeoutScale
}

// Run launches prog with np ranks under flavor f, killing the whole process
// group after timeout stretched by TimeoutScale (a deadline against a hang,
// see Deadline).
func Run(f Flavor, np int, timeout time.Duration, env []string, prog string, args ...string) Result {
	d := Deadline(timeout)
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	argv := f.Args(np, prog, args...)
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Env = append(append(os.Environ(), f.Env...), env...)
	setProcessGroup(cmd)
	var so, se bytes.Buffer
	cmd.Stdout, cmd.Stderr = &so, &se
	err := cmd.Run()
	return Result{Stdout: so.String(), Stderr: se.String(), Err: err, TimedOut: ctx.Err() != nil, Timeout: d}
}

// MustRun is Run that fails the test when the launch fails or times out.
func MustRun(t testing.TB, f Flavor, np int, timeout time.Duration, env []string, prog string, args ...string) string {
	t.Helper()
	r := Run(f, np, timeout, env, prog, args...)
	if r.TimedOut {
		t.Fatalf("%s -np %d %s: timed out after %v (%v stretched by the load; see Deadline)\nstdout:\n%s\nstderr:\n%s", f.Name, np, filepath.Base(prog), r.Timeout, timeout, r.Stdout, tail(r.Stderr))
	}
	if r.Err != nil {
		t.Fatalf("%s -np %d %s: %v\nstdout:\n%s\nstderr:\n%s", f.Name, np, filepath.Base(prog), r.Err, r.Stdout, tail(r.Stderr))
	}
	return r.Stdout
}

func tail(s string) string {
	const n = 4000
	if len(s) > n {
		return "…" + s[len(s)-n:]
	}
	return s
}
