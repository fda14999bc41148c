package vcluster_test

import (
	"context"
	"fmt"
	"time"

	"github.com/reprobench/reprobench/internal/vcluster"
)

// Two nodes with their own clocks, and Open MPI's mpirun starting 2 ranks on
// each through them (needs root; not run by go test, which has no output
// to compare: the offsets depend on the seed and the host names on the
// process id).
func Example() {
	if err := vcluster.Available(); err != nil {
		fmt.Println(err)
		return
	}
	c, err := vcluster.New(vcluster.Config{Nodes: 2, Seed: 1, MaxOffset: 1000 * time.Second, MaxSkewPPM: 100})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer c.Close() // namespaces, bridge, processes: nothing is left
	for _, n := range c.Nodes {
		fmt.Printf("%s %s offset %v skew %+g ppm\n", n.Name, n.Addr, n.Offset, n.SkewPPM)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd, err := c.MPIRun(ctx, "openmpi", 2, 2, "hostname")
	if err != nil {
		fmt.Println(err)
		return
	}
	out, err := cmd.CombinedOutput()
	fmt.Printf("%s%v\n", out, err)
}
