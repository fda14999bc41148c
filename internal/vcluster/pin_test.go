package vcluster

import (
	"context"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/reprobench/reprobench/internal/mpirun"
	"github.com/reprobench/reprobench/timing"
)

// TestNodeCPUs: a layout that fits the CPUs gets perNode of them per node,
// each CPU once; one that does not fit gets none, nor any with NoPinEnv set.
func TestNodeCPUs(t *testing.T) {
	cpus, err := timing.AllowedCPUs()
	if err != nil {
		t.Skip(err)
	}
	n := len(cpus)
	for _, l := range []struct{ nodes, per int }{{1, 1}, {n, 1}, {1, n}, {2, n / 2}} {
		if l.nodes*l.per == 0 || l.nodes*l.per > n {
			continue
		}
		got := NodeCPUs(l.nodes, l.per)
		if len(got) != l.nodes {
			t.Fatalf("NodeCPUs(%d, %d) = %q, want %d lists", l.nodes, l.per, got, l.nodes)
		}
		var seen []int
		for _, list := range got {
			ids := strings.Split(list, ",")
			if len(ids) != l.per {
				t.Errorf("NodeCPUs(%d, %d): node list %q, want %d CPUs", l.nodes, l.per, list, l.per)
			}
			for _, id := range ids {
				c, err := strconv.Atoi(id)
				if err != nil || !slices.Contains(cpus, c) || slices.Contains(seen, c) {
					t.Errorf("NodeCPUs(%d, %d) = %q: CPU %q not allowed or given twice", l.nodes, l.per, got, id)
				}
				seen = append(seen, c)
			}
		}
	}
	for _, l := range []struct{ nodes, per int }{{n + 1, 1}, {1, n + 1}, {0, 1}, {1, 0}} {
		if got := NodeCPUs(l.nodes, l.per); got != nil {
			t.Errorf("NodeCPUs(%d, %d) = %q on %d CPUs, want nil", l.nodes, l.per, got, n)
		}
	}
	t.Setenv(NoPinEnv, "1")
	if got := NodeCPUs(1, 1); got != nil {
		t.Errorf("NodeCPUs(1, 1) = %q with %s set, want nil", got, NoPinEnv)
	}
}

// TestRanksOnTheirNodesCPUs: launched through the libraries' own launchers,
// every rank of a layout that fits the machine runs on its node's CPUs
// only, and the nodes' CPUs differ; with more ranks than CPUs every rank
// may run anywhere.
func TestRanksOnTheirNodesCPUs(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: no MPI launches")
	}
	requireVCluster(t)
	fs := flavors(t)
	cpus, err := timing.AllowedCPUs()
	if err != nil {
		t.Skip(err)
	}
	all := allowedList(cpus)
	if len(cpus) < 2 {
		t.Skip("one CPU: no layout of two nodes fits")
	}
	c := newCluster(t, Config{Nodes: 2, Seed: 5})
	for _, f := range fs {
		for _, l := range []struct{ nodes, per int }{{2, 1}, {2, len(cpus)}} {
			ctx, cancel := context.WithTimeout(context.Background(), mpirun.Deadline(time.Minute))
			cmd, err := c.MPIRun(ctx, f, l.nodes, l.per, "sh", "-c", `echo "$(hostname) $(sed -n 's/^Cpus_allowed_list:[[:space:]]*//p' /proc/self/status)"`)
			if err != nil {
				cancel()
				t.Fatal(err)
			}
			out, err := cmd.CombinedOutput()
			cancel()
			if err != nil {
				t.Fatalf("%s %d×%d: %v\n%s", f, l.nodes, l.per, err, tail(string(out)))
			}
			want := NodeCPUs(l.nodes, l.per)
			got := map[string]string{} // host → allowed list
			lines := 0
			for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
				host, list, ok := strings.Cut(line, " ")
				if !ok || !strings.HasPrefix(host, c.ID) {
					continue
				}
				lines++
				i := slices.IndexFunc(c.Nodes, func(n Node) bool { return n.Name == host })
				w := all
				if want != nil {
					w = allowedList(parseList(t, want[i]))
				}
				if list != w {
					t.Errorf("%s %d×%d: a rank on node %d may run on CPUs %s, want %s", f, l.nodes, l.per, i, list, w)
				}
				got[host] = list
			}
			if lines != l.nodes*l.per || len(got) != l.nodes {
				t.Errorf("%s %d×%d: %d ranks reported from %d nodes, want %d from %d:\n%s", f, l.nodes, l.per, lines, len(got), l.nodes*l.per, l.nodes, out)
			}
		}
	}
}

// parseList parses NodeCPUs' "0,1" lists.
func parseList(t *testing.T, list string) []int {
	var out []int
	for _, id := range strings.Split(list, ",") {
		c, err := strconv.Atoi(id)
		if err != nil {
			t.Fatalf("CPU list %q: %v", list, err)
		}
		out = append(out, c)
	}
	return out
}

// allowedList formats CPUs as the kernel's Cpus_allowed_list does
// (ranges: "0-3,6").
func allowedList(cpus []int) string {
	var parts []string
	for i := 0; i < len(cpus); {
		j := i
		for j+1 < len(cpus) && cpus[j+1] == cpus[j]+1 {
			j++
		}
		if i == j {
			parts = append(parts, strconv.Itoa(cpus[i]))
		} else {
			parts = append(parts, strconv.Itoa(cpus[i])+"-"+strconv.Itoa(cpus[j]))
		}
		i = j + 1
	}
	return strings.Join(parts, ",")
}
