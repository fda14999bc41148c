package mpitest

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/reprobench/reprobench/mpi"
)

// Communicator contexts: the world's is worldCtx; derived communicators get
// a 64-bit hash. Point-to-point traffic of a communicator uses ctx (even),
// collective traffic ctx|1, so they never match each other.
const worldCtx uint64 = 0

// mkey identifies a matching queue in a receiver's mailbox.
type mkey struct {
	ctx uint64
	src int32 // rank in the communicator
	tag int32
}

// maxQueues is the number of matching queues a mailbox keeps even when
// empty; beyond it, queues are deleted when they empty (programs that use
// ever new tags would otherwise grow the mailbox without bound).
const maxQueues = 256

// denseLinks is the largest world whose ranks count their messages per
// destination in a slice rather than a map (P² counters in all).
const denseLinks = 256

// maxFree bounds the buffers of consumed messages a mailbox keeps for reuse.
const maxFree = 64

// message is a sent message that has no matching receive yet.
type message struct {
	data    []byte  // nil for a payload without content (see sendN)
	n       int     // payload length, bytes
	arrival float64 // true time the last byte arrives
	xfer    float64 // bytes/bandwidth: how long it occupies the receiver's ingress
	// A rendezvous message (Config.EagerLimit) waits for its receive: its
	// data leaves when the receive is posted, lat after which it arrives,
	// and the receiver then acknowledges to world rank ackTo under ackKey,
	// which releases the blocked sender.
	rndv   bool
	lat    float64
	ackTo  int
	ackKey mkey
}

// rndvAckTag is the tag of rendezvous acknowledgements, on the collective
// context of the communicator (users cannot send negative tags, and the
// collectives use non-negative ones).
const rndvAckTag = -7

// queue holds, for one (communicator, source, tag), the unexpected messages
// or the posted receives, both in order: message k matches receive k.
type queue struct {
	msgs   []message
	mhead  int
	posted []*recvReq
	phead  int
}

// recvReq is a posted receive; done, arrival and err are set under the
// receiver's mutex.
type recvReq struct {
	key       mkey
	buf       []byte // nil for a receive without content (see recvN)
	n         int    // expected payload length, bytes
	op        string
	peer      int
	peerWorld int
	done      bool
	arrival   float64
	xfer      float64
	err       error
	test      bool // blocked in Test: may be released at quiescence
	released  bool // released at quiescence before a matching send
	// ackPending: the matched message was a rendezvous one; the receiver
	// must acknowledge (ackTo, ackKey) once it has released its mutex.
	ackPending bool
	ackTo      int
	ackKey     mkey
	ackAt      float64 // true time the acknowledgement arrives
	postedAt   float64 // the receiver's true time when the receive was posted
}

// send delivers data to rank dstComm of c under key. The sender's time
// advances by the injection time of the message.
func (r *Rank) send(c *comm, dstComm int, key mkey, data []byte) error {
	_, err := r.sendWorld(c.world(dstComm), key, data, nil)
	return err
}

// sendWorld delivers data to world rank dst under key. With ackKey != nil
// the message is a rendezvous one: matched reports whether a receive was
// already posted (then the sender need not wait); otherwise the receiver
// acknowledges under *ackKey when it posts the receive.
func (r *Rank) sendWorld(dst int, key mkey, data []byte, ackKey *mkey) (matched bool, err error) {
	return r.sendN(dst, key, data, len(data), ackKey)
}

