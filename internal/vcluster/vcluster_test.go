package vcluster

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/reprobench/reprobench/clocksync"
	"github.com/reprobench/reprobench/internal/mpirun"
)

// requireVCluster skips a test where namespaces are not permitted, or fails
// it when RB_REQUIRE_VCLUSTER=1 (make test sets it).
func requireVCluster(t *testing.T) {
	t.Helper()
	if err := Available(); err != nil {
		if os.Getenv("RB_REQUIRE_VCLUSTER") == "1" {
			t.Fatalf("RB_REQUIRE_VCLUSTER=1 but %v", err)
		}
		t.Skipf("virtual cluster not possible here (set RB_REQUIRE_VCLUSTER=1 to fail instead): %v", err)
	}
}

func newCluster(t *testing.T, cfg Config) *Cluster {
	t.Helper()
	c, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := c.Close(); err != nil {
			t.Error(err)
		}
	})
	return c
}

func TestSkewEnvMatchesClocksync(t *testing.T) {
	if NodeSkewEnv != clocksync.NodeSkewEnv {
		t.Fatalf("NodeSkewEnv %q, clocksync.NodeSkewEnv %q", NodeSkewEnv, clocksync.NodeSkewEnv)
	}
}

func TestConfigErrors(t *testing.T) {
	for _, cfg := range []Config{{Nodes: 0}, {Nodes: 201}, {Nodes: 2, MaxSkewPPM: -1},
		{Nodes: 2, BaseOffset: time.Second, MaxOffset: time.Hour}} {
		if _, err := New(cfg); err == nil {
			t.Errorf("New(%+v): no error", cfg)
		}
	}
}

// TestNodes: every node has its host name, its address and the offset it
// was given; Close leaves nothing.
func TestNodes(t *testing.T) {
	requireVCluster(t)
	c, err := New(Config{Nodes: 3, Seed: 7, MaxSkewPPM: 100})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	seen := map[time.Duration]bool{}
	for i, n := range c.Nodes {
		out, err := c.Command(i, "sh", "-c", `hostname; head -1 /proc/self/timens_offsets; ip -4 -br addr show eth0; echo "$`+NodeSkewEnv+`"`).CombinedOutput()
		if err != nil {
			t.Fatalf("node %d: %v %s", i, err, out)
		}
		f := strings.Fields(string(out))
		if len(f) > 4 {
			f[4], _, _ = strings.Cut(f[4], "@") // eth0@if7: the peer's index
		}
		want := []string{n.Name, "monotonic", fmt.Sprint(int64(n.Offset / time.Second)), "0", "eth0", "UP", n.Addr + "/24"}
		if n.SkewPPM != 0 {
			want = append(want, fmt.Sprint(n.SkewPPM))
		}
		if !slices.Equal(f, want) {
			t.Errorf("node %d: %q, want %q", i, f, want)
		}
		if seen[n.Offset] || n.Offset < 24*time.Hour-1000*time.Second || (i > 0) != (n.SkewPPM != 0) || n.SkewPPM > 100 || n.SkewPPM < -100 {
			t.Errorf("node %d: offset %v skew %g", i, n.Offset, n.SkewPPM)
		}
		seen[n.Offset] = true
	}
	// The same seed gives the same nodes.
	d := newCluster(t, Config{Nodes: 3, Seed: 7, MaxSkewPPM: 100})
	for i := range d.Nodes {
		if d.Nodes[i].Offset != c.Nodes[i].Offset || d.Nodes[i].SkewPPM != c.Nodes[i].SkewPPM {
			t.Errorf("seed 7 twice: node %d %v/%g then %v/%g", i, c.Nodes[i].Offset, c.Nodes[i].SkewPPM, d.Nodes[i].Offset, d.Nodes[i].SkewPPM)
		}
	}
	// A process left running in a node dies with the cluster.
	sleeper := c.Command(2, "sleep", "300")
	if err := sleeper.Start(); err != nil {
		t.Fatal(err)
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	if err := sleeper.Wait(); err == nil {
		t.Error("sleep 300 in a node ended normally: Close did not kill it")
	}
	assertGone(t, c.ID)
}

func assertGone(t *testing.T, id string) {
	t.Helper()
	if slices.Contains(Leftovers(), id) {
		t.Errorf("cluster %s left something behind: %v", id, Leftovers())
	}
	if _, err := os.Stat(filepath.Join(RunDir, id)); !os.IsNotExist(err) {
		t.Errorf("directory of %s still there (%v)", id, err)
	}
	if m, _ := filepath.Glob("/run/netns/" + id + "-*"); len(m) > 0 {
		t.Errorf("network namespaces left: %v", m)
	}
}

// TestCleanDeadOwner: what a crashed run left (owner gone) is removed by
// Clean; a live owner's cluster is not.
func TestCleanDeadOwner(t *testing.T) {
	requireVCluster(t)
	dead := exec.Command("true")
	if err := dead.Run(); err != nil {
		t.Fatal(err)
	}
	id := fmt.Sprintf("%s%d-1", Prefix, dead.Process.Pid)
	if err := run("ip", "netns", "add", id+"-n0"); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(RunDir, id), 0o755); err != nil {
		t.Fatal(err)
	}
	live := newCluster(t, Config{Nodes: 1, Seed: 1})
	removed, err := Clean(false)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(removed, id) || slices.Contains(removed, live.ID) {
		t.Errorf("Clean removed %v; want %s and not the live %s", removed, id, live.ID)
	}
	assertGone(t, id)
	if !slices.Contains(Leftovers(), live.ID) {
		t.Errorf("the live cluster %s was removed", live.ID)
	}
}

