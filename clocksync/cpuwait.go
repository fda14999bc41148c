package clocksync

import (
	"bytes"
	"fmt"
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

// ThreadCPUWait returns how long the calling OS thread has waited for a CPU
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
func ThreadCPUWait() (wait time.Duration, switches int64, ok bool) {
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

// Descheduling says why DeschedulingRule took a synchronization's bound
// away (Result.Descheduled).
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
	// Withheld is the bound the learners computed, which the
	// synchronization does not state (for comparing with a true error).
	Withheld Bound `json:"withheld_bound"`
}

// String says it in a sentence.
func (d *Descheduling) String() string {
	return fmt.Sprintf("rank %d waited for a CPU during %.0f %% of the synchronization (%s, %s per wait), and the fastest exchange of rank %d's link took %s (bound withheld: %v)",
		d.Rank, 100*d.Share, roundDur(d.CPUWait), roundDur(d.MeanWait), d.RTTRank, roundDur(d.SlowestRTT), d.Withheld)
}

// roundDur formats seconds as a duration rounded to 0.1 µs.
func roundDur(s float64) string {
	return time.Duration(s * 1e9).Round(100 * time.Nanosecond).String()
}

// The thresholds of DeschedulingRule.
const (
	// DescheduledShare is the share of its synchronization time a rank
	// may wait for a CPU before the rule looks at the exchanges.
	DescheduledShare = 0.1
	// DescheduledRTT is the fraction of a rank's mean wait for a CPU that
	// a link's smallest round-trip time must stay below for the link's
	// fastest exchanges to count as undisturbed.
	DescheduledRTT = 0.1
	// DescheduledMinWait is the mean wait for a CPU, in seconds, below
	// which a rank's waits are not taken for descheduling: a fifth of the
	// shortest time slice the scheduler takes from a busy task (0.5 ms,
	// mpitest.DefaultDescheduleMin). Shorter waits are the CPU handed back
	// and forth, as by an MPI library that yields when idle, and overlap a
	// message's flight instead of delaying its receipt by a time slice.
	DescheduledMinWait = 100e-6
	// DescheduledMajority is the share of its synchronization time above
	// which a rank's waits count however short they are: a rank that waited
	// for a CPU longer than it ran (more busy ranks than cores) had most of
	// its exchanges cut, and waits as long as the round trip itself bias
	// the fastest ones.
	DescheduledMajority = 0.5
)

// DeschedulingRule decides from the ranks' records (Result.PerRank)
// whether a synchronization's bound can be stated. It returns nil (state
// the bound) unless both
//
//   - some rank waited for a CPU during at least DescheduledShare of its
//     synchronization time (CPUWait over Duration), at least
//     DescheduledMinWait per wait on average unless the share was at least
//     DescheduledMajority, and
//   - the slowest of the links learned from timed exchanges had a smallest
//     round-trip time (FitStats.MinRTT) of at least DescheduledRTT times
//     the mean wait (CPUWait over CPUWaits) of such a rank,
//
// that is, unless ranks were descheduled and not even the fastest
// exchanges got through without a wait. It returns nil when no rank's
// CPUWait was measured and when no link was learned from exchanges (ranks
// of one node that read one counter, IntraCounter, learn nothing so).
//
// Why: a link's bound assumes that its fastest exchanges were undisturbed,
// so that the two directions of a ping-pong took about the same time
// (asymmetryShare of the smallest round-trip time). A rank that waits for a
// CPU while its message is in flight (an MPI library that yields when
// idle, a machine with more runnable tasks than cores) delays one
// direction of that exchange by up to a scheduler time slice. Sporadic
// waits only lengthen some exchanges, which the round-trip filter drops;
// when nearly every exchange waits, the fastest ones carry a wait too, the
// filter keeps them, and the fitted line is off by up to half the smallest
// round-trip time without its residuals showing it. The first condition
// alone would take the bound away on every busy machine, where busy-polling
// ranks still find undisturbed exchanges and their bounds hold.
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
		if rr.CPUWait == nil || !(rr.Duration > 0) || *rr.CPUWait < DescheduledShare*rr.Duration {
			continue
		}
		mean := *rr.CPUWait / float64(max(rr.CPUWaits, 1))
		if (mean < DescheduledMinWait && *rr.CPUWait < DescheduledMajority*rr.Duration) || rtt < DescheduledRTT*mean {
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
