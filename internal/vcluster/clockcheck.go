package vcluster

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"
)

// ClockcheckReport is the part of "reprobench clockcheck --json --per-rank"
// that the virtual cluster reads.
type ClockcheckReport struct {
	Algorithm    string  `json:"algorithm"`
	Ranks        int     `json:"ranks"`
	SyncDuration float64 `json:"sync_duration_s"`
	Truth        string  `json:"truth"`
	Target       string  `json:"target"`
	// Bound is the stated bound (clocksync.Bound).
	Bound struct {
		AtSync  float64 `json:"bound_at_sync_s"`
		Slope   float64 `json:"bound_slope"`
		Unknown bool    `json:"bound_unknown"`
		Why     string  `json:"bound_unknown_why"`
	} `json:"bound"`
	// Descheduled is clockcheck's record of why the statistical bound was
	// not stated (clocksync.Descheduling), kept raw for the test's log.
	Descheduled json.RawMessage `json:"descheduled,omitempty"`
	Checks      []struct {
		After      float64   `json:"after_s"`
		MaxAbs     float64   `json:"max_abs_offset_s"`
		TrueMaxAbs *float64  `json:"true_max_abs_error_s"`
		Offsets    []float64 `json:"offsets_s"`
		TrueErrors []float64 `json:"true_errors_s"`
		// The stated bound at the check (nil when unknown), and how many
		// ranks' true errors it covered of those with a known bound.
		Bound        *float64 `json:"predicted_bound_s"`
		RanksCovered *int     `json:"ranks_within_own_bound"`
		RanksJudged  *int     `json:"ranks_judged"`
	} `json:"checks"`
	PerRank []struct {
		Rank      int `json:"rank"`
		FitPoints int `json:"fit_points"`
		// Intra is how two-level's intra-node step went
		// (clocksync.FitStats.Intra), IntraCheckMiss the measured offset's
		// disagreement with the exact one, seconds (0: agreed).
		Intra          string  `json:"intra"`
		IntraCheckMiss float64 `json:"intra_check_miss_s"`
		// CPUWait is how long the rank waited for a CPU during the sync,
		// seconds (nil: not measured), Duration the sync's duration on it.
		CPUWait  *float64 `json:"cpu_wait_s"`
		Duration float64  `json:"sync_duration_s"`
	} `json:"per_rank"`
}

// Clockcheck runs "bin clockcheck --alg alg --after after --json
// --per-rank" (bin: reprobench built for flavor) on nodes×perNode ranks of
// the cluster and returns its report. Rank r runs on node r/perNode.
func (c *Cluster) Clockcheck(ctx context.Context, flavor string, nodes, perNode int, bin, alg, after string) (*ClockcheckReport, error) {
	cmd, err := c.MPIRun(ctx, flavor, nodes, perNode, bin, "clockcheck", "--alg", alg, "--after", after, "--json", "--per-rank")
	if err != nil {
		return nil, err
	}
	var so, se bytes.Buffer
	cmd.Stdout, cmd.Stderr = &so, &se
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("vcluster: %s %dx%d clockcheck %s: %v (ctx: %v)\n%s", flavor, nodes, perNode, alg, err, ctx.Err(), tail(se.String()))
	}
	var r ClockcheckReport
	if err := json.Unmarshal(so.Bytes(), &r); err != nil {
		return nil, fmt.Errorf("vcluster: clockcheck output: %v\n%s", err, tail(so.String()))
	}
	if r.Ranks != nodes*perNode {
		return nil, fmt.Errorf("vcluster: clockcheck ran %d ranks, want %d", r.Ranks, nodes*perNode)
	}
	return &r, nil
}

func tail(s string) string {
	const n = 3000
	s = strings.TrimSpace(s)
	if len(s) > n {
		return "…" + s[len(s)-n:]
	}
	return s
}