// TestInterrupt: Ctrl-C on the vcluster command removes the cluster and the
// command running on it.
func TestInterrupt(t *testing.T) {
	requireVCluster(t)
	bin := filepath.Join(t.TempDir(), "vcluster")
	if out, err := exec.Command("go", "build", "-o", bin, "./cmd/vcluster").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	cmd := exec.Command(bin, "run", "-nodes", "2", "--", "sleep", "300")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	id := fmt.Sprintf("%s%d-1", Prefix, cmd.Process.Pid)
	// Wait until the agent exists: the cluster is complete then.
	deadline := time.Now().Add(30 * time.Second)
	for {
		if _, err := os.Stat(filepath.Join(RunDir, id, "agent")); err == nil {
			break
		}
		if time.Now().After(deadline) {
			_ = cmd.Process.Kill()
			t.Fatalf("cluster %s not made within 30 s", id)
		}
		time.Sleep(10 * time.Millisecond)
	}
	if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Wait(); err == nil {
		t.Error("interrupted vcluster exited 0")
	}
	assertGone(t, id)
}

// TestLaunchers: both libraries' launchers start k ranks on each node, in
// the node's namespaces, through the agent.
func TestLaunchers(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: no MPI launches")
	}
	requireVCluster(t)
	c := newCluster(t, Config{Nodes: 2, Seed: 3})
	for _, f := range flavors(t) {
		t.Run(f, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), mpirun.Deadline(time.Minute))
			defer cancel()
			cmd, err := c.MPIRun(ctx, f, 2, 2, "sh", "-c", "echo $(hostname) $(head -1 /proc/self/timens_offsets)")
			if err != nil {
				t.Fatal(err)
			}
			// stdout only: Open MPI's rsh launcher may warn on stderr
			// (setpgid of a child that already ran exec, EACCES).
			var se strings.Builder
			cmd.Stderr = &se
			out, err := cmd.Output()
			if err != nil {
				t.Fatalf("%v\n%s\n%s", err, out, se.String())
			}
			lines := strings.Split(strings.TrimSpace(string(out)), "\n")
			slices.Sort(lines)
			var want []string
			for _, n := range c.Nodes {
				l := fmt.Sprintf("%s monotonic %d 0", n.Name, int64(n.Offset/time.Second))
				want = append(want, l, l)
			}
			if !slices.Equal(lines, want) {
				t.Errorf("ranks say\n%s\nwant\n%s", strings.Join(lines, "\n"), strings.Join(want, "\n"))
			}
		})
	}
}

