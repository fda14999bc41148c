package clocksync

import (
	"fmt"
	"time"

	"github.com/reprobench/reprobench/mpi"
)

// Message tags used by this package: mpi.TagClockSync and the next ones,
// inside the range mpi reserves for reprobench's packages; every exchange of
// a phase uses its own tag.
const (
	tagPing     = mpi.TagClockSync + iota // reference → client: SKaMPI / Netgauge command [cmd, value]
	tagPong                               // client → reference: a timestamp
	tagExchange                           // client → reference: JK / RTT request
	tagReply                              // reference → client: JK / RTT reply (reference timestamp)
	tagRTT                                // client → reference: the estimated RTT
	tagModels                             // client → reference: a subtree's models (bottom-up tree)
	tagBound                              // parent → child: the parent's predicted bound (top-down tree)
)

// Link is one measuring edge between a reference rank and a client rank, as
// seen by one of the two. Both ranks construct the same link (same Comm,
// Ref and Client) with their own Now and call the same methods in the same
// order; the client learns its clock relative to the reference.
type Link struct {
	Comm   mpi.Comm
	Ref    int // rank of the reference clock in Comm
	Client int // rank of the clock being modelled in Comm
	// Now returns this rank's time in seconds for this link: the raw local
	// clock, or an already-global clock (a parent in HCA3 serves its global
	// time; the accuracy harness compares global clocks).
	Now func() float64
	// RTT is the round-trip time in seconds estimated for this link (Alg. 17),
	// set by OffsetMeasurer.Prepare on both ranks before it is used. It is
	// zero until then; measurers that need it estimate it first (the
	// reference implementations used it before measuring it).
	RTT float64
	// Sleep pauses the calling rank (Spread spaces its fit points with it);
	// nil keeps a real rank exchanging through the interval instead (see
	// Spread). In simulation it is the rank's virtual sleep.
	Sleep func(time.Duration)

	scratchLocal, scratchDiff []float64 // JKPingPong's buffers
	scratchSent               []float64
	scratchIdx                []int

	// serial, when set, is how a Spread learner shares the budget and the
	// target: the synchronization runs serial links one after the other
	// and a rank's error is the sum of path links' errors. Zero means a
	// tree's ⌈log2 P⌉ for both.
	serial, path int
}

// IsRef reports whether the calling rank is the link's reference.
func (l *Link) IsRef() bool { return l.Comm.Rank() == l.Ref }

// IsClient reports whether the calling rank is the link's client.
func (l *Link) IsClient() bool { return l.Comm.Rank() == l.Client }

func (l *Link) check() error {
	p := l.Comm.Size()
	me := l.Comm.Rank()
	switch {
	case l.Ref < 0 || l.Ref >= p || l.Client < 0 || l.Client >= p:
		return fmt.Errorf("clocksync: link %d→%d outside a communicator of %d ranks", l.Client, l.Ref, p)
	case l.Ref == l.Client:
		return fmt.Errorf("clocksync: link from rank %d to itself", l.Ref)
	case me != l.Ref && me != l.Client:
		return fmt.Errorf("clocksync: rank %d is not an end of link %d→%d", me, l.Client, l.Ref)
	}
	return nil
}

// Sample is one fit point: the offset of the client's clock to the
// reference's clock, Offset = client − reference in seconds, valid at client
// time Local (seconds). Hunold & Carpen-Amarie 2016 calls the pair (xfit, yfit).
type Sample struct {
	Local  float64
	Offset float64
	// Bound, when positive, bounds |Offset − true offset| by causality
	// alone: the half-width of the interval of offsets consistent with the
	// exchanges' timestamps (SKaMPI's intersected bounds; half the RTT of
	// a single exchange; for JK's median exchange, RTT/2-corrected with
	// the estimated RTT, the larger of that half and the rest of the
	// exchange's own RTT). 0: unknown. A negative
	// Bound flags contradictory timestamps (SKaMPI's bounds do not
	// intersect): the offset is not trustworthy.
	Bound float64
	// RTT is the smallest round-trip time of the exchanges the sample
	// comes from, seconds; 0 when not timed.
	RTT float64
}

// counter wraps a Comm and counts the point-to-point messages and collective
// calls the calling rank makes through it (and through communicators derived
// from it), to report what a synchronization cost.
type counter struct {
	mpi.Comm
	n *counts
}

type counts struct {
	sent        int64 // point-to-point messages sent
	collectives int64 // collective calls
}

func newCounter(c mpi.Comm) *counter { return &counter{Comm: c, n: new(counts)} }

func (c *counter) wrap(d mpi.Comm, err error) (mpi.Comm, error) {
	if d == nil || err != nil {
		return d, err
	}
	return &counter{Comm: d, n: c.n}, nil
}

func (c *counter) Send(buf []byte, dest, tag int) error {
	c.n.sent++
	return c.Comm.Send(buf, dest, tag)
}

func (c *counter) Sendrecv(sb []byte, dest, st int, rb []byte, src, rt int) error {
	c.n.sent++
	return c.Comm.Sendrecv(sb, dest, st, rb, src, rt)
}

func (c *counter) SendFloat64(v float64, dest, tag int) error {
	c.n.sent++
	return c.Comm.SendFloat64(v, dest, tag)
}

func (c *counter) SendInt64(v int64, dest, tag int) error {
	c.n.sent++
	return c.Comm.SendInt64(v, dest, tag)
}

func (c *counter) Isend(buf []byte, dest, tag int) (mpi.Request, error) {
	c.n.sent++
	return c.Comm.Isend(buf, dest, tag)
}

func (c *counter) Barrier() error { c.n.collectives++; return c.Comm.Barrier() }

func (c *counter) Bcast(buf []byte, count int, dt mpi.Datatype, root int) error {
	c.n.collectives++
	return c.Comm.Bcast(buf, count, dt, root)
}

func (c *counter) Reduce(s, r []byte, count int, dt mpi.Datatype, op mpi.ReduceOp, root int) error {
	c.n.collectives++
	return c.Comm.Reduce(s, r, count, dt, op, root)
}

func (c *counter) Allreduce(s, r []byte, count int, dt mpi.Datatype, op mpi.ReduceOp) error {
	c.n.collectives++
	return c.Comm.Allreduce(s, r, count, dt, op)
}

func (c *counter) Gather(s, r []byte, count int, dt mpi.Datatype, root int) error {
	c.n.collectives++
	return c.Comm.Gather(s, r, count, dt, root)
}

func (c *counter) Scatter(s, r []byte, count int, dt mpi.Datatype, root int) error {
	c.n.collectives++
	return c.Comm.Scatter(s, r, count, dt, root)
}

func (c *counter) Allgather(s, r []byte, count int, dt mpi.Datatype) error {
	c.n.collectives++
	return c.Comm.Allgather(s, r, count, dt)
}

func (c *counter) Split(color, key int) (mpi.Comm, error) { return c.wrap(c.Comm.Split(color, key)) }

func (c *counter) Sub(ranks []int) (mpi.Comm, error) { return c.wrap(c.Comm.Sub(ranks)) }

func (c *counter) SplitShared() (mpi.Comm, error) { return c.wrap(c.Comm.SplitShared()) }

// NodeSize answers mpi.NodeSize for the wrapped communicator, which may
// know its nodes itself (mpitest's simulated nodes); one collective.
func (c *counter) NodeSize() (int, error) { c.n.collectives++; return mpi.NodeSize(c.Comm) }
