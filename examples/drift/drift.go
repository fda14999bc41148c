package main

import (
	"fmt"
	"io"
	"time"

	"github.com/reprobench/reprobench/clocksync"
	"github.com/reprobench/reprobench/mpi"
	"github.com/reprobench/reprobench/timing"
)

// Options configure the experiment.
type Options struct {
	Syncs []string // clock synchronizations to compare; "none" leaves the clocks raw

	// The skew injected on rank SkewRank (0 < SkewRank < P): its clock runs
	// SkewPPM parts per million fast and starts SkewOffset ahead.
	SkewRank   int
	SkewPPM    float64
	SkewOffset time.Duration

	After []time.Duration     // when to measure the offsets after each synchronization
	Sleep func(time.Duration) // how rank 0 waits between measurements (nil: time.Sleep)

	// Real MPI: Mono is the CLOCK_MONOTONIC the raw clock reads, and
	// NodeSkew the node's drift on top of it (clocksync.NodeSkew; nil
	// where none is set). Where every rank runs on one kernel (one host,
	// or the namespaced nodes of a virtual cluster, internal/vcluster),
	// every check also computes the exact error of each global clock
	// (clocksync.Harness.ShareHostClock), which the ping-pong measurement
	// only estimates.
	Mono     *timing.Monotonic
	NodeSkew *timing.Skewed

	// Simulation only (mpitest): the ground truth of the raw clocks, so
	// that the harness also reports the true error of every global clock.
	TrueNow func() float64
	ClockAt func(rank int, trueTime float64) timing.Ticks
}

// Series is the outcome for one synchronization, on rank 0.
type Series struct {
	Sync   string
	Checks []clocksync.Check // one per Options.After
	// Bound is the synchronization's stated bound on every rank's error
	// (clocksync.Result.Bound on rank 0: the largest over the ranks), and
	// BoundAt its value at each check, seconds: at the check's Elapsed plus
	// the time from the synchronization's end to the first check's start.
	// Unknown (BoundAt NaN) for "none" and wherever the synchronization
	// states none.
	Bound   clocksync.Bound
	BoundAt []float64
}

// Drift runs the experiment collectively on c. Every rank passes its raw
// clock; rank SkewRank wraps it in a timing.Skewed. For each synchronization
// it synchronizes (none: identity models), then measures every rank's offset
// to rank 0 in global time at the times Options.After (Hunold &
// Carpen-Amarie 2016, Algorithm 20, with clocksync.Harness; with "none" it is
// the raw clock drift of Algorithm 18). Rank 0 gets the series, the others nil.
func Drift(c mpi.Comm, raw timing.Clock, o Options) ([]Series, error) {
	if o.SkewRank <= 0 || o.SkewRank >= c.Size() {
		return nil, fmt.Errorf("drift: skew rank %d must be in [1, %d)", o.SkewRank, c.Size())
	}
	// The skew rank 1 sees: a known offset and drift on top of its raw clock.
	skew := &timing.Skewed{Base: raw, Offset: raw.Freq().Ticks(o.SkewOffset), DriftPPM: o.SkewPPM}
	clk := raw
	if c.Rank() == o.SkewRank {
		clk = skew
	}
	var shared clocksync.Harness // SharedNow and LocalAtShared, or nil
	if o.Mono != nil {
		var rankSkew *timing.Skewed
		if c.Rank() == o.SkewRank {
			rankSkew = skew
		}
		if _, err := shared.ShareHostClock(c, o.Mono, o.NodeSkew, rankSkew); err != nil {
			return nil, err
		}
	}
	var out []Series
	for _, spec := range o.Syncs {
		g := clocksync.NewGlobalClock(clk) // identity until synchronized
		var models []clocksync.Model
		bound := clocksync.Bound{Unknown: true, Why: "no synchronization"}
		var synced timing.Ticks // rank 0's raw clock at the synchronization's end
		if spec != "none" {
			sp, err := clocksync.ParseSpec(spec)
			if err != nil {
				return nil, err
			}
			alg, err := sp.New()
			if err != nil {
				return nil, err
			}
			var so clocksync.SyncOptions
			if o.TrueNow != nil {
				so.Sleep = o.Sleep // simulation: the Spread learner sleeps in virtual time
			}
			res, err := alg.SyncWith(c, g, so)
			if c.Rank() == 0 {
				synced = raw.Now()
			}
			if err != nil {
				return nil, err
			}
			models, bound = res.Models(), res.Bound
		} else if c.Rank() == 0 {
			models = make([]clocksync.Model, c.Size()) // identity for every rank
		}
		h := &clocksync.Harness{After: o.After, Sleep: o.Sleep, SharedNow: shared.SharedNow, LocalAtShared: shared.LocalAtShared}
		if o.TrueNow != nil && c.Rank() == 0 {
			// Ground truth of the clocks the synchronization saw: the
			// simulated raw clock, skewed on the skew rank.
			h.TrueNow, h.Models = o.TrueNow, models
			h.ClockAt = func(r int, t float64) timing.Ticks {
				if r == o.SkewRank {
					return skew.Skew(o.ClockAt(r, t))
				}
				return o.ClockAt(r, t)
			}
		}
		// The checks' Elapsed counts from Run's start; the bound's from the
		// synchronization's end (SyncWith's return, on rank 0's raw clock).
		var gap float64
		if c.Rank() == 0 {
			gap = raw.Freq().Seconds(raw.Now() - synced)
		}
		checks, err := h.Run(c, g)
		if err != nil {
			return nil, err
		}
		s := Series{Sync: spec, Checks: checks, Bound: bound}
		for _, ck := range checks { // rank 0's checks; none elsewhere
			s.BoundAt = append(s.BoundAt, bound.At(ck.Elapsed+gap))
		}
		out = append(out, s)
	}
	if c.Rank() != 0 {
		return nil, nil
	}
	return out, nil
}

