package mpi

import (
	"fmt"

	"github.com/reprobench/reprobench/timing"
)

// ObserveGo executes an observation through the methods of c, in Go. It is
// the reference semantics of Comm.Observe and the fallback of the real
// binding for clocks that C code cannot read (timing.SourceNone, such as a
// timing.Skewed clock). Being driven from Go, it may be rescheduled between
// the wait and the call: prefer a clock with a C-readable Source for
// measurements. o must already be validated.
func ObserveGo(c Comm, o *Observation, clk timing.Clock) error {
	if op := o.Call.Op(); op != nil && op.Go == nil { // nbc: no Go path
		return errNoGoPath(o)
	}
	if err := syncGo(c, o, clk); err != nil {
		return err
	}
	if o.NoCall {
		o.End = clk.Now()
		return nil
	}
	reps := max(o.Reps, 1)
	if o.TimeEach {
		var sum timing.Ticks
		for i := range reps {
			o.CallIndex = i
			t0 := clk.Now()
			err := callGo(c, o)
			sum += clk.Now() - t0
			if err == nil && o.Call.EachBarrier() {
				err = c.Barrier()
			}
			if err != nil {
				o.End = o.Start + sum
				return err
			}
		}
		o.End = o.Start + sum
		return nil
	}
	for i := range reps {
		o.CallIndex = i
		if err := callGo(c, o); err != nil {
			o.End = clk.Now()
			return err
		}
	}
	o.End = clk.Now()
	return nil
}

func observeGo(c Comm, o *Observation, clk timing.Clock) error { return ObserveGo(c, o, clk) }

// ObserveFunc times the caller's own code instead of a built-in call: the
// wait of o (o.Sync, o.Deadline), o.Start, work(), o.End, reading clk. It
// has the semantics of Observe and runs in Go, so the scheduler may
// intervene between the wait and the start timestamp: the price of timing
// arbitrary Go code. o.Call and the buffers are ignored.
func ObserveFunc(c Comm, o *Observation, clk timing.Clock, work func() error) error {
	if err := syncGo(c, o, clk); err != nil {
		return err
	}
	err := work()
	o.End = clk.Now()
	return err
}

// BatchObserver is implemented by communicators that can execute a batch of
// observations in one step. The real binding does it in a single cgo call:
// a program that returns to the Go runtime between observations pays for it
// in the tail of the distribution (measured on a loaded 2-core VM: an 8-byte
// ping-pong's p99 was 40–65 µs driven from Go and 1.3 µs in one C loop,
// BenchmarkPingPong).
type BatchObserver interface {
	// ObserveBatch runs len(starts) observations of o back to back and
	// writes the i-th one's timestamps to starts[i] and ends[i]. With
	// o.Sync == SyncDeadline the i-th waits for deadlines[i]; otherwise
	// deadlines is ignored and may be nil. o.Start, o.End (and o.Deadline)
	// are left as those of the last completed observation.
	ObserveBatch(o *Observation, clk timing.Clock, deadlines, starts, ends []timing.Ticks) error
}

// ObserveBatch runs a batch of observations through c's BatchObserver
// implementation when it has one, and otherwise one Observe at a time with
// the same semantics. Every rank must call it with the same batch length.
func ObserveBatch(c Comm, o *Observation, clk timing.Clock, deadlines, starts, ends []timing.Ticks) error {
	if b, ok := c.(BatchObserver); ok {
		return b.ObserveBatch(o, clk, deadlines, starts, ends)
	}
	if err := checkBatch(o, deadlines, starts, ends); err != nil {
		return err
	}
	if err := o.Validate(c.Size()); err != nil {
		return &Error{Func: "ObserveBatch", Code: -1, Msg: err.Error()}
	}
	return observeEach(c, o, clk, deadlines, starts, ends, c.Observe)
}

// observeBatchGo is the Go path of a batch, for clocks C cannot read.
func observeBatchGo(c Comm, o *Observation, clk timing.Clock, deadlines, starts, ends []timing.Ticks) error {
	return observeEach(c, o, clk, deadlines, starts, ends, func(o *Observation, clk timing.Clock) error {
		return ObserveGo(c, o, clk)
	})
}

