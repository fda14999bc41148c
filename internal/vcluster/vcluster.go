package vcluster

import (
	"bytes"
	"context"
	_ "embed"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/reprobench/reprobench/timing"
)

// Prefix starts the name of every namespace and directory a cluster makes.
const Prefix = "rbvc"

// RunDir holds one directory per cluster (namespace files, agent,
// hostfiles, owner pid).
const RunDir = "/run/" + Prefix

// Subnet is the private IPv4 /24 of every cluster's bridge; node i has
// address 10.213.0.(i+1). Clusters never share a bridge: each has its own
// switch namespace, and the host's network namespace has no address in it.
const Subnet = "10.213.0.0/24"

// NodeSkewEnv is clocksync.NodeSkewEnv (kept equal by a test; vcluster does
// not import clocksync).
const NodeSkewEnv = "RB_NODE_SKEW_PPM"

// NoPinEnv, when set to a non-empty value, keeps every node's ranks off
// CPUs of their own (NodeCPUs returns nil).
const NoPinEnv = "RBVC_NO_PIN"

// Config describes a cluster. Offsets and skews are drawn from Seed.
type Config struct {
	Nodes int    // 1..200
	Seed  uint64 // seed of the offsets and skews
	// BaseOffset is added to every node's CLOCK_MONOTONIC offset (a time
	// namespace may not make the clock negative, so offsets below zero
	// need a positive base). 0 means a seed-drawn offset of 1 to 3 days.
	BaseOffset time.Duration
	// MaxOffset bounds each node's offset around BaseOffset: uniform in
	// ±MaxOffset, whole seconds (unshare takes no fractions). 0 means
	// 1000 s.
	MaxOffset time.Duration
	// MaxSkewPPM bounds each node's drift: uniform in ±MaxSkewPPM; node 0
	// has none. 0 means no drift.
	MaxSkewPPM float64
	// NoMPICHShim launches MPICH without the finalize shim (see
	// LauncherArgs), to show the hang it prevents.
	NoMPICHShim bool
}

// Node is one namespaced node.
type Node struct {
	Index    int
	Name     string        // host name (UTS namespace) and netns name
	Addr     string        // IPv4 address on the bridge
	Offset   time.Duration // CLOCK_MONOTONIC offset to the host
	SkewPPM  float64       // drift applied by clocksync.NodeSkew
	netns    string        // path of the network namespace file
	uts, tns string        // paths of the UTS and time namespace files
}

// Cluster is a running virtual cluster. Close it.
type Cluster struct {
	ID    string // unique among running clusters: Prefix + pid + counter
	Dir   string // RunDir/ID
	Agent string // the rsh/ssh replacement: agent HOST COMMAND…
	Nodes []Node
	Seed  uint64
	sw    string // switch netns name
	done  bool
	mu    sync.Mutex
	cmds  []*exec.Cmd // started through Command, killed by Close
	// noShim: Config.NoMPICHShim; shim: the built finalize shim.
	noShim bool
	shim   string
}

// Available reports why clusters cannot be made here, nil if they can.
func Available() error {
	if os.Geteuid() != 0 {
		return errors.New("vcluster: needs root (network, UTS and time namespaces)")
	}
	for _, tool := range []string{"ip", "unshare", "nsenter"} {
		if _, err := exec.LookPath(tool); err != nil {
			return fmt.Errorf("vcluster: %s not found", tool)
		}
	}
	if _, err := os.Stat("/proc/self/ns/time"); err != nil {
		return fmt.Errorf("vcluster: the kernel has no time namespaces (%v)", err)
	}
	// The real test: can we make (and drop) a network and a time namespace?
	out, err := exec.Command("unshare", "--net", "--uts", "--time", "--monotonic", "1", "true").CombinedOutput()
	if err != nil {
		return fmt.Errorf("vcluster: namespaces not permitted here: unshare: %v %s", err, bytes.TrimSpace(out))
	}
	return nil
}

var counter int

