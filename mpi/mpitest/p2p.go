package mpitest

import (
	"fmt"
	"sync"

	"github.com/reprobench/reprobench/mpi"
)

// Bandwidth and one-sided calls (mpi/p2p.go gives their semantics). The bandwidth calls are built from the model's
// messages, as the binding builds them from MPI's:
//
//	bw, mbw_mr  sender: BWWindow messages of n bytes (each occupies the
//	            sender for n/BytesPerSecond), then a zero-byte
//	            acknowledgement from the receiver; receiver: BWWindow
//	            receives (its ingress takes one message at a time), then
//	            the acknowledgement. With a fixed latency L and no jitter a
//	            window costs the sender w·n/B + 2L.
//	bibw        both ranks send BWWindow messages, then receive BWWindow:
//	            w·n/B + L on each.
//
// One-sided operations are modelled simply, with no contention and no
// involvement of the target's CPU (a passive target computes on while
// origins access its window). The data moves at the origin's call, under
// the target window's lock, into or out of the target's window memory
// (created by Prepare, n bytes per rank, zeroed). In time, with L(a→b) a
// latency drawn from the link model (Latency, own sequence numbers) and B
// the link's bandwidth, each operation costs the origin one round trip
// and the transfer:
//
//	Put, Accumulate  n/B + L(origin→target) + L(target→origin)  (data, completion)
//	Get              L(origin→target) + n/B + L(target→origin)  (request, data)
//
// and the synchronization adds:
//
//	fence  a dissemination barrier of the model before and after, on every rank;
//	lock   one more round trip before the operation, L(o→t) + L(t→o) (lock
//	       request and grant); the unlock is the operation's completion;
//	flush  nothing (lock_all is taken at Prepare; the flush is the
//	       operation's completion).
//
// So with a fixed latency L and no jitter one call costs the origin
// n/B + 2L (flush), n/B + 4L (lock), and, with 2 ranks that enter
// together, n/B + 3L (fence: barrier L, operation, the target already
// waits in the closing barrier); the target leaves the closing fence at
// n/B + 4L.

// Internal tags of the bandwidth calls' messages (collective context).
const (
	tagBW    int32 = 0x7020
	tagBWAck int32 = 0x7021
)

// p2pPrep is what Prepare created for a bandwidth or one-sided call on one
// rank's communicator.
type p2pPrep struct {
	call   mpi.Call
	window int         // bw: messages per window
	rs     mpi.RMASync // one-sided
	win    *rmaWin     // this rank's window (one-sided)
	seq    uint64      // latency draws of one-sided operations
}

// rmaWin is one rank's part of an RMA window.
type rmaWin struct {
	mu  sync.Mutex
	buf []byte
}

type winKey struct {
	w    *World
	ctx  uint64
	rank int // world rank
}

// p2pPreps maps a *comm to its *p2pPrep, rmaWins a winKey to its *rmaWin:
// package-level so that the communicator and world types need no field
// for them. Entries live from Prepare to its release.
var p2pPreps, rmaWins sync.Map

func (c *comm) prep() *p2pPrep {
	v, ok := p2pPreps.Load(c)
	if !ok {
		return nil
	}
	return v.(*p2pPrep)
}

// prepareP2P creates the resources of a bandwidth or one-sided call:
// nothing for the bandwidth calls but the record of the window (the model
// needs no requests), and the RMA window for the one-sided ones
// (collective: a barrier after every rank registered its part, and one in
// the release before they are dropped).
func (c *comm) prepareP2P(o *mpi.Observation) (func() error, error) {
	const fn = "Prepare"
	if err := o.Validate(c.size); err != nil {
		return nil, &mpi.Error{Func: fn, Code: -1, Msg: err.Error()}
	}
	if c.prep() != nil {
		return nil, &mpi.Error{Func: fn, Code: -1, Msg: fmt.Sprintf("%v: the communicator still holds the resources of an earlier Prepare (release it first)", o.Call)}
	}
	// The latency draws continue from the rank's message count, so that
	// successive experiments do not repeat them.
	st := &p2pPrep{call: o.Call, window: o.Window(), rs: o.RMASync, seq: uint64(c.r.msgs.Load()) << 24}
	key := winKey{w: c.r.w, ctx: c.ctx, rank: c.r.id}
	if o.Call.OneSided() {
		st.win = &rmaWin{buf: make([]byte, o.Count*o.Type.Size())}
		rmaWins.Store(key, st.win)
		if err := c.dissemination(tagBarrier, "MPI_Win_allocate"); err != nil {
			rmaWins.Delete(key)
			return nil, err
		}
	}
	p2pPreps.Store(c, st)
	return func() error {
		p2pPreps.Delete(c)
		if st.win == nil {
			return nil
		}
		err := c.dissemination(tagBarrier, "MPI_Win_free")
		rmaWins.Delete(key)
		return err
	}, nil
}

// RMAWindow returns this rank's part of the prepared window, or nil
// (package mpi asks a communicator for it through an interface). Read
// it only when no origin can access it (after a barrier that follows
// the last observation).
func (c *comm) RMAWindow() []byte {
	if st := c.prep(); st != nil && st.win != nil && len(st.win.buf) > 0 {
		return st.win.buf
	}
	return nil
}

