package reprobench

import (
	"fmt"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/reprobench/reprobench/clocksync"
	"github.com/reprobench/reprobench/mpi"
	"github.com/reprobench/reprobench/rawdata"
	"github.com/reprobench/reprobench/timing"
)

// bcastString broadcasts s from rank root (collective).
func bcastString(c mpi.Comm, s string, root int) (string, error) {
	n := []int64{int64(len(s))}
	if err := mpi.Bcast(c, n, root); err != nil {
		return "", err
	}
	b := make([]byte, n[0])
	copy(b, s)
	if err := mpi.Bcast(c, b, root); err != nil {
		return "", err
	}
	return string(b), nil
}

// processorNames returns every rank's MPI processor name on rank 0, and
// nil on the other ranks (collective). Before MPI is initialized (a
// simulated world) each rank reports the host name. A name is cut at 256
// bytes.
func processorNames(c mpi.Comm) ([]string, error) {
	var pn string
	if mpi.World() != nil { // MPI is initialized (Open MPI aborts the process before)
		pn, _ = mpi.ProcessorName()
	} else { // a simulated world: its ranks share this process's host
		pn, _ = os.Hostname()
	}
	return gatherNames(c, pn)
}

// nameBytes is the length to which gatherNames cuts a name.
const nameBytes = 256

// gatherNames returns every rank's name on rank 0, and nil on the other
// ranks (collective), each name cut at nameBytes and stripped of trailing
// NUL bytes. The traffic is net-symmetric: an allreduce of the names'
// 52-bit hashes (mpi.AllEqual) and, only when they differ, an allgather of
// nameBytes per rank. When every rank passed the same name (one host),
// each rank sends and holds O(1) bytes, not O(ranks). Unequal names pass as
// equal with probability about 2^-52 per pair (mpi.AllEqual).
func gatherNames(c mpi.Comm, name string) ([]string, error) {
	if len(name) > nameBytes {
		name = name[:nameBytes]
	}
	name = strings.TrimRight(name, "\x00")
	same, err := mpi.AllEqual(c, name)
	if err != nil {
		return nil, err
	}
	if same {
		if c.Rank() != 0 {
			return nil, nil
		}
		return slices.Repeat([]string{name}, c.Size()), nil
	}
	pbuf := make([]byte, nameBytes)
	copy(pbuf, name)
	all := make([]byte, nameBytes*c.Size())
	if err := mpi.Allgather(c, pbuf, all); err != nil {
		return nil, err
	}
	if c.Rank() != 0 {
		return nil, nil
	}
	names := make([]string, c.Size())
	for r := range names {
		names[r] = strings.TrimRight(string(all[nameBytes*r:nameBytes*(r+1)]), "\x00")
	}
	return names, nil
}

// resyncOptions configure newResync.
type resyncOptions struct {
	// Accuracy is the clock accuracy flag of "reprobench run"
	// (--clock-accuracy; clocksync.TargetText): "" or "auto" gives
	// every spec that names neither a target nor fixed counts the target
	// Default; "none" runs the published fixed counts of every spec; a
	// target ERROR@HORIZON (clocksync.ParseAccuracy, e.g. "1us@10s")
	// replaces every spec's.
	Accuracy string
	// Default is the target of "" and "auto" (clockAccuracy derives it
	// from the experiments; zero: the fixed counts).
	Default clocksync.Accuracy
	// Record, when not nil, receives every result on every rank, with the
	// reason of the synchronization.
	Record func(ex *Experiment, res *clocksync.Result, reason string)
	// Every is Options.ResyncEvery: a synchronization is considered before
	// an experiment only when this much time has passed since the last
	// (0: before every experiment).
	Every time.Duration
	// NoBound is what a windowed experiment does when the synchronization
	// in force stated no bound (applyNoBound); Fallback, when not nil,
	// receives every fallback on every rank.
	NoBound  NoBound
	Fallback func(fb *rawdata.ProcSyncFallback)
}