// sendN is sendWorld of an n-byte payload whose content is data, or, with
// data nil, a payload without content: it costs the time of n bytes and
// matches a receive of n bytes, but carries and allocates nothing (for
// collectives whose content the simulation exchanges through memory).
func (r *Rank) sendN(dst int, key mkey, data []byte, n int, ackKey *mkey) (matched bool, err error) {
	if r.w.aborted.Load() {
		return false, errAborted
	}
	w := r.w
	seq := r.nextSeq(dst)
	m := &w.intra
	var lm linkModel
	switch {
	case w.cfg.Latency.PerLink != nil:
		l := w.cfg.Latency.PerLink(r.id, dst)
		lm = l.resolve()
		m = &lm
	case w.split && w.node(r.id) != w.node(dst):
		m = &w.inter
	}
	xfer := float64(n) * m.secPerByte
	r.now += xfer
	arrival := r.now + m.draw(w.latSeed, r.id, dst, seq)
	r.msgs.Add(1)
	if w.cfg.Log {
		r.log = append(r.log, Message{Src: r.id, Dst: dst, Seq: seq, CommID: key.ctx >> 1, Tag: int(key.tag),
			Internal: key.ctx&1 == 1, Bytes: n, SendS: r.now, ArrivalS: arrival})
	}

	lat := arrival - r.now
	var rvm *message
	if ackKey != nil {
		rvm = &message{rndv: true, lat: lat, ackTo: r.id, ackKey: *ackKey}
	}
	postedAt, matched := w.ranks[dst].accept(r.id, key, data, n, arrival, xfer, rvm)
	if matched && ackKey != nil {
		// The receive was already posted (in virtual time, maybe after
		// this send): the data leaves then, and the sender learns it a
		// latency later, as through an acknowledgement.
		r.now = max(r.now, postedAt+lat)
	}
	return matched, nil
}

// nextSeq returns the index of the next message from r to world rank dst
// on their link and counts it. Small worlds count in a slice indexed by
// destination; large ones in a map from destination to a counter, looked
// up only when the destination differs from the previous send's (a
// ping-pong or a burst sends to one destination many times in a row).
func (r *Rank) nextSeq(dst int) uint64 {
	if r.linkSeq != nil {
		seq := r.linkSeq[dst]
		r.linkSeq[dst]++
		return seq
	}
	if r.lastDst != dst || r.lastCnt == nil {
		if len(r.w.ranks) <= denseLinks {
			r.linkSeq = make([]uint64, len(r.w.ranks))
			return r.nextSeq(dst)
		}
		if r.linkMap == nil {
			r.linkMap = make(map[int32]*uint64)
		}
		c := r.linkMap[int32(dst)]
		if c == nil {
			c = new(uint64)
			r.linkMap[int32(dst)] = c
		}
		r.lastDst, r.lastCnt = dst, c
	}
	seq := *r.lastCnt
	*r.lastCnt++
	return seq
}

// accept puts a message from world rank from under key into d's mailbox:
// it completes the first posted receive that matches, or waits in the
// queue of unexpected messages. rv, when not nil, carries the rendezvous
// fields of the message. It reports whether a receive matched and, if so,
// the true time that receive was posted.
func (d *Rank) accept(from int, key mkey, data []byte, n int, arrival, xfer float64, rv *message) (postedAt float64, matched bool) {
	w := d.w
	d.mu.Lock()
	q := d.queue(key)
	if q.phead < len(q.posted) {
		rq := q.posted[q.phead]
		q.posted[q.phead] = nil
		q.phead++
		if q.phead == len(q.posted) {
			q.posted, q.phead = q.posted[:0], 0
			d.dropQueue(key)
		}
		if rq.n != n {
			rq.err = sizeErr(rq.op, n, rq.n, from, int(key.tag), key.ctx)
		} else {
			copy(rq.buf, data)
		}
		rq.arrival = arrival
		if rv != nil {
			rq.arrival = max(arrival, rq.postedAt+rv.lat)
		}
		rq.xfer = xfer
		rq.done = true
		postedAt = rq.postedAt
		wake := d.waiting == rq
		if wake {
			d.waiting = nil
			w.running.Add(1)
		}
		d.mu.Unlock()
		if wake {
			select {
			case d.wake <- struct{}{}:
			default:
			}
		}
		return postedAt, true
	}
	var buf []byte
	if len(data) > 0 {
		if k := len(d.free) - 1; k >= 0 && cap(d.free[k]) >= len(data) {
			buf = d.free[k][:len(data)]
			d.free[k] = nil
			d.free = d.free[:k]
		} else {
			buf = make([]byte, len(data))
		}
		copy(buf, data)
	}
	if q.mhead > 0 && len(q.msgs) == cap(q.msgs) {
		// compact instead of growing
		k := copy(q.msgs, q.msgs[q.mhead:])
		clear(q.msgs[k:])
		q.msgs, q.mhead = q.msgs[:k], 0
	}
	msg := message{data: buf, n: n, arrival: arrival, xfer: xfer}
	if rv != nil {
		msg.rndv, msg.lat, msg.ackTo, msg.ackKey = true, rv.lat, rv.ackTo, rv.ackKey
	}
	q.msgs = append(q.msgs, msg)
	d.mu.Unlock()
	return 0, false
}

