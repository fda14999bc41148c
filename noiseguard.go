package reprobench

import (
	"encoding/json"
	"fmt"

	"github.com/reprobench/reprobench/mpi"
	"github.com/reprobench/reprobench/noiseguard"
	"github.com/reprobench/reprobench/window"
)

// nodeIndex numbers the nodes of ranks with processor names names: ranks
// with the same name share a node, numbered in order of first appearance.
func nodeIndex(names []string) []int {
	seen := map[string]int{}
	out := make([]int, len(names))
	for r, n := range names {
		i, ok := seen[n]
		if !ok {
			i = len(seen)
			seen[n] = i
		}
		out[r] = i
	}
	return out
}

// noiseProbe is the part of "reprobench noise --json" the noise guard
// reads: the periodic sources fitted to the probe's detours, their times
// in CLOCK_MONOTONIC seconds.
type noiseProbe struct {
	Periodic []noiseguard.Source `json:"periodic_sources"`
}

// newNoiseGuard returns this rank's window.NoiseGuard for a run
// (collective): names are the ranks' processor names on rank 0
// (ProcessorNames; ignored on the other ranks), probe is empty or, on rank
// 0, the output of "reprobench noise --json" (noiseProbe), whose periodic
// sources then seed every node (window.NoiseGuard.SeedMonotonic).
func newNoiseGuard(c mpi.Comm, names []string, probe []byte) (*window.NoiseGuard, error) {
	nodes := make([]int64, c.Size())
	if c.Rank() == 0 {
		for r, n := range nodeIndex(names) {
			nodes[r] = int64(n)
		}
	}
	if err := mpi.Bcast(c, nodes, 0); err != nil {
		return nil, err
	}
	js, err := bcastString(c, string(probe), 0)
	if err != nil {
		return nil, err
	}
	idx := make([]int, len(nodes))
	for r, n := range nodes {
		idx[r] = int(n)
	}
	g, err := window.NewNoiseGuard(idx, noiseguard.Config{})
	if err != nil {
		return nil, err
	}
	if js != "" {
		var p noiseProbe
		if err := json.Unmarshal([]byte(js), &p); err != nil {
			return nil, fmt.Errorf("reprobench: noise probe: %w", err)
		}
		if len(p.Periodic) == 0 {
			return nil, fmt.Errorf("reprobench: the noise probe has no periodic_sources (made by an older \"reprobench noise --json\"?)")
		}
		g.SeedMonotonic(p.Periodic)
	}
	return g, nil
}