// Print writes the table: one line per check, one column per
// synchronization, the skew rank's offset to rank 0 in global time in µs
// (and the true error in simulation).
func Print(w io.Writer, series []Series, o Options) {
	fmt.Fprintf(w, "offset of rank %d to rank 0 in global time, µs (measured with 10 SKaMPI ping-pongs per check)\n", o.SkewRank)
	if len(series) > 0 && len(series[0].Checks) > 0 && series[0].Checks[0].TrueOffsets != nil {
		fmt.Fprintln(w, "(true): the exact error, from the simulation's ground truth or the one clock the ranks of a kernel share (one host, or a virtual cluster's nodes)")
	}
	fmt.Fprintf(w, "%-8s", "after_s")
	for _, s := range series {
		fmt.Fprintf(w, " %14s", short(s.Sync))
		if s.Checks[0].TrueOffsets != nil {
			fmt.Fprintf(w, " %14s", "(true)")
		}
	}
	fmt.Fprintln(w)
	for i := range o.After {
		fmt.Fprintf(w, "%-8.1f", series[0].Checks[i].After.Seconds())
		for _, s := range series {
			ck := s.Checks[i]
			fmt.Fprintf(w, " %14.3f", ck.Offsets[o.SkewRank]*1e6)
			if ck.TrueOffsets != nil {
				fmt.Fprintf(w, " %14.3f", ck.TrueOffsets[o.SkewRank]*1e6)
			}
		}
		fmt.Fprintln(w)
	}
	for _, s := range series {
		if s.Bound.Unknown {
			fmt.Fprintf(w, "%s: no bound stated: %s\n", short(s.Sync), s.Bound)
			continue
		}
		fmt.Fprintf(w, "%s: stated bound %s; at the checks, µs:", short(s.Sync), s.Bound)
		for _, b := range s.BoundAt {
			fmt.Fprintf(w, " %.3f", b*1e6)
		}
		fmt.Fprintln(w)
	}
}

// short is the algorithm's name without its parameters.
func short(spec string) string {
	for i, c := range spec {
		if c == ':' {
			return spec[:i]
		}
	}
	return spec
}