func sizeErr(op string, got, want, src, tag int, ctx uint64) error {
	return &mpi.Error{Func: op, Code: -1, Msg: fmt.Sprintf(
		"message from world rank %d (tag %d, comm %#x) has %d bytes, receive buffer %d bytes", src, tag, ctx>>1, got, want)}
}

// queue returns the matching queue of key, creating it if needed; r.mu
// must be held.
func (r *Rank) queue(key mkey) *queue {
	if r.lastQ != nil && r.lastKey == key {
		return r.lastQ
	}
	q := r.queues[key]
	if q == nil {
		q = &queue{}
		r.queues[key] = q
	}
	r.lastKey, r.lastQ = key, q
	return q
}

// dropQueue deletes the (empty) queue of key if the mailbox holds many;
// r.mu must be held.
func (r *Rank) dropQueue(key mkey) {
	if len(r.queues) > maxQueues {
		delete(r.queues, key)
		if r.lastKey == key {
			r.lastQ = nil
		}
	}
}

// post registers a receive, matching an unexpected message at once if
// there is one. It is called with r.mu held and returns with it held.
func (r *Rank) post(rq *recvReq) {
	q := r.queue(rq.key)
	if q.mhead < len(q.msgs) {
		m := q.msgs[q.mhead]
		q.msgs[q.mhead] = message{}
		q.mhead++
		if q.mhead == len(q.msgs) {
			q.msgs, q.mhead = q.msgs[:0], 0
			r.dropQueue(rq.key)
		}
		if rq.n != m.n {
			rq.err = sizeErr(rq.op, m.n, rq.n, rq.peerWorld, int(rq.key.tag), rq.key.ctx)
		} else {
			copy(rq.buf, m.data)
		}
		if m.data != nil && len(r.free) < maxFree {
			r.free = append(r.free, m.data)
		}
		rq.arrival = m.arrival
		rq.xfer = m.xfer
		if m.rndv {
			// The data leaves now that the receive is posted.
			rq.arrival = max(m.arrival, r.now+m.lat)
			rq.ackPending, rq.ackTo, rq.ackKey, rq.ackAt = true, m.ackTo, m.ackKey, r.now+m.lat
		}
		rq.done = true
	} else {
		rq.postedAt = r.now
		q.posted = append(q.posted, rq)
	}
}

// ack delivers the acknowledgement a rendezvous message asked of rq, if
// any; r.mu must not be held. It arrives when the data does (the receive's
// post time plus the message's latency), exactly as when the receive is
// posted before the message is sent, and draws no latency of its own, so
// that the outcome does not depend on which rank got there first in real
// time.
func (r *Rank) ack(rq *recvReq) error {
	if !rq.ackPending {
		return nil
	}
	rq.ackPending = false
	if r.w.aborted.Load() {
		return errAborted
	}
	r.w.ranks[rq.ackTo].accept(r.id, rq.ackKey, nil, 0, rq.ackAt, 0, nil)
	return nil
}

// block waits until rq is done (in real time), then completes it in
// virtual time.
func (r *Rank) block(rq *recvReq) error {
	r.mu.Lock()
	return r.blockLocked(rq)
}

// blockLocked is block with r.mu held.
func (r *Rank) blockLocked(rq *recvReq) error {
	if err := r.waitLocked(rq); err != nil {
		return err
	}
	r.complete(rq)
	return rq.err
}

