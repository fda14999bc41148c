package clocksync

import (
	"bytes"
	"fmt"
	"math"
	"os"
	"strconv"
	"time"
)

// CPUWaiter is implemented by communicators that know how long the calling
// rank has waited for a CPU: CPUWait returns the time it lost so far and
// how many times it was switched back in, both cumulative (mpitest's simulated
// ranks with Config.Deschedule; the real binding does not implement it and
// SyncWith reads the operating system instead, see SyncOptions.CPUWait).
type CPUWaiter interface {
	CPUWait() (lost time.Duration, waits int64)
}

// threadCPUWait returns how long the calling OS thread has waited for a CPU
// while runnable, and how many times it was switched in, both
// cumulative since the thread started (Linux's /proc/thread-self/schedstat:
// run_delay and pcount; pcount also counts wake-ups from sleeps, which
// waited for nothing, so wait/switches underestimates the mean wait of a
// thread that also sleeps). ok is false
// where the kernel does not provide it (other systems; a kernel without
// CONFIG_SCHED_INFO). A thread that waits by sched_yield, as an MPI library
// that yields when idle does, is runnable while it waits, so its lost time
// shows here; one that blocks in the kernel (poll, futex) sleeps and does
// not. Two readings compare only on one thread: the caller locks its
// goroutine to its thread (runtime.LockOSThread; an MPI rank's goroutine is
// locked already).
func threadCPUWait() (wait time.Duration, switches int64, ok bool) {
	b, err := os.ReadFile("/proc/thread-self/schedstat")
	if err != nil {
		return 0, 0, false
	}
	f := bytes.Fields(b)
	if len(f) < 3 {
		return 0, 0, false
	}
	ns, err1 := strconv.ParseInt(string(f[1]), 10, 64)
	n, err2 := strconv.ParseInt(string(f[2]), 10, 64)
	if err1 != nil || err2 != nil {
		return 0, 0, false
	}
	return time.Duration(ns), n, true
}

// Descheduling says why DeschedulingRule found a synchronization's
// statistical bound unkeepable, and what the synchronization stated
// instead (Result.Descheduled).
type Descheduling struct {
	// Rank waited for a CPU during Share of its synchronization time,
	// CPUWait seconds in all, MeanWait seconds per time it was switched
	// back in.
	Rank     int     `json:"rank"`
	CPUWait  float64 `json:"cpu_wait_s"`
	Share    float64 `json:"cpu_wait_share"`
	MeanWait float64 `json:"mean_cpu_wait_s"`
	// SlowestRTT is the largest smallest round-trip time of the links
	// learned (FitStats.MinRTT), on the client rank RTTRank.
	SlowestRTT float64 `json:"slowest_min_rtt_s"`
	RTTRank    int     `json:"rtt_rank"`
	// Withheld is the statistical bound the learners computed, which the
	// synchronization does not state (for comparing with a true error).
	Withheld Bound `json:"withheld_bound"`
	// Action is what was stated instead: ActionCausal or ActionWithheld.
	Action string `json:"action"`
}

// What a descheduled synchronization states (Descheduling.Action).
const (
	// ActionCausal: the worst-case bound from the fit points' causality
	// intervals (CausalBound), which no delay of a message breaks.
	ActionCausal = "worst-case bound stated"
	// actionWithheld: no worst-case bound exists (a link without
	// causality intervals), so none is stated: unsynchronized.
	actionWithheld = "bound withheld: unsynchronized"
)

// String says it in a sentence.
func (d *Descheduling) String() string {
	act := d.Action
	if act == "" {
		act = actionWithheld
	}
	return fmt.Sprintf("rank %d waited for a CPU during %.0f %% of the synchronization (%s, %s per wait), and the fastest exchange of rank %d's link took %s (statistical bound %v not kept; %s)",
		d.Rank, 100*d.Share, roundDur(d.CPUWait), roundDur(d.MeanWait), d.RTTRank, roundDur(d.SlowestRTT), d.Withheld, act)
}

// roundDur formats seconds as a duration rounded to 0.1 µs.
func roundDur(s float64) string {
	return time.Duration(s * 1e9).Round(100 * time.Nanosecond).String()
}

