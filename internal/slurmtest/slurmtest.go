package slurmtest

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/reprobench/reprobench/internal/mpirun"
)

// Cluster is a running one-node Slurm.
type Cluster struct {
	// Dir holds slurm.conf, the state, spool and log directories.
	Dir string
	// Env is what clients (srun, sbatch, squeue, scancel) need:
	// SLURM_CONF=Dir/slurm.conf.
	Env []string
}

// RepoRoot returns the directory of the module (where go.mod is), found
// from the working directory upwards.
func RepoRoot() (string, error) {
	d, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
			return d, nil
		}
		up := filepath.Dir(d)
		if up == d {
			return "", errors.New("slurmtest: no go.mod above the working directory")
		}
		d = up
	}
}

// Start starts a cluster for t and registers its stop with t.Cleanup.
func Start(t testing.TB) *Cluster {
	t.Helper()
	c, down := start(t)
	t.Cleanup(func() {
		if err := down(); err != nil {
			t.Error(err)
		}
	})
	return c
}

var shared struct {
	sync.Mutex
	c    *Cluster
	down func() error
}

// Shared returns the cluster shared by the tests of this test binary,
// starting it on first use: the Slurm tests of a package are independent
// (each ends with WaitNoJobs and uses job names and directories of its
// own), and a cluster takes seconds to start. Before it hands the cluster
// out it cancels every job a failed earlier test may have left (scancel
// of the cluster's user, ours alone) and waits until none is left, so a
// test starts on an empty cluster. The package's TestMain must call
// StopShared after m.Run. Where Slurm cannot start, every caller skips
// (or fails under RB_REQUIRE_SLURM=1), as with Start.
func Shared(t testing.TB) *Cluster {
	t.Helper()
	shared.Lock()
	defer shared.Unlock()
	if shared.c == nil {
		shared.c, shared.down = start(t) // skips or fails t when it cannot
	}
	c := shared.c
	if jobs := c.Jobs(t, "running,pending,completing,configuring,suspended"); len(jobs) > 0 {
		t.Logf("cancelling jobs an earlier test left: %v", jobs)
		if out, err := c.Command("scancel", "--user", strconv.Itoa(os.Getuid())).CombinedOutput(); err != nil {
			t.Fatalf("scancel: %v %s", err, out)
		}
		c.WaitNoJobs(t)
	}
	return c
}

// StopShared stops the cluster of Shared, if one was started. A TestMain
// calls it after m.Run, and fails the run when it returns an error.
func StopShared() error {
	shared.Lock()
	defer shared.Unlock()
	var err error
	if shared.down != nil {
		err = shared.down()
	}
	shared.c, shared.down = nil, nil
	return err
}

// start starts a cluster and returns it with the function that stops it.
func start(t testing.TB) (*Cluster, func() error) {
	t.Helper()
	if testing.Short() {
		t.Skip("Slurm test: needs slurmctld, slurmd and munged")
	}
	required := os.Getenv("RB_REQUIRE_SLURM") == "1"
	skip := func(format string, a ...any) {
		t.Helper()
		msg := fmt.Sprintf(format, a...)
		if required {
			t.Fatalf("RB_REQUIRE_SLURM=1 but %s", msg)
		}
		t.Skipf("%s (set RB_REQUIRE_SLURM=1 to fail instead)", msg)
	}
	root, err := RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	// Short: the munge socket path must fit a sockaddr_un.
	dir, err := os.MkdirTemp("", "rbslurm")
	if err != nil {
		t.Fatal(err)
	}
	down := func() error {
		out, err := exec.Command("bash", filepath.Join(root, "scripts", "slurm-down.sh"), dir).CombinedOutput()
		if err != nil {
			return fmt.Errorf("slurm-down.sh %s: %v\n%s", dir, err, out)
		}
		return os.RemoveAll(dir)
	}
	cmd := exec.Command("bash", filepath.Join(root, "scripts", "slurm-up.sh"), dir)
	cmd.Env = append(os.Environ(), "RB_SLURM_WATCH_PID="+strconv.Itoa(os.Getpid()))
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err = cmd.Run()
	var ee *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &ee) && ee.ExitCode() == 3:
		down()
		skip("Slurm is not available: %s", strings.TrimSpace(out.String()))
	case errors.As(err, &ee) && ee.ExitCode() == 4:
		logs, _ := exec.Command("sh", "-c", "tail -n 20 "+dir+"/log/*").CombinedOutput()
		down()
		skip("Slurm did not start: %s\n%s", strings.TrimSpace(out.String()), logs)
	default:
		down()
		t.Fatalf("slurm-up.sh: %v\n%s", err, out.String())
	}
	t.Logf("%s", strings.TrimSpace(out.String()))
	return &Cluster{Dir: dir, Env: []string{"SLURM_CONF=" + filepath.Join(dir, "slurm.conf")}}, down
}

// Command returns a Slurm client command (srun, sbatch, squeue, scancel,
// scontrol) that talks to c.
func (c *Cluster) Command(name string, args ...string) *exec.Cmd {
	cmd := exec.Command(name, args...)
	cmd.Env = append(os.Environ(), c.Env...)
	return cmd
}

// Jobs returns "JOBID STATE NAME" of every job the controller knows in the
// given states (squeue -t syntax, e.g. "running,pending,completing"; "all"
// includes finished jobs it still remembers).
func (c *Cluster) Jobs(t testing.TB, states string) []string {
	t.Helper()
	out, err := c.Command("squeue", "-h", "-t", states, "-o", "%i %T %j").Output()
	if err != nil {
		t.Fatalf("squeue: %v", err)
	}
	var jobs []string
	for _, l := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		if l != "" {
			jobs = append(jobs, l)
		}
	}
	return jobs
}

// WaitNoJobs waits until the controller has no job running, pending or
// completing, and fails the test if one is still there after the safety
// limit (60 s, Slurm's KillWait here is 5 s, stretched by the machine's
// load: mpirun.Deadline). A job ends "completing" for a moment after its
// srun returns, so tests wait for this rather than look once.
func (c *Cluster) WaitNoJobs(t testing.TB) {
	t.Helper()
	limit := mpirun.Deadline(60 * time.Second)
	for end := time.Now().Add(limit); ; time.Sleep(100 * time.Millisecond) {
		jobs := c.Jobs(t, "running,pending,completing,configuring,suspended")
		if len(jobs) == 0 {
			return
		}
		if time.Now().After(end) {
			t.Fatalf("jobs still in the cluster after %v: %v", limit.Round(time.Second), jobs)
		}
	}
}