// waitLocked waits (in real time) until rq is done, without advancing
// virtual time. It is called with r.mu held and releases it. It returns
// errAborted or, for a Test released at quiescence, errNotYet.
func (r *Rank) waitLocked(rq *recvReq) error {
	if !rq.done {
		r.waiting = rq
		r.mu.Unlock()
		if r.w.running.Add(-1) == 0 {
			r.w.checkDeadlock()
		}
		for {
			<-r.wake
			r.mu.Lock()
			if rq.released {
				// Checked first: another released rank may have
				// sent the message meanwhile, which must not
				// change the answer.
				rq.released = false
				r.mu.Unlock()
				return errNotYet
			}
			if rq.done {
				break
			}
			if r.w.aborted.Load() {
				r.waiting = nil
				r.mu.Unlock()
				return errAborted
			}
			r.mu.Unlock()
		}
	}
	r.mu.Unlock()
	return nil
}

// finish returns the true time at which the done receive rq completes on
// the receiver's network interface: when its last byte has arrived, but no
// earlier than the previous completed receive plus rq's transfer time
// (the receiver's ingress bandwidth is shared by its receives, in the order
// the program completes them).
func (r *Rank) finish(rq *recvReq) float64 {
	return max(rq.arrival, r.rxFree+rq.xfer)
}

// complete advances the rank's time to the completion of rq.
func (r *Rank) complete(rq *recvReq) {
	f := r.finish(rq)
	r.rxFree = f
	if f > r.now {
		// The rank waited for the message; a descheduled rank
		// (Config.Deschedule) may resume only later.
		if r.desched != nil {
			if d := r.desched.wait(); d > 0 {
				f += d
				r.cpuWait += d
				r.cpuWaits++
			}
		}
		r.now = f
	}
}

// recv is a blocking receive.
func (r *Rank) recv(c *comm, buf []byte, src int, key mkey, op string) error {
	return r.recvN(c, buf, len(buf), src, key, op)
}

// recvN is recv of an n-byte payload into buf, or, with buf nil, of a
// payload without content (see sendN).
func (r *Rank) recvN(c *comm, buf []byte, n int, src int, key mkey, op string) error {
	if r.w.aborted.Load() {
		return errAborted
	}
	rq := &r.blockRq
	*rq = recvReq{key: key, buf: buf, n: n, op: op, peer: src, peerWorld: c.world(src)}
	r.mu.Lock()
	r.post(rq)
	if rq.ackPending {
		r.mu.Unlock()
		if err := r.ack(rq); err != nil {
			return err
		}
		r.mu.Lock()
	}
	err := r.blockLocked(rq)
	rq.buf = nil
	return err
}

// comm implements mpi.Comm for one rank.
type comm struct {
	r       *Rank
	ctx     uint64
	rank    int
	size    int
	ranks   []int // comm rank → world rank; nil for the world
	isWorld bool
	freed   bool
	nsplit  uint64 // derived communicators created so far
}

var _ mpi.Comm = (*comm)(nil)

func (c *comm) world(rank int) int {
	if c.ranks == nil {
		return rank
	}
	return c.ranks[rank]
}

// Rank returns the calling rank's rank in the communicator.
func (c *comm) Rank() int { return c.rank }

// Size returns the communicator's size.
func (c *comm) Size() int { return c.size }

func (c *comm) check(fn string) error {
	if c.freed {
		return &mpi.Error{Func: fn, Code: -1, Msg: "communicator has been freed"}
	}
	return nil
}

func (c *comm) checkPeer(fn string, peer, tag int) error {
	if err := c.check(fn); err != nil {
		return err
	}
	return mpi.CheckP2P(fn, c.size, peer, tag) // shared with the cgo binding
}

func (c *comm) p2pKey(src, tag int) mkey { return mkey{ctx: c.ctx, src: int32(src), tag: int32(tag)} }