// New creates the cluster. On error nothing of it is left.
func New(cfg Config) (c *Cluster, err error) {
	if cfg.Nodes < 1 || cfg.Nodes > 200 {
		return nil, fmt.Errorf("vcluster: %d nodes, want 1 to 200", cfg.Nodes)
	}
	if cfg.MaxOffset < 0 || cfg.BaseOffset < 0 || cfg.MaxSkewPPM < 0 || math.IsNaN(cfg.MaxSkewPPM) {
		return nil, fmt.Errorf("vcluster: negative or NaN bound in %+v", cfg)
	}
	if cfg.MaxOffset == 0 {
		cfg.MaxOffset = 1000 * time.Second
	}
	rng := rand.New(rand.NewPCG(cfg.Seed, 0x7262766301))
	if cfg.BaseOffset == 0 {
		cfg.BaseOffset = 24*time.Hour + time.Duration(rng.Int64N(48*3600))*time.Second
	}
	if cfg.BaseOffset < cfg.MaxOffset {
		return nil, fmt.Errorf("vcluster: BaseOffset %v below MaxOffset %v would make a clock negative", cfg.BaseOffset, cfg.MaxOffset)
	}
	counter++
	id := fmt.Sprintf("%s%d-%d", Prefix, os.Getpid(), counter)
	made := &Cluster{ID: id, Dir: filepath.Join(RunDir, id), Seed: cfg.Seed, sw: id + "-sw", noShim: cfg.NoMPICHShim}
	c = made
	if err := os.MkdirAll(c.Dir, 0o755); err != nil {
		return nil, err
	}
	defer func() {
		if err != nil {
			err = errors.Join(err, made.Close())
		}
	}()
	// Owner first: Clean leaves a directory alone while its owner lives.
	if err := os.WriteFile(filepath.Join(c.Dir, "owner"), []byte(strconv.Itoa(os.Getpid())), 0o644); err != nil {
		return nil, err
	}
	// Namespace files must sit on a private mount.
	if err := run("mount", "--bind", c.Dir, c.Dir); err != nil {
		return nil, err
	}
	if err := run("mount", "--make-private", c.Dir); err != nil {
		return nil, err
	}
	if err := run("ip", "netns", "add", c.sw); err != nil {
		return nil, err
	}
	if err := run("ip", "-n", c.sw, "link", "add", "br0", "type", "bridge"); err != nil {
		return nil, err
	}
	if err := run("ip", "-n", c.sw, "link", "set", "br0", "up"); err != nil {
		return nil, err
	}
	for i := 0; i < cfg.Nodes; i++ {
		n := Node{Index: i, Name: fmt.Sprintf("%s-n%d", id, i), Addr: fmt.Sprintf("10.213.0.%d", i+1)}
		maxS := int64(cfg.MaxOffset / time.Second)
		n.Offset = cfg.BaseOffset.Truncate(time.Second) + time.Duration(rng.Int64N(2*maxS+1)-maxS)*time.Second
		if i > 0 && cfg.MaxSkewPPM > 0 { // node 0 is the reference, as the launcher's node
			n.SkewPPM = math.Round((2*rng.Float64()-1)*cfg.MaxSkewPPM*1000) / 1000
		}
		if err := c.addNode(&n); err != nil {
			return nil, err
		}
		c.Nodes = append(c.Nodes, n)
	}
	if err := c.writeAgent(); err != nil {
		return nil, err
	}
	return c, nil
}

func (c *Cluster) addNode(n *Node) error {
	n.netns = "/run/netns/" + n.Name
	n.uts = filepath.Join(c.Dir, n.Name+".uts")
	n.tns = filepath.Join(c.Dir, n.Name+".time")
	for _, f := range []string{n.uts, n.tns} {
		if err := os.WriteFile(f, nil, 0o644); err != nil {
			return err
		}
	}
	if err := run("ip", "netns", "add", n.Name); err != nil {
		return err
	}
	// A persistent UTS and time namespace, bound to files (the time
	// namespace's offsets must be set before any process enters it).
	secs := strconv.FormatInt(int64(n.Offset/time.Second), 10)
	if err := run("unshare", "--uts="+n.uts, "--time="+n.tns, "--monotonic", secs, "--boottime", secs, "true"); err != nil {
		return err
	}
	if err := run("nsenter", "--uts="+n.uts, "hostname", n.Name); err != nil {
		return err
	}
	peer := fmt.Sprintf("p%d", n.Index)
	steps := [][]string{
		{"ip", "link", "add", "eth0", "netns", n.Name, "type", "veth", "peer", "name", peer, "netns", c.sw},
		{"ip", "-n", c.sw, "link", "set", peer, "master", "br0", "up"},
		{"ip", "-n", n.Name, "addr", "add", n.Addr + "/24", "dev", "eth0"},
		{"ip", "-n", n.Name, "link", "set", "eth0", "up"},
		{"ip", "-n", n.Name, "link", "set", "lo", "up"},
	}
	for _, s := range steps {
		if err := run(s[0], s[1:]...); err != nil {
			return err
		}
	}
	return nil
}