// executeP2P runs one call of a bandwidth or one-sided operation.
func (c *comm) executeP2P(o *mpi.Observation) error {
	fn := o.Call.String()
	st := c.prep()
	switch {
	case st == nil || st.call.Bandwidth() != o.Call.Bandwidth() || st.call.OneSided() != o.Call.OneSided():
		return &mpi.Error{Func: fn, Code: -1, Msg: fmt.Sprintf("%v needs its resources: call mpi.Prepare(comm, obs) once before the observations (and its release after them)", o.Call)}
	case o.Call.Bandwidth() && o.Window() > st.window:
		return &mpi.Error{Func: fn, Code: -1, Msg: fmt.Sprintf("%v with a window of %d: prepared for %d", o.Call, o.Window(), st.window)}
	case o.Call.OneSided() && (o.RMASync != st.rs || len(st.win.buf) < o.Count*o.Type.Size()):
		return &mpi.Error{Func: fn, Code: -1, Msg: fmt.Sprintf("%v (%v, %d bytes): the window was prepared for %v and %d bytes", o.Call, o.RMASync, o.Count*o.Type.Size(), st.rs, len(st.win.buf))}
	}
	n, me, w := o.Count*o.Type.Size(), c.rank, o.Window()
	switch o.Call {
	case mpi.CallBW:
		switch me {
		case o.Root:
			return c.bwSend(o.Send[:n], o.Peer, w, fn)
		case o.Peer:
			return c.bwRecv(o.Recv[:n], o.Root, w, fn)
		}
		return nil
	case mpi.CallMBWMR:
		half := c.size / 2
		if me < half {
			return c.bwSend(o.Send[:n], me+half, w, fn)
		}
		return c.bwRecv(o.Recv[:n], me-half, w, fn)
	case mpi.CallBiBW:
		if me != o.Root && me != o.Peer {
			return nil
		}
		other := o.Peer
		if me == o.Peer {
			other = o.Root
		}
		for range w {
			if err := c.csend(other, tagBW, o.Send[:n]); err != nil {
				return err
			}
		}
		for range w {
			if err := c.crecv(o.Recv[:n], other, tagBW, fn); err != nil {
				return err
			}
		}
		return nil
	}
	return c.rmaCall(o, st, n)
}

func (c *comm) bwSend(b []byte, to, w int, fn string) error {
	for range w {
		if err := c.csend(to, tagBW, b); err != nil {
			return err
		}
	}
	return c.crecv(nil, to, tagBWAck, fn)
}

func (c *comm) bwRecv(b []byte, from, w int, fn string) error {
	for range w {
		if err := c.crecv(b, from, tagBW, fn); err != nil {
			return err
		}
	}
	return c.csend(from, tagBWAck, nil)
}

// rmaCall is one call of a one-sided operation under its synchronization.
func (c *comm) rmaCall(o *mpi.Observation, st *p2pPrep, n int) error {
	fn := o.Call.String()
	origin := c.rank == o.Root
	switch st.rs {
	case mpi.RMAFence:
		if err := c.dissemination(tagBarrier, "MPI_Win_fence"); err != nil {
			return err
		}
		if origin {
			if err := c.rmaOp(o, st, n); err != nil {
				return err
			}
		}
		return c.dissemination(tagBarrier, "MPI_Win_fence")
	case mpi.RMALock:
		if !origin {
			return nil
		}
		c.r.now += c.rmaLatency(st, c.rank, o.Peer) + c.rmaLatency(st, o.Peer, c.rank)
		return c.rmaOp(o, st, n)
	case mpi.RMAFlush:
		if !origin {
			return nil
		}
		return c.rmaOp(o, st, n)
	}
	return &mpi.Error{Func: fn, Code: -1, Msg: "invalid synchronization " + st.rs.String()}
}

// rmaOp moves the data of one operation and advances the origin's time by
// its round trip and transfer.
func (c *comm) rmaOp(o *mpi.Observation, st *p2pPrep, n int) error {
	target := c.world(o.Peer)
	v, ok := rmaWins.Load(winKey{w: c.r.w, ctx: c.ctx, rank: target})
	if !ok {
		return &mpi.Error{Func: o.Call.String(), Code: -1, Msg: fmt.Sprintf("rank %d holds no window", o.Peer)}
	}
	tw := v.(*rmaWin)
	if len(tw.buf) < n {
		return &mpi.Error{Func: o.Call.String(), Code: -1, Msg: fmt.Sprintf("target window of %d bytes, need %d", len(tw.buf), n)}
	}
	tw.mu.Lock()
	switch o.Call {
	case mpi.CallPut:
		copy(tw.buf[:n], o.Send[:n])
	case mpi.CallGet:
		copy(o.Recv[:n], tw.buf[:n])
	case mpi.CallAccumulate:
		combine(tw.buf[:n], o.Send[:n], o.Count, o.Type, o.Op)
	}
	tw.mu.Unlock()
	spb := c.r.w.linkModel(c.r.id, target).secPerByte
	c.r.now += float64(n)*spb + c.rmaLatency(st, c.rank, o.Peer) + c.rmaLatency(st, o.Peer, c.rank)
	return nil
}

// rmaLatency draws the one-way latency from comm rank a to comm rank b of
// one-sided traffic: the link model's, with sequence numbers of its own
// (high bit set, so they never repeat a message's draw).
func (c *comm) rmaLatency(st *p2pPrep, a, b int) float64 {
	wa, wb := c.world(a), c.world(b)
	m := c.r.w.linkModel(wa, wb)
	st.seq++
	return m.draw(c.r.w.latSeed, wa, wb, 1<<63|st.seq)
}

// linkModel returns the model of the link between world ranks src and dst,
// chosen as sendWorld chooses it.
func (w *World) linkModel(src, dst int) linkModel {
	switch {
	case w.cfg.Latency.PerLink != nil:
		l := w.cfg.Latency.PerLink(src, dst)
		return l.resolve()
	case w.split && w.node(src) != w.node(dst):
		return w.inter
	}
	return w.intra
}
