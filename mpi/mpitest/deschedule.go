package mpitest

import (
	"fmt"
	"time"
)

// Deschedule models ranks that lose their CPU while they wait for a
// message, as the ranks of an MPI library that yields when idle (Open MPI's
// mpi_yield_when_idle, a sched_yield in the progress loop) do on a machine
// with more runnable tasks than cores: another task takes the core and the
// rank runs again only when the scheduler gives it back.
//
// Whenever a receive of a descheduled rank completes after the rank had to
// wait for it (the message arrived after the rank posted the receive and
// blocked), the rank resumes, with probability Prob, Wait later than the
// message's arrival, Wait drawn uniform in [Min, Max]. The delay falls on
// one direction of an exchange, after the message arrived: a ping-pong's
// round-trip time grows by it and its midpoint moves by half of it, which no
// filter on round-trip times removes once every exchange is delayed. A
// receive whose message was already there costs nothing (the rank did not
// yield). Which receives are delayed and by how much is a function of
// Config.Seed, the rank and the count of its delayed-or-not receives.
//
// The zero value (Prob 0) deschedules nothing. Rank.CPUWait (and the
// CPUWait method of the rank's communicators) reports the time a rank lost
// so, the ground truth a detector of descheduling is judged against.
type Deschedule struct {
	// Prob is the probability that a waiting receive resumes late, in
	// [0, 1].
	Prob float64
	// Min and Max bound the wait (default 0.5 ms and 4 ms: a scheduler
	// time slice of a busy task).
	Min, Max time.Duration
	// Ranks lists the world ranks that are descheduled; nil means every
	// rank.
	Ranks []int
}

// Defaults of Deschedule.
const (
	defaultDescheduleMin = 500 * time.Microsecond
	defaultDescheduleMax = 4 * time.Millisecond
)

const domDeschedule uint64 = 0x6465736368 // "desch": a stream of its own

// check validates d for a world of n ranks.
func (d Deschedule) check(n int) error {
	if !(d.Prob >= 0 && d.Prob <= 1) {
		return fmt.Errorf("mpitest: Deschedule.Prob = %v, want [0, 1]", d.Prob)
	}
	if d.Min < 0 || d.Max < 0 || (d.Max > 0 && d.Min > d.Max) {
		return fmt.Errorf("mpitest: Deschedule wait [%v, %v]: want 0 ≤ Min ≤ Max", d.Min, d.Max)
	}
	for _, r := range d.Ranks {
		if r < 0 || r >= n {
			return fmt.Errorf("mpitest: Deschedule.Ranks has rank %d, world of %d", r, n)
		}
	}
	return nil
}

// descheduler is a resolved Deschedule for one rank, in seconds.
type descheduler struct {
	prob, lo, hi float64
	seed         uint64
	rank         int
	n            uint64 // waiting receives so far
}

func newDescheduler(d Deschedule, seed uint64, rank int) *descheduler {
	if d.Prob <= 0 {
		return nil
	}
	if d.Ranks != nil {
		in := false
		for _, r := range d.Ranks {
			in = in || r == rank
		}
		if !in {
			return nil
		}
	}
	lo, hi := d.Min, d.Max
	if lo == 0 && hi == 0 {
		lo, hi = defaultDescheduleMin, defaultDescheduleMax
	}
	return &descheduler{prob: d.Prob, lo: lo.Seconds(), hi: max(hi, lo).Seconds(), seed: seed, rank: rank}
}

// wait returns the delay of the next waiting receive, seconds (0: none).
func (d *descheduler) wait() float64 {
	k := d.n
	d.n++
	h := hash4(d.seed, domDeschedule, uint64(d.rank), k)
	if unit(h) >= d.prob {
		return 0
	}
	return d.lo + (d.hi-d.lo)*unit(mix(h^0x2545f4914f6cdd1d))
}

// CPUWait returns the virtual time the rank lost to Config.Deschedule so
// far, and how many times it lost its CPU. Only the rank's own goroutine
// may call it.
func (r *Rank) CPUWait() (time.Duration, int64) {
	return time.Duration(r.cpuWait * 1e9), r.cpuWaits
}

// CPUWait is Rank.CPUWait of the communicator's rank:
// the interface (clocksync.CPUWaiter) through which clocksync learns,
// without importing this package, how long a simulated rank waited for a
// CPU. Only the rank's own goroutine may call it.
func (c *comm) CPUWait() (lost time.Duration, waits int64) { return c.r.CPUWait() }