// flavors returns the MPI libraries to test: both unless RB_MPI_FLAVORS
// narrows them; a missing launcher is a skip, or a failure with
// RB_REQUIRE_MPI=1.
func flavors(t *testing.T) []string {
	t.Helper()
	var fs []string
	for _, f := range []string{"openmpi", "mpich"} {
		if only := os.Getenv("RB_MPI_FLAVORS"); only != "" && !strings.Contains(","+only+",", ","+f+",") {
			continue
		}
		if _, err := exec.LookPath(Launchers[f]); err != nil {
			if os.Getenv("RB_REQUIRE_MPI") == "1" {
				t.Fatalf("RB_REQUIRE_MPI=1 but %s not found", Launchers[f])
			}
			continue
		}
		fs = append(fs, f)
	}
	if len(fs) == 0 {
		t.Skip("no MPI launcher found")
	}
	return fs
}

// lateFinalize is an MPI program in which rank 0 reaches MPI_Finalize
// 0.5 s after the others, having talked to rank 1 only.
const lateFinalize = `#include <mpi.h>
#include <stdio.h>
#include <unistd.h>
int main(int argc, char **argv) {
	int r, x = 0;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &r);
	if (r == 0) MPI_Send(&x, 1, MPI_INT, 1, 0, MPI_COMM_WORLD);
	if (r == 1) MPI_Recv(&x, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
	if (r == 0) usleep(500000);
	MPI_Finalize();
	printf("rank %d finalized\n", r);
	return 0;
}
`

// TestMPICHLateFinalize: with MPICH 4.0.2 over UCX tcp, a rank that reaches
// MPI_Finalize after its peers used to hang there for good (without the
// shim: 4 of 4 runs on 4 × 1, 4 of 4 on 2 × 2, and 5 of 5 on one host with
// UCX_TLS=tcp). With
// the finalize shim every rank finalizes.
func TestMPICHLateFinalize(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: no MPI launches")
	}
	requireVCluster(t)
	if !slices.Contains(flavors(t), "mpich") {
		t.Skip("MPICH not tested here")
	}
	dir := t.TempDir()
	src, prog := filepath.Join(dir, "late.c"), filepath.Join(dir, "late")
	if err := os.WriteFile(src, []byte(lateFinalize), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("mpicc.mpich", "-o", prog, src).CombinedOutput(); err != nil {
		t.Fatalf("mpicc.mpich: %v\n%s", err, out)
	}
	c := newCluster(t, Config{Nodes: 4, Seed: 5})
	for _, lay := range [][2]int{{4, 1}, {2, 2}} {
		t.Run(fmt.Sprintf("%dx%d", lay[0], lay[1]), func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), mpirun.Deadline(time.Minute))
			defer cancel()
			cmd, err := c.MPIRun(ctx, "mpich", lay[0], lay[1], prog)
			if err != nil {
				t.Fatal(err)
			}
			var se strings.Builder
			cmd.Stderr = &se
			t0 := time.Now()
			out, err := cmd.Output()
			if err != nil {
				t.Fatalf("%v after %v (ctx: %v)\n%s\n%s", err, time.Since(t0), ctx.Err(), out, se.String())
			}
			if n := strings.Count(string(out), "finalized"); n != 4 {
				t.Errorf("%d of 4 ranks finalized:\n%s", n, out)
			}
			t.Logf("4 ranks finalized in %v", time.Since(t0).Round(time.Millisecond))
		})
	}
}