// The thresholds of DeschedulingRule.
const (
	// descheduledShare is the share of its synchronization time a rank
	// may wait for a CPU before its synchronization counts as
	// descheduled.
	descheduledShare = 0.1
	// descheduledMinWait is the mean wait for a CPU, in seconds, below
	// which a rank's waits are not taken for descheduling: a fifth of the
	// shortest time slice the scheduler takes from a busy task (0.5 ms,
	// mpitest's least simulated descheduling). Shorter waits are the CPU handed back
	// and forth, as by an MPI library that yields when idle, and overlap a
	// message's flight instead of delaying its receipt by a time slice.
	descheduledMinWait = 100e-6
	// DescheduledMajority is the share of its synchronization time above
	// which a rank's waits count however short they are: a rank that waited
	// for a CPU longer than it ran (more busy ranks than cores) had most of
	// its exchanges cut, and waits as long as the round trip itself bias
	// the fastest ones.
	DescheduledMajority = 0.5
)

// DeschedulingRule decides from the ranks' records (Result.PerRank)
// whether a synchronization's statistical bound can be kept. It returns
// nil (keep it) unless some rank waited for a CPU during at least
// DescheduledShare of its synchronization time (CPUWait over Duration),
// at least DescheduledMinWait per wait on average unless the share was at
// least DescheduledMajority; then it describes the rank that waited the
// largest share. It returns nil when no rank's CPUWait was measured and
// when no link was learned from timed exchanges (ranks of one node that
// read one counter, IntraCounter, learn nothing so).
//
// Why: the statistical bound assumes that a link's fastest exchanges were
// undisturbed, so that the two directions of a ping-pong took about the
// same time (asymmetryShare of the smallest round-trip time). A rank that
// waits for a CPU while its message is in flight (an MPI library that
// yields when idle, a machine with more runnable tasks than cores) delays
// one direction of that exchange by up to a scheduler time slice; when
// many exchanges wait, the fastest ones carry a wait too, and the fitted
// line is off by up to half their round-trip time without its residuals
// showing it. Algorithm.SyncWith then states the worst-case bound
// (CausalBound), which holds however the exchanges were delayed.
func DeschedulingRule(records []RankRecord) *Descheduling {
	var rtt float64
	rttRank := -1
	for _, rr := range records {
		if rr.Rank != 0 && rr.Intra != IntraCounter && rr.MinRTT >= rtt {
			rtt, rttRank = rr.MinRTT, rr.Rank
		}
	}
	if rttRank < 0 {
		return nil
	}
	var worst *Descheduling
	for _, rr := range records {
		if rr.CPUWait == nil || !(rr.Duration > 0) || *rr.CPUWait < descheduledShare*rr.Duration {
			continue
		}
		mean := *rr.CPUWait / float64(max(rr.CPUWaits, 1))
		if mean < descheduledMinWait && *rr.CPUWait < DescheduledMajority*rr.Duration {
			continue
		}
		d := &Descheduling{Rank: rr.Rank, CPUWait: *rr.CPUWait, Share: *rr.CPUWait / rr.Duration, MeanWait: mean,
			SlowestRTT: rtt, RTTRank: rttRank}
		if worst == nil || d.Share > worst.Share {
			worst = d
		}
	}
	return worst
}

// CausalBound returns the worst-case bound of a synchronization from the
// ranks' records (Result.PerRank): the sum over ranks 1 … P−1 of their own
// links' worst-case bounds (RankRecord.Causal), AtSync and Slope each.
//
// Derivation: an exchange whose client sent at c1 and received the
// reference's reading tr at c2 confines the true offset to [c1 − tr,
// c2 − tr] whatever delayed either message (causality), so a fit point
// taken from it errs by at most its interval's half-width (Sample.Bound).
// A least-squares line is linear in its points' offsets, so its error is
// at most Σ|wᵢ|·eᵢ at any time, wᵢ the points' weights there (causalBound:
// an intercept term at the end of the fit and a slope term per second
// after it). A rank's model chains its own link's model and its
// reference's (HCA3's tree, two-level's levels) or merges the links on
// its path (HCA, Netgauge), whose errors add; every path uses each link at
// most once, so the sum over all links bounds every rank. A rank whose
// node provably reads one counter (IntraCounter) adds one tick. It is
// unknown when a rank's own link has no worst-case bound (an offset-only
// learner, a fit point without causality interval, fewer than three fit
// points).
func CausalBound(records []RankRecord) Bound {
	var b Bound
	for _, rr := range records {
		if rr.Rank == 0 {
			continue
		}
		c := rr.Causal
		if c.Unknown || !(c.AtSync > 0) || math.IsNaN(c.Slope) || math.IsInf(c.AtSync+c.Slope, 0) {
			why := c.Why
			if why == "" || !c.Unknown {
				why = whyNoCausal
			}
			return unknown(why)
		}
		b.AtSync += c.AtSync
		b.Slope += c.Slope
	}
	return b
}