// writeAgent writes the ssh replacement: it skips ssh options, maps the host
// (address or name) to its node, exports the node's skew and runs the
// command through sh inside the node's namespaces, as sshd would.
func (c *Cluster) writeAgent() error {
	c.Agent = filepath.Join(c.Dir, "agent")
	return os.WriteFile(c.Agent, []byte(c.agentScript(nil)), 0o755)
}

// agentScript is the agent's text; with cpus, node i's command runs under
// taskset -c cpus[i] (nodes past the end of cpus are not restricted).
func (c *Cluster) agentScript(cpus []string) string {
	var b strings.Builder
	b.WriteString("#!/bin/sh\n# reprobench virtual cluster " + c.ID + ": ssh replacement, agent HOST COMMAND...\n")
	b.WriteString("while [ $# -gt 0 ]; do case \"$1\" in -o|-p|-l|-i|-F|-E) shift 2;; -*) shift;; *) break;; esac; done\n")
	b.WriteString("host=$1; shift\ncase \"$host\" in\n")
	for i, n := range c.Nodes {
		skew := ""
		if n.SkewPPM != 0 {
			skew = strconv.FormatFloat(n.SkewPPM, 'g', -1, 64)
		}
		pin := ""
		if i < len(cpus) {
			pin = "taskset -c " + cpus[i]
		}
		fmt.Fprintf(&b, "%s|%s) net=%s uts=%s tns=%s skew=%s pin=%q;;\n", n.Addr, n.Name, n.netns, n.uts, n.tns, skew, pin)
	}
	b.WriteString("*) echo \"vcluster agent: unknown host $host\" >&2; exit 255;;\nesac\n")
	b.WriteString("if [ -n \"$skew\" ]; then export " + NodeSkewEnv + "=$skew; else unset " + NodeSkewEnv + "; fi\n")
	b.WriteString("exec nsenter --net=$net --uts=$uts --time=$tns $pin sh -c \"$*\"\n")
	return b.String()
}

// NodeCPUs returns the CPUs each of the first nodes nodes owns in a layout
// of perNode ranks per node (taskset -c lists, node order): perNode
// consecutive CPUs each, of those this process may run on, when
// nodes×perNode ranks fit them; nil when they do not, and the ranks of all
// nodes share every CPU.
//
// On a real cluster a node's ranks have the node's cores to themselves. On
// this one every node sees the whole machine, and nothing keeps the ranks
// of two nodes off one core: Open MPI's default binding put the first rank
// of every node on core 0, and unbound ranks met on one core whenever a
// third task made the scheduler move one (measured on 2 × 1 with
// --bind-to none: in 3 of 10 runs a barrier-synchronized 8-byte allreduce
// took 39-46 µs instead of 9-13, and 55-86 % of the windows were invalid,
// in the pure-C reference as in the engine). A busy-waiting rank then holds
// the core its peer needs.
//
// With NoPinEnv set to a non-empty value it returns nil: the ranks of all
// nodes share every CPU, to compare the two.
func NodeCPUs(nodes, perNode int) []string {
	cpus, err := timing.AllowedCPUs()
	if err != nil || nodes < 1 || perNode < 1 || nodes*perNode > len(cpus) || os.Getenv(NoPinEnv) != "" {
		return nil
	}
	out := make([]string, nodes)
	for i := range out {
		ids := make([]string, perNode)
		for j := range ids {
			ids[j] = strconv.Itoa(cpus[i*perNode+j])
		}
		out[i] = strings.Join(ids, ",")
	}
	return out
}

// OnNodeCPUs returns argv prefixed with taskset so that it runs on node 0's
// CPUs of the layout (NodeCPUs), or argv itself when the layout does not fit
// the machine. The launcher on node 0 needs it: it starts node 0's ranks
// itself, not through the agent, and they inherit its CPUs.
func OnNodeCPUs(nodes, perNode int, argv []string) []string {
	cpus := NodeCPUs(nodes, perNode)
	if cpus == nil {
		return argv
	}
	return append([]string{"taskset", "-c", cpus[0]}, argv...)
}

// layoutAgent returns the agent for a layout: one that keeps each node on
// its own CPUs (NodeCPUs) when the ranks fit the machine, written once per
// layout into the cluster's directory; the plain agent otherwise.
func (c *Cluster) layoutAgent(nodes, perNode int) (string, error) {
	cpus := NodeCPUs(nodes, perNode)
	if cpus == nil {
		return c.Agent, nil
	}
	p := filepath.Join(c.Dir, fmt.Sprintf("agent-%dx%d", nodes, perNode))
	return p, os.WriteFile(p, []byte(c.agentScript(cpus)), 0o755)
}