// newResync returns an engine.Resync that synchronizes g's clocks
// with each experiment's ClockSync spec (nothing for "none"), parsing each
// spec once with opt's target (resyncOptions). A spec that learns to a
// target is re-synchronized only when a clocksync.Resyncer says so (its
// predicted bound at the experiment's expected end would exceed the
// target), or when the previous experiment used another spec; a fixed-count
// spec whenever it is considered (before every experiment, or after
// opt.Every). After each synchronization the ranks agree (one Bcast)
// whether it stated a bound; while it did not, every windowed experiment
// falls back or is refused as opt.NoBound says (applyNoBound). It fails on
// a malformed opt.Accuracy.
func newResync(c mpi.Comm, g *clocksync.GlobalClock, opt resyncOptions) (func(ex *Experiment) error, error) {
	if a := strings.TrimSpace(opt.Accuracy); a != "" && !strings.EqualFold(a, "auto") && !strings.EqualFold(a, "none") {
		if _, err := clocksync.ParseAccuracy(a); err != nil {
			return nil, fmt.Errorf("reprobench: %w", err)
		}
	}
	resyncer := &clocksync.Resyncer{Clock: g.Base()}
	algs := map[string]*clocksync.Algorithm{}
	targets := map[string]clocksync.Accuracy{}
	last := ""
	noBound := "" // why the synchronization in force stated no bound; "" when it stated one
	var lastSync timing.Ticks
	synced := false
	var syncIfDue func(ex *Experiment) error
	resync := func(ex *Experiment) error {
		if ex.ClockSync == "none" || ex.ClockSync == "" {
			return nil
		}
		due, err := everyDue(c, g.Base(), synced, lastSync, opt.Every)
		if err != nil {
			return err
		}
		if due {
			if err := syncIfDue(ex); err != nil {
				return err
			}
			synced = true
			if opt.Every > 0 { // a clock read costs simulated time: only when it decides
				lastSync = g.Base().Now()
			}
		}
		fb, err := applyNoBound(ex, noBound, opt.NoBound)
		if fb != nil && opt.Fallback != nil {
			opt.Fallback(fb)
		}
		return err
	}
	syncIfDue = func(ex *Experiment) error {
		a, ok := algs[ex.ClockSync]
		if !ok {
			s, err := clocksync.ParseSpec(ex.ClockSync, clocksync.DefaultTarget(opt.Default), clocksync.TargetText(opt.Accuracy))
			if err != nil {
				return fmt.Errorf("reprobench: %w", err)
			}
			if a, err = s.New(); err != nil {
				return fmt.Errorf("reprobench: %w", err)
			}
			algs[ex.ClockSync], targets[ex.ClockSync] = a, s.Accuracy
		}
		reason := "before every experiment (fixed counts)"
		switch t := targets[ex.ClockSync]; {
		case last != "" && last != ex.ClockSync:
			reason = "the experiment's clock sync differs from the last one"
		case !t.IsZero(): // re-sync when the bound says so
			resyncer.Target = t
			due, why, err := resyncer.Due(c)
			if err != nil || !due {
				return err
			}
			reason = why
		}
		res, err := a.Sync(c, g)
		if err != nil {
			return err
		}
		// Rank 0's bound is unknown when any rank's is: every rank
		// takes its word, so that all run the same process sync.
		// An offset-only algorithm never states one; whoever chose it
		// for windows chose that.
		flag := []float64{0}
		if c.Rank() == 0 && res.Bound.Unknown && res.Bound.Why != clocksync.WhyOffsetOnly {
			flag[0] = 1
		}
		if err := mpi.Bcast(c, flag, 0); err != nil {
			return err
		}
		noBound = ""
		if flag[0] == 1 {
			noBound = "unknown on some rank"
			if res.Bound.Why != "" {
				noBound = res.Bound.Why
			}
		}
		if !targets[ex.ClockSync].IsZero() { // only a learned target asks the resyncer, and its clock read costs simulated time
			resyncer.Synced(res)
		}
		last = ex.ClockSync
		if opt.Record != nil {
			opt.Record(ex, res, reason)
		}
		return nil
	}
	return resync, nil
}

// everyDue reports whether opt.Every has passed on clk since the last
// synchronization at last (always before the first, and always when every is
// zero). Rank 0 decides on its own clock and broadcasts, so that every rank
// takes the same branch of the collective synchronization; it communicates
// only when every is positive.
func everyDue(c mpi.Comm, clk timing.Clock, synced bool, last timing.Ticks, every time.Duration) (bool, error) {
	if every <= 0 {
		return true, nil
	}
	v := []float64{1}
	if c.Rank() == 0 && synced && clk.Freq().Duration(clk.Now()-last) < every {
		v[0] = 0
	}
	if err := mpi.Bcast(c, v, 0); err != nil {
		return false, err
	}
	return v[0] != 0, nil
}
