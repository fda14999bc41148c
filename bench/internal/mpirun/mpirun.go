// Package mpirun finds the MPI libraries installed on this machine and runs
// programs under their launchers, for the benchmarks' integration tests.
//
// Two flavors are known: Open MPI (pkg-config "mpi", launched with
// mpirun.openmpi) and MPICH (pkg-config "mpich", launched with
// mpiexec.mpich). Tests call Flavors and skip when none is installed,
// unless RB_REQUIRE_MPI=1 is set (make test sets it), in which case a
// missing library is a failure. RB_MPI_FLAVORS (for example "openmpi")
// restricts the flavors used. The benchmarks launch at most as many ranks
// as the machine has cores, so no oversubscription settings are needed.
package mpirun

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Flavor is one MPI library and how to launch with it.
type Flavor struct {
	Name     string   // "openmpi" or "mpich"
	Launcher []string // launcher command, before "-np N"
	Env      []string // extra environment for the launcher
	CC       string   // the library's C compiler wrapper (mpicc), "" if not found
}

// openMPIEnv is the environment Open MPI needs on these machines: running
// as root is allowed, and the slow CMA single-copy mechanism is disabled.
var openMPIEnv = []string{
	"OMPI_ALLOW_RUN_AS_ROOT=1",
	"OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1",
	"OMPI_MCA_btl_vader_single_copy_mechanism=none",
}

func find(names ...string) string {
	for _, n := range names {
		if p, err := exec.LookPath(n); err == nil {
			return p
		}
	}
	return ""
}

func pkgConfig(mod string) bool {
	return exec.Command("pkg-config", "--exists", mod).Run() == nil
}

// available returns the flavors installed on this machine, in the order
// Open MPI, MPICH, filtered by RB_MPI_FLAVORS when set.
func available() []Flavor {
	var fs []Flavor
	if l := find("mpirun.openmpi", "orterun"); l != "" && pkgConfig("mpi") {
		fs = append(fs, Flavor{Name: "openmpi", Launcher: []string{l}, Env: openMPIEnv, CC: find("mpicc.openmpi")})
	}
	if l := find("mpiexec.mpich", "mpiexec.hydra"); l != "" && pkgConfig("mpich") {
		fs = append(fs, Flavor{Name: "mpich", Launcher: []string{l}, CC: find("mpicc.mpich")})
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
	fs := available()
	required := os.Getenv("RB_REQUIRE_MPI") == "1"
	if required && os.Getenv("RB_MPI_FLAVORS") == "" && len(fs) < 2 {
		t.Fatalf("RB_REQUIRE_MPI=1 but found only %d MPI libraries; run make setup", len(fs))
	}
	if len(fs) == 0 {
		if required {
			t.Fatal("RB_REQUIRE_MPI=1 but no MPI library found; run make setup")
		}
		t.Skip("no MPI library installed (Open MPI: libopenmpi-dev openmpi-bin; MPICH: libmpich-dev mpich); set RB_REQUIRE_MPI=1 to fail instead")
	}
	return fs
}

// Result is the outcome of one launch.
type Result struct {
	Stdout, Stderr string
	Err            error // nil when every rank exited with status 0
	TimedOut       bool
}

// Run launches prog with np ranks under flavor f, with env added to the
// environment, killing the whole process group after timeout.
func Run(f Flavor, np int, timeout time.Duration, env []string, prog string, args ...string) Result {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	argv := append(append([]string{}, f.Launcher...), "-np", strconv.Itoa(np), prog)
	argv = append(argv, args...)
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Env = append(append(os.Environ(), f.Env...), env...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 5 * time.Second
	var so, se bytes.Buffer
	cmd.Stdout, cmd.Stderr = &so, &se
	err := cmd.Run()
	return Result{Stdout: so.String(), Stderr: se.String(), Err: err, TimedOut: ctx.Err() != nil}
}

// MustRun is Run that fails the test when the launch fails or times out,
// and returns the standard output.
func MustRun(t testing.TB, f Flavor, np int, timeout time.Duration, env []string, prog string, args ...string) string {
	t.Helper()
	r := Run(f, np, timeout, env, prog, args...)
	if r.TimedOut {
		t.Fatalf("%s -np %d %s: timed out after %v\nstdout:\n%s\nstderr:\n%s", f.Name, np, filepath.Base(prog), timeout, r.Stdout, tail(r.Stderr))
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