// Send sends buf to dest. Sends are eager (buffered: they never wait for
// the receiver) up to Config.EagerLimit bytes; larger ones wait until the
// receiver has posted the matching receive.
func (c *comm) Send(buf []byte, dest, tag int) error {
	if err := c.checkPeer("MPI_Send", dest, tag); err != nil {
		return err
	}
	lim := c.r.w.cfg.EagerLimit
	if lim <= 0 || len(buf) <= lim {
		return c.r.send(c, dest, c.p2pKey(c.rank, tag), buf)
	}
	ackKey := mkey{ctx: c.ctx | 1, src: int32(dest), tag: rndvAckTag}
	// The receiver acknowledges into this rank's mailbox, under the key
	// this rank then receives on.
	matched, err := c.r.sendWorld(c.world(dest), c.p2pKey(c.rank, tag), buf, &ackKey)
	if err != nil || matched {
		return err
	}
	return c.r.recv(c, nil, dest, ackKey, fmt.Sprintf("MPI_Send of %d bytes (rendezvous, above Config.EagerLimit)", len(buf)))
}

// Recv receives exactly len(buf) bytes from src.
func (c *comm) Recv(buf []byte, src, tag int) error {
	if err := c.checkPeer("MPI_Recv", src, tag); err != nil {
		return err
	}
	return c.r.recv(c, buf, src, c.p2pKey(src, tag), "MPI_Recv")
}

// Sendrecv sends sendbuf to dest and receives recvbuf from src.
func (c *comm) Sendrecv(sendbuf []byte, dest, sendtag int, recvbuf []byte, src, recvtag int) error {
	if err := c.checkPeer("MPI_Sendrecv", dest, sendtag); err != nil {
		return err
	}
	if err := c.checkPeer("MPI_Sendrecv", src, recvtag); err != nil {
		return err
	}
	if err := c.r.send(c, dest, c.p2pKey(c.rank, sendtag), sendbuf); err != nil {
		return err
	}
	return c.r.recv(c, recvbuf, src, c.p2pKey(src, recvtag), "MPI_Sendrecv")
}

// SendFloat64 sends one float64.
func (c *comm) SendFloat64(v float64, dest, tag int) error {
	var b [8]byte
	binary.NativeEndian.PutUint64(b[:], math.Float64bits(v))
	return c.Send(b[:], dest, tag)
}

// RecvFloat64 receives one float64.
func (c *comm) RecvFloat64(src, tag int) (float64, error) {
	var b [8]byte
	err := c.Recv(b[:], src, tag)
	return math.Float64frombits(binary.NativeEndian.Uint64(b[:])), err
}

// SendInt64 sends one int64.
func (c *comm) SendInt64(v int64, dest, tag int) error {
	var b [8]byte
	binary.NativeEndian.PutUint64(b[:], uint64(v))
	return c.Send(b[:], dest, tag)
}

// RecvInt64 receives one int64.
func (c *comm) RecvInt64(src, tag int) (int64, error) {
	var b [8]byte
	err := c.Recv(b[:], src, tag)
	return int64(binary.NativeEndian.Uint64(b[:])), err
}

// doneReq is a completed request (Isend completes at once).
type doneReq struct{}

func (doneReq) Wait() error         { return nil }
func (doneReq) Test() (bool, error) { return true, nil }

// Isend sends buf eagerly and returns a completed request.
func (c *comm) Isend(buf []byte, dest, tag int) (mpi.Request, error) {
	if err := c.Send(buf, dest, tag); err != nil {
		return nil, err
	}
	return doneReq{}, nil
}

// irecv is a pending non-blocking receive.
type irecv struct {
	r        *Rank
	rq       recvReq
	finished bool
}

// Irecv posts a receive into buf; messages from src with tag are matched to
// receives in the order the receives were posted.
func (c *comm) Irecv(buf []byte, src, tag int) (mpi.Request, error) {
	if err := c.checkPeer("MPI_Irecv", src, tag); err != nil {
		return nil, err
	}
	if c.r.w.aborted.Load() {
		return nil, errAborted
	}
	q := &irecv{r: c.r}
	q.rq = recvReq{key: c.p2pKey(src, tag), buf: buf, n: len(buf), op: "MPI_Wait", peer: src, peerWorld: c.world(src)}
	c.r.mu.Lock()
	c.r.post(&q.rq)
	c.r.mu.Unlock()
	if err := c.r.ack(&q.rq); err != nil {
		return nil, err
	}
	return q, nil
}