// Hostfile writes a hostfile with the first nodes nodes and slots ranks
// each, in the syntax of the flavor ("openmpi": "ADDR slots=K"; "mpich":
// "ADDR:K"), and returns its path.
func (c *Cluster) Hostfile(flavor string, nodes, slots int) (string, error) {
	if nodes < 1 || nodes > len(c.Nodes) || slots < 1 {
		return "", fmt.Errorf("vcluster: hostfile of %d nodes × %d slots on a cluster of %d nodes", nodes, slots, len(c.Nodes))
	}
	var b strings.Builder
	for _, n := range c.Nodes[:nodes] {
		switch flavor {
		case "openmpi":
			fmt.Fprintf(&b, "%s slots=%d\n", n.Addr, slots)
		case "mpich":
			fmt.Fprintf(&b, "%s:%d\n", n.Addr, slots)
		default:
			return "", fmt.Errorf("vcluster: unknown MPI flavor %q", flavor)
		}
	}
	p := filepath.Join(c.Dir, fmt.Sprintf("hosts-%s-%dx%d", flavor, nodes, slots))
	return p, os.WriteFile(p, []byte(b.String()), 0o644)
}

// LauncherArgs returns the arguments that make a flavor's launcher (run on
// node 0, see Command) start nodes×perNode ranks across the first nodes
// nodes, perNode each, in node order: the hostfile, the agent, shared memory
// within a node and TCP on the bridge between nodes. Append the program.
//
// Open MPI: mpi_yield_when_idle=1, because busy-polling ranks on a machine
// with few cores starve the softirq that moves packets between namespaces
// (measured here: an 8-byte ping-pong with a median of 4 ms without it,
// 9 µs with it). And --bind-to none: every node's daemon sees the whole
// machine and would bind its first rank to core 0, so the first ranks of
// all nodes shared one core (--report-bindings: "[B/.]" on both nodes of
// 2 × 1), and a rank busy-waiting for a window start held the core its peer
// needed: every windowed observation took its whole window (1000 of 1000
// invalid), and barrier-synchronized allreduces took 33-46 µs instead of
// 11-14. MPICH's hydra does not bind by default. Instead, when the ranks
// fit the machine, the agent starts each node's daemon restricted to the
// node's own CPUs (NodeCPUs), and its ranks inherit them. MPICH (ch4:ucx): UCX would use shared memory between the
// nodes (it sees one machine), so UCX_TLS=tcp and UCX_NET_DEVICES=eth0;
// MPICH's own shared memory still joins the ranks of a node.
//
// MPICH also gets LD_PRELOAD of a small shim (mpichshim/finalize.c, built
// with cc into the cluster's directory on first use). MPICH 4.0.2 closes its
// UCX endpoints in MPI_Finalize before its PMI barrier, and over UCX 1.13's
// tcp transport a rank that reaches MPI_Finalize after its peers closed
// their ends waits for its flush forever (also on one host with
// UCX_TLS=tcp; MPICH 4.1 moved the barrier first). The shim adds that
// barrier before the first disconnect and stops waiting for a close 2 s
// after it, when every rank is inside MPI_Finalize and nothing a correct
// program needs is in flight. With RBVC_MPICH_YIELD=1, which is set here,
// it also makes an idle ucp_worker_progress yield the CPU: MPICH's
// ch4:ucx has no yield-when-idle, and with more ranks than cores its
// busy-polling ranks took minutes for a clock sync that Open MPI, told to
// yield, does in seconds. Config.NoMPICHShim leaves the shim out.
func (c *Cluster) LauncherArgs(flavor string, nodes, perNode int) ([]string, error) {
	hf, err := c.Hostfile(flavor, nodes, perNode)
	if err != nil {
		return nil, err
	}
	agent, err := c.layoutAgent(nodes, perNode)
	if err != nil {
		return nil, err
	}
	np := strconv.Itoa(nodes * perNode)
	switch flavor {
	case "openmpi":
		return []string{"--hostfile", hf, "-np", np, "--map-by", "ppr:" + strconv.Itoa(perNode) + ":node",
			"--mca", "plm_rsh_agent", agent,
			"--mca", "oob_tcp_if_include", Subnet, "--mca", "btl_tcp_if_include", Subnet,
			"--mca", "btl", "tcp,self,vader", "--mca", "mpi_yield_when_idle", "1",
			"--bind-to", "none", "--oversubscribe"}, nil
	case "mpich":
		args := []string{"-f", hf, "-np", np, "-ppn", strconv.Itoa(perNode),
			"-launcher", "ssh", "-launcher-exec", agent, "-iface", "eth0",
			"-genv", "UCX_TLS", "tcp", "-genv", "UCX_NET_DEVICES", "eth0"}
		if c.noShim {
			return args, nil
		}
		so, err := c.mpichShim()
		if err != nil {
			return nil, err
		}
		return append(args, "-genv", "LD_PRELOAD", so, "-genv", "RBVC_MPICH_YIELD", "1"), nil
	}
	return nil, fmt.Errorf("vcluster: unknown MPI flavor %q", flavor)
}