func observeEach(c Comm, o *Observation, clk timing.Clock, deadlines, starts, ends []timing.Ticks,
	observe func(*Observation, timing.Clock) error) error {
	// One observation at a time: Offsets and Flush are applied here, and
	// hidden from observe (Observe ignores them, and the offsets would not
	// fit the shifted buffers).
	send, recv, offs, flush := o.Send, o.Recv, o.Offsets, o.Flush
	o.Offsets, o.Flush = nil, nil
	defer func() { o.Send, o.Recv, o.Offsets, o.Flush = send, recv, offs, flush }()
	for i := range starts {
		if o.Sync == SyncDeadline {
			o.Deadline = deadlines[i]
		}
		if offs != nil {
			o.Send, o.Recv = send[offs[i]:], recv[offs[i]:]
		}
		if flush != nil {
			flushCaches(flush)
		}
		if err := observe(o, clk); err != nil {
			return err
		}
		starts[i], ends[i] = o.Start, o.End
	}
	return nil
}

func checkBatch(o *Observation, deadlines, starts, ends []timing.Ticks) error {
	if len(ends) != len(starts) {
		return &Error{Func: "ObserveBatch", Code: -1, Msg: "starts and ends differ in length"}
	}
	if o.Sync == SyncDeadline && len(deadlines) < len(starts) {
		return &Error{Func: "ObserveBatch", Code: -1, Msg: "fewer deadlines than observations"}
	}
	if o.Offsets != nil && len(o.Offsets) < len(starts) {
		return &Error{Func: "ObserveBatch", Code: -1, Msg: "fewer offsets than observations"}
	}
	return nil
}

// syncGo performs the wait of o and sets o.Start.
func syncGo(c Comm, o *Observation, clk timing.Clock) error {
	switch o.Sync {
	case SyncBarrier:
		if err := c.Barrier(); err != nil {
			return err
		}
	case SyncDoubleBarrier:
		if err := c.Barrier(); err != nil {
			return err
		}
		if err := c.Barrier(); err != nil {
			return err
		}
	case SyncDissemination:
		if err := disseminationBarrier(c); err != nil {
			return err
		}
	}
	t := clk.Now()
	if o.Sync == SyncDeadline {
		for t < o.Deadline {
			t = clk.Now()
		}
	}
	o.Start = t
	return nil
}

// tagDissemination is the tag disseminationBarrier uses in Go (reserved:
// see TagReserved).
const tagDissemination = TagInternal - 1

// disseminationBarrier is a dissemination barrier (Hensgen, Finkel and Manber
// 1988) built from point-to-point messages: in round k every rank sends a
// zero-byte message to (rank + 2^k) mod p and receives one from
// (rank − 2^k) mod p; after ⌈log2 p⌉ rounds every rank has (transitively)
// heard from every other. It uses tag tagDissemination.
func disseminationBarrier(c Comm) error {
	p, r := c.Size(), c.Rank()
	for d := 1; d < p; d <<= 1 {
		if err := c.Sendrecv(nil, (r+d)%p, tagDissemination, nil, (r-d+p)%p, tagDissemination); err != nil {
			return err
		}
	}
	return nil
}

// goC is the Go reference semantics (Op.Go) of the rows whose call the
// Comm interface cannot express (the vcoll rows): the binding's own C
// entry, run once without timestamps (callOncer); other communicators
// cannot run them.
func goC(c Comm, o *Observation) error {
	if x, ok := c.(callOncer); ok {
		return x.callOnce(o)
	}
	return &Error{Func: o.Call.String(), Code: -1, Msg: fmt.Sprintf("this communicator (%T) cannot execute %v", c, o.Call)}
}

// callGo executes o's call once: the row's Go reference semantics
// (Op.Go), or a refusal for the calls that run only in C.
func callGo(c Comm, o *Observation) error {
	op := o.Call.Op()
	if op == nil {
		return &Error{Func: "Observe", Code: -1, Msg: "invalid call " + o.Call.String()}
	}
	if op.Go == nil {
		return errNoGoPath(o)
	}
	return op.Go(c, o)
}