// Wait blocks until the message has arrived (in virtual time).
func (q *irecv) Wait() error {
	if q.finished {
		return q.rq.err
	}
	err := q.r.block(&q.rq)
	if err == errAborted {
		return err
	}
	q.finished = true
	return err
}

// Test reports whether the message has arrived by the rank's current true
// time. If the matching send has not been issued yet, Test waits (in real
// time, not virtual time) until it is, or until no rank can proceed without
// a polling rank proceeding first; then no message can arrive in time and
// Test returns false. This keeps results independent of goroutine
// scheduling. A rank that polls forever for a message nobody can send is
// reported as deadlocked after 10000 fruitless rounds.
func (q *irecv) Test() (bool, error) {
	if q.finished {
		return true, q.rq.err
	}
	r := q.r
	r.mu.Lock()
	q.rq.test = true
	err := r.waitLocked(&q.rq)
	q.rq.test = false
	switch {
	case err == errNotYet:
		return false, nil
	case err != nil:
		return false, err
	case r.finish(&q.rq) > r.now:
		return false, nil // sent, but still in flight
	}
	r.complete(&q.rq)
	q.finished = true
	return true, q.rq.err
}

// errNotYet reports a Test released at quiescence.
var errNotYet = errors.New("mpitest: not yet sent")

// Free releases a derived communicator.
func (c *comm) Free() error {
	if c.isWorld {
		return &mpi.Error{Func: "MPI_Comm_free", Code: -1, Msg: "cannot free the world communicator"}
	}
	if err := c.check("MPI_Comm_free"); err != nil {
		return err
	}
	c.freed = true
	return nil
}

// derive returns the context of the next communicator derived from c.
func (c *comm) derive(kind, color uint64) uint64 {
	c.nsplit++
	return hash4(c.ctx, kind, c.nsplit, color) &^ 1
}

// Split partitions the communicator by color, ordering by key then by rank.
//
// It costs what an allgather of every rank's (color, key), 16 bytes, costs
// (a gather to rank 0, then a broadcast of 16·size bytes), but only rank 0
// holds the pairs: it computes the new communicators and shares them with
// the other ranks through memory (splitTable), and the broadcast's
// messages carry no content. So a split of P ranks takes O(P) memory in
// all, not O(P²).
func (c *comm) Split(color, key int) (mpi.Comm, error) {
	const fn = "MPI_Comm_split"
	if err := c.check(fn); err != nil {
		return nil, err
	}
	mine := []int64{int64(color), int64(key)}
	var all []int64
	if c.rank == 0 {
		all = make([]int64, 2*c.size)
	}
	if err := c.gather(mpi.Bytes(mine), mpi.Bytes(all), 0, fn); err != nil {
		return nil, err
	}
	ctx := c.derive(1, uint64(int64(color)))
	tk := splitKey{ctx: c.ctx, n: c.nsplit}
	w := c.r.w
	if c.rank == 0 {
		w.splitMu.Lock()
		if w.splits == nil {
			w.splits = make(map[splitKey]*splitResult)
		}
		w.splits[tk] = c.splitGroups(all)
		w.splitMu.Unlock()
	}
	if err := c.bcastN(nil, 16*c.size, 0, fn); err != nil {
		return nil, err
	}
	w.splitMu.Lock()
	res := w.splits[tk]
	if res.left--; res.left == 0 {
		delete(w.splits, tk)
	}
	w.splitMu.Unlock()
	if color < 0 {
		return nil, nil
	}
	return &comm{r: c.r, ctx: ctx, size: len(res.groups[int64(color)]), ranks: res.groups[int64(color)], rank: res.rank[c.rank]}, nil
}

// splitKey identifies one Split of one communicator: its context and the
// number of communicators derived from it so far (the same on every rank).
type splitKey struct {
	ctx uint64
	n   uint64
}