//go:embed mpichshim/finalize.c
var mpichShimSource []byte

// mpichShim builds the MPICH finalize shim (see LauncherArgs) into the
// cluster's directory once and returns the shared object's path.
func (c *Cluster) mpichShim() (string, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.shim != "" {
		return c.shim, nil
	}
	src := filepath.Join(c.Dir, "mpich-finalize.c")
	so := filepath.Join(c.Dir, "mpich-finalize.so")
	if err := os.WriteFile(src, mpichShimSource, 0o644); err != nil {
		return "", err
	}
	if _, err := exec.LookPath("cc"); err != nil {
		return "", fmt.Errorf("vcluster: no C compiler (cc) to build the MPICH finalize shim: %w", err)
	}
	if err := run("cc", "-O2", "-Wall", "-shared", "-fPIC", "-o", so, src, "-ldl"); err != nil {
		return "", err
	}
	c.shim = so
	return so, nil
}

// Launchers maps a flavor to its launcher command.
var Launchers = map[string]string{"openmpi": "mpirun.openmpi", "mpich": "mpiexec.mpich"}

// MPIRun returns a command that runs the flavor's launcher on node 0 with
// LauncherArgs and prog: nodes×perNode ranks, perNode on each of the first
// nodes nodes. Cancelling ctx kills the launcher's process group (Close
// kills whatever else is left in the cluster). When the layout fits the
// machine, the launcher runs on node 0's CPUs (OnNodeCPUs).
func (c *Cluster) MPIRun(ctx context.Context, flavor string, nodes, perNode int, prog string, args ...string) (*exec.Cmd, error) {
	la, err := c.LauncherArgs(flavor, nodes, perNode)
	if err != nil {
		return nil, err
	}
	argv := OnNodeCPUs(nodes, perNode, append(append(append([]string{Launchers[flavor]}, la...), prog), args...))
	cmd := c.CommandContext(ctx, 0, argv...)
	if flavor == "openmpi" {
		cmd.Env = append(cmd.Env, "OMPI_ALLOW_RUN_AS_ROOT=1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1",
			"OMPI_MCA_btl_vader_single_copy_mechanism=none")
	}
	return cmd, nil
}

// Command returns a command that runs argv inside node i's namespaces with
// the node's skew in the environment, in a process group of its own.
func (c *Cluster) Command(i int, argv ...string) *exec.Cmd {
	return c.CommandContext(context.Background(), i, argv...)
}

// CommandContext is Command whose cancellation (ctx) kills the command's
// whole process group.
func (c *Cluster) CommandContext(ctx context.Context, i int, argv ...string) *exec.Cmd {
	n := c.Nodes[i]
	args := append([]string{"--net=" + n.netns, "--uts=" + n.uts, "--time=" + n.tns, "--"}, argv...)
	cmd := exec.CommandContext(ctx, "nsenter", args...)
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 5 * time.Second
	c.mu.Lock()
	c.cmds = append(c.cmds, cmd)
	c.mu.Unlock()
	// Only a skewed node gets the variable: hydra passes mpiexec's
	// environment on to every rank, over the one the agent set on a node.
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, NodeSkewEnv+"=") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	if n.SkewPPM != 0 {
		cmd.Env = append(cmd.Env, NodeSkewEnv+"="+strconv.FormatFloat(n.SkewPPM, 'g', -1, 64))
	}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	return cmd
}

// Close kills every process in the cluster's namespaces and removes the
// namespaces, mounts and files. It is safe to call twice.
func (c *Cluster) Close() error {
	if c == nil || c.done {
		return nil
	}
	c.done = true
	// The process groups of our commands first: one that is still entering
	// the node's namespaces is not found in them yet.
	c.mu.Lock()
	for _, cmd := range c.cmds {
		if cmd.Process != nil && cmd.ProcessState == nil {
			_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		}
	}
	c.mu.Unlock()
	return removeCluster(c.ID)
}

func run(name string, args ...string) error {
	out, err := exec.Command(name, args...).CombinedOutput()
	if err != nil {
		return fmt.Errorf("vcluster: %s %s: %v: %s", name, strings.Join(args, " "), err, bytes.TrimSpace(out))
	}
	return nil
}
