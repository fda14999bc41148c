// Command vcluster builds a virtual cluster of namespaced nodes on this
// machine, runs one command on it, and removes the cluster whatever happens
// (success, failure, Ctrl-C, SIGTERM).
//
//	vcluster mpirun -flavor openmpi -nodes 2 -per-node 2 [-seed 1] -- prog args…
//	vcluster run -nodes 4 -- cmd args…     (cmd runs on node 0)
//	vcluster clean [-all]                  (remove what crashed runs left)
//	vcluster check                         (can clusters be made here?)
//	vcluster bench -bin-openmpi B -bin-mpich B [-runs 10] [-after 0,10s]
//	                                       (clock-sync accuracy across nodes)
//
// mpirun starts the flavor's own launcher on node 0 with a hostfile of the
// first nodes, the namespace-entering agent instead of ssh, shared memory
// within a node and TCP between nodes. run gives cmd the environment
// RBVC_AGENT (the ssh replacement), RBVC_DIR, RBVC_NODES (addresses) and
// RBVC_OPENMPI_ARGS / RBVC_MPICH_ARGS (launcher arguments for all nodes,
// one rank each; split on spaces), for scripts that launch themselves; when
// that layout fits the machine, cmd runs on node 0's CPUs (the launcher
// starts node 0's ranks itself, and they inherit them; RBVC_NO_PIN=1 turns
// that off).
// The node table (name, address, CLOCK_MONOTONIC offset, skew) goes to
// stderr.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/reprobench/reprobench/internal/vcluster"
)

func main() {
	if len(os.Args) < 2 {
		usage()
	}
	var err error
	switch os.Args[1] {
	case "mpirun", "run":
		err = runCmd(os.Args[1], os.Args[2:])
	case "clean":
		fs := flag.NewFlagSet("clean", flag.ExitOnError)
		all := fs.Bool("all", false, "also remove clusters whose owner process still runs")
		_ = fs.Parse(os.Args[2:])
		var ids []string
		ids, err = vcluster.Clean(*all)
		for _, id := range ids {
			fmt.Fprintln(os.Stderr, "vcluster: removed", id)
		}
	case "bench":
		err = bench(os.Args[2:])
	case "check":
		err = vcluster.Available()
		if err == nil {
			fmt.Println("vcluster: namespaces permitted")
		}
	default:
		usage()
	}
	if err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			os.Exit(ee.ExitCode())
		}
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

func usage() {
	fmt.Fprintln(os.Stderr, "usage: vcluster mpirun|run|clean|check|bench [flags] [-- command args…] (see go doc)")
	os.Exit(2)
}

func runCmd(mode string, args []string) error {
	fs := flag.NewFlagSet(mode, flag.ExitOnError)
	nodes := fs.Int("nodes", 2, "number of nodes")
	perNode := fs.Int("per-node", 1, "mpirun: ranks per node")
	flavor := fs.String("flavor", "openmpi", "mpirun: MPI library, openmpi or mpich")
	seed := fs.Uint64("seed", 1, "seed of the node offsets and skews")
	maxOff := fs.Duration("max-offset", 1000*time.Second, "node CLOCK_MONOTONIC offsets uniform in ±this around a 1-3 day base")
	skew := fs.Float64("skew-ppm", 0, "node drifts uniform in ±this, ppm (timing.Skewed via "+vcluster.NodeSkewEnv+"); node 0 has none")
	timeout := fs.Duration("timeout", 10*time.Minute, "kill the command after this long")
	_ = fs.Parse(args)
	argv := fs.Args()
	if len(argv) == 0 {
		return fmt.Errorf("vcluster %s: no command after --", mode)
	}
	if err := vcluster.Available(); err != nil {
		return err
	}
	// Signals from here on end in a clean-up, not a leftover cluster.
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	c, err := vcluster.New(vcluster.Config{Nodes: *nodes, Seed: *seed, MaxOffset: *maxOff, MaxSkewPPM: *skew})
	if err != nil {
		return err
	}
	defer c.Close()
	fmt.Fprintf(os.Stderr, "vcluster %s: %d nodes (seed %d)\n", c.ID, len(c.Nodes), c.Seed)
	for _, n := range c.Nodes {
		fmt.Fprintf(os.Stderr, "  %-18s %-11s offset %16.9f s  skew %+8.3f ppm\n", n.Name, n.Addr, n.Offset.Seconds(), n.SkewPPM)
	}
	var cmd *exec.Cmd
	if mode == "mpirun" {
		if cmd, err = c.MPIRun(context.Background(), *flavor, *nodes, *perNode, argv[0], argv[1:]...); err != nil {
			return err
		}
	} else {
		// The launcher arguments below are for one rank per node: run the
		// command on node 0's CPUs of that layout, as MPIRun runs a launcher.
		cmd = c.Command(0, vcluster.OnNodeCPUs(*nodes, 1, argv)...)
		var addrs []string
		for _, n := range c.Nodes {
			addrs = append(addrs, n.Addr)
		}
		cmd.Env = append(cmd.Env, "RBVC_AGENT="+c.Agent, "RBVC_DIR="+c.Dir, "RBVC_NODES="+strings.Join(addrs, " "))
		for _, f := range []string{"openmpi", "mpich"} {
			la, err := c.LauncherArgs(f, *nodes, 1)
			if err != nil {
				return err
			}
			cmd.Env = append(cmd.Env, "RBVC_"+strings.ToUpper(f)+"_ARGS="+strings.Join(la, " "))
		}
	}
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	if err := cmd.Start(); err != nil {
		return err
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err = <-done:
	case s := <-sigs:
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		<-done
		err = fmt.Errorf("vcluster: %v: stopped, cluster removed", s)
	case <-time.After(*timeout):
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		<-done
		err = fmt.Errorf("vcluster: timed out after %v, cluster removed", *timeout)
	}
	if cerr := c.Close(); cerr != nil && err == nil {
		err = cerr
	}
	return err
}