// splitResult is the outcome of one Split, computed by rank 0 and read by
// every rank of the communicator; left counts the ranks yet to read it.
type splitResult struct {
	groups map[int64][]int // color → world ranks of the new communicator, in order; shared, read-only
	rank   []int           // comm rank → its rank in its new communicator (-1: no color)
	left   int
}

// splitGroups computes the communicators of a Split from every rank's
// (color, key) pair: members of a color ordered by key, then by rank.
func (c *comm) splitGroups(all []int64) *splitResult {
	res := &splitResult{groups: map[int64][]int{}, rank: make([]int, c.size), left: c.size}
	members := map[int64][]int{} // comm ranks
	for i := 0; i < c.size; i++ {
		res.rank[i] = -1
		if col := all[2*i]; col >= 0 {
			members[col] = append(members[col], i)
		}
	}
	for col, m := range members {
		slices.SortStableFunc(m, func(a, b int) int {
			if all[2*a+1] != all[2*b+1] {
				if all[2*a+1] < all[2*b+1] {
					return -1
				}
				return 1
			}
			return a - b
		})
		world := make([]int, len(m))
		for i, x := range m {
			world[i] = c.world(x)
			res.rank[x] = i
		}
		res.groups[col] = world
	}
	return res
}

func (c *comm) newSub(ctx uint64, members []int) *comm {
	n := &comm{r: c.r, ctx: ctx, size: len(members), ranks: make([]int, len(members)), rank: -1}
	for i, m := range members {
		n.ranks[i] = c.world(m)
		if m == c.rank {
			n.rank = i
		}
	}
	return n
}

// Sub returns the communicator of the listed ranks (no communication).
func (c *comm) Sub(ranks []int) (mpi.Comm, error) {
	if err := c.check("MPI_Comm_create_group"); err != nil {
		return nil, err
	}
	seen := make(map[int]bool, len(ranks))
	for _, x := range ranks {
		if x < 0 || x >= c.size || seen[x] {
			return nil, &mpi.Error{Func: "MPI_Comm_create_group", Code: -1,
				Msg: fmt.Sprintf("invalid or repeated rank %d in %v (size %d)", x, ranks, c.size)}
		}
		seen[x] = true
	}
	h := uint64(len(ranks))
	for _, x := range ranks {
		h = mix(h ^ uint64(x))
	}
	ctx := c.derive(2, h)
	if !seen[c.rank] {
		return nil, nil
	}
	return c.newSub(ctx, ranks), nil
}

// NodeSize returns how many ranks of the communicator run on the calling
// rank's simulated node (Config.RanksPerNode), for mpi.NodeSize;
// collective. Its messages are those of mpi.NodeSize's allgather of one
// float64 per rank (a gather to rank 0 and a broadcast of 8 bytes per
// rank), but the broadcast carries no content and the count comes from the
// world's layout, so that a rank holds O(1) bytes, not O(ranks).
func (c *comm) NodeSize() (int, error) {
	const fn = "MPI_Allgather"
	if err := c.check(fn); err != nil {
		return 0, err
	}
	var all []byte
	if c.rank == 0 {
		all = make([]byte, 8*c.size)
	}
	if err := c.gather(make([]byte, 8), all, 0, fn); err != nil {
		return 0, err
	}
	if err := c.bcastN(nil, 8*c.size, 0, fn); err != nil {
		return 0, err
	}
	w := c.r.w
	node := w.node(c.r.id)
	if c.ranks == nil { // the world: nodes are consecutive blocks of ranks
		if w.cfg.RanksPerNode <= 0 {
			return c.size, nil
		}
		return min(w.cfg.RanksPerNode, c.size-node*w.cfg.RanksPerNode), nil
	}
	n := 0
	for _, x := range c.ranks {
		if w.node(x) == node {
			n++
		}
	}
	return n, nil
}

// SplitShared splits by node (Config.RanksPerNode).
func (c *comm) SplitShared() (mpi.Comm, error) {
	return c.Split(c.r.w.node(c.r.id), c.rank)
}
