package mpi

import (
	"fmt"
)

// Point-to-point bandwidth and one-sided communication.
// docs/data-format.md ("Bandwidth and one-sided operations") gives
// the exact definitions; in short, one call of the operation is:
//
//	bw      rank Root: BWWindow × MPI_Isend of Count elements to Peer, MPI_Waitall,
//	        MPI_Recv of a zero-byte acknowledgement from Peer;
//	        rank Peer: BWWindow × MPI_Irecv, MPI_Waitall, MPI_Send of the
//	        zero-byte acknowledgement (osu_bw's window).
//	bibw    ranks Root and Peer both: BWWindow × MPI_Irecv, BWWindow × MPI_Isend,
//	        MPI_Waitall of the sends, MPI_Waitall of the receives (osu_bibw).
//	mbw_mr  every rank i < P/2 is the sender of bw towards rank i + P/2, at
//	        the same time (osu_mbw_mr); P must be even.
//	MPI_Put, MPI_Get, MPI_Accumulate
//	        rank Root (the origin) moves Count elements to (Put,
//	        Accumulate with Op) or from (Get) displacement 0 of rank Peer's
//	        (the target's) window, synchronized by RMASync:
//	          fence: every rank: MPI_Win_fence; origin: the operation; every rank: MPI_Win_fence
//	          lock:  origin: MPI_Win_lock(shared, Peer); the operation; MPI_Win_unlock(Peer)
//	          flush: origin: the operation; MPI_Win_flush(Peer), inside an
//	                 MPI_Win_lock_all epoch that Prepare opens and release closes.
//
// Every rank that has no role in a call only takes the two timestamps.
// The resources these calls need, a request array of 2·BWWindow requests
// and the MPI window (MPI_Win_allocate of Count elements per rank, zeroed),
// are created by Prepare (mpi.Prepare), once per experiment and outside
// the timed part; Observe refuses these calls on a communicator that has
// not prepared them.

// defaultBWWindow is the window of bw, bibw and mbw_mr when
// Observation.BWWindow is 0: osu_bw's default window size.
const defaultBWWindow = 64

// maxBWWindow bounds Observation.BWWindow (the request array is
// 2·BWWindow requests).
const maxBWWindow = 1 << 20

// RMASync is the synchronization of a one-sided operation (MPI_Put,
// MPI_Get, MPI_Accumulate): a factor of the measurement.
type RMASync int

// The synchronization modes of one-sided operations.
const (
	// RMAFence: MPI_Win_fence (every rank); the operation (origin);
	// MPI_Win_fence (every rank). Active target.
	RMAFence RMASync = iota
	// RMALock: MPI_Win_lock(MPI_LOCK_SHARED, target); the operation;
	// MPI_Win_unlock(target), on the origin only. Passive target.
	RMALock
	// RMAFlush: the operation; MPI_Win_flush(target), on the origin only,
	// inside an MPI_Win_lock_all epoch opened by Prepare and closed by its
	// release. Passive target.
	RMAFlush
)

var rmaSyncNames = [...]string{"fence", "lock", "flush"}

// RMASyncs returns every synchronization mode in a fixed order.
func RMASyncs() []RMASync { return []RMASync{RMAFence, RMALock, RMAFlush} }

// Valid reports whether s is a known mode.
func (s RMASync) Valid() bool { return s >= 0 && int(s) < len(rmaSyncNames) }

// String returns "fence", "lock" or "flush".
func (s RMASync) String() string {
	if !s.Valid() {
		return fmt.Sprintf("RMASync(%d)", int(s))
	}
	return rmaSyncNames[s]
}

// Bandwidth reports whether the call is one of the windowed bandwidth
// calls (bw, bibw, mbw_mr): ParamBWWindow.
func (c Call) Bandwidth() bool { return c.Valid() && ops[c].Takes(ParamBWWindow) }

// OneSided reports whether the call is a one-sided operation (MPI_Put,
// MPI_Get, MPI_Accumulate): ParamRMASync.
func (c Call) OneSided() bool { return c.Valid() && ops[c].Takes(ParamRMASync) }

// Window returns the effective bw window of o: BWWindow, or
// defaultBWWindow when it is 0.
func (o *Observation) Window() int {
	if o.BWWindow == 0 {
		return defaultBWWindow
	}
	return o.BWWindow
}

// validateP2P checks the fields the p2p calls use (Observation.Validate).
func (o *Observation) validateP2P(p int) error {
	if !o.Call.Bandwidth() && !o.Call.OneSided() {
		return nil
	}
	if o.Call.Bandwidth() && (o.BWWindow < 0 || o.BWWindow > maxBWWindow) {
		return fmt.Errorf("mpi: %v: window of %d messages out of range [1,%d] (0 means %d)", o.Call, o.BWWindow, maxBWWindow, defaultBWWindow)
	}
	if o.Call.OneSided() && !o.RMASync.Valid() {
		return fmt.Errorf("mpi: %v: invalid one-sided synchronization %v", o.Call, o.RMASync)
	}
	if o.Call == CallMBWMR {
		if p < 2 || p%2 != 0 {
			return fmt.Errorf("mpi: mbw_mr pairs rank i with rank i+P/2 and needs an even number of ranks, have %d", p)
		}
		return nil
	}
	if p < 2 {
		return fmt.Errorf("mpi: %v needs at least 2 ranks, have %d", o.Call, p)
	}
	if o.Peer < 0 || o.Peer >= p || o.Peer == o.Root {
		return fmt.Errorf("mpi: %v peer %d invalid (root %d, size %d)", o.Call, o.Peer, o.Root, p)
	}
	return nil
}

// tagBW is the tag of the Go path's bandwidth messages and tagBWAck that
// of its acknowledgements, in the range reserved for reprobench's packages
// (TagReserved), after clocksync's.
const (
	tagBW    = TagReserved + 0x70
	tagBWAck = TagReserved + 0x71
)

// callOncer is implemented by communicators that run one call of an
// operation without timestamps (the real binding does it in C); callGo
// uses it for the operations the Comm interface cannot express.
type callOncer interface {
	callOnce(o *Observation) error
}

// callP2PGo is callGo for the p2p calls: the binding's own C call when c
// has one, else, for the bandwidth calls, the same messages through
// Comm's Isend and Irecv (one-sided operations need the binding).
func callP2PGo(c Comm, o *Observation) error {
	if x, ok := c.(callOncer); ok {
		return x.callOnce(o)
	}
	if o.Call.OneSided() {
		return &Error{Func: o.Call.String(), Code: -1, Msg: "one-sided operations need the MPI binding or mpitest (this communicator has no RMA windows)"}
	}
	b, w, me := o.Count*o.Type.Size(), o.Window(), c.Rank()
	switch o.Call {
	case CallBW:
		return bwGo(c, o.Send[:b], o.Recv[:b], w, me == o.Root, me == o.Peer, o.Root, o.Peer)
	case CallMBWMR:
		half := c.Size() / 2
		if me < half {
			return bwGo(c, o.Send[:b], o.Recv[:b], w, true, false, me, me+half)
		}
		return bwGo(c, o.Send[:b], o.Recv[:b], w, false, true, me-half, me)
	case CallBiBW:
		if me != o.Root && me != o.Peer {
			return nil
		}
		other := o.Peer
		if me == o.Peer {
			other = o.Root
		}
		rr := make([]Request, 0, 2*w)
		for range w {
			q, err := c.Irecv(o.Recv[:b], other, tagBW)
			if err != nil {
				return err
			}
			rr = append(rr, q)
		}
		for range w {
			q, err := c.Isend(o.Send[:b], other, tagBW)
			if err != nil {
				return err
			}
			rr = append(rr, q)
		}
		for _, q := range append(rr[w:], rr[:w]...) { // the sends first, as osu_bibw
			if err := q.Wait(); err != nil {
				return err
			}
		}
	}
	return nil
}

// bwGo is one bw window between sender from and receiver to, in Go.
func bwGo(c Comm, send, recv []byte, w int, isSender, isReceiver bool, from, to int) error {
	switch {
	case isSender:
		if err := postAndWait(w, func() (Request, error) { return c.Isend(send, to, tagBW) }); err != nil {
			return err
		}
		return c.Recv(nil, to, tagBWAck)
	case isReceiver:
		if err := postAndWait(w, func() (Request, error) { return c.Irecv(recv, from, tagBW) }); err != nil {
			return err
		}
		return c.Send(nil, from, tagBWAck)
	}
	return nil
}

// postAndWait posts w requests with post, then waits for all of them.
func postAndWait(w int, post func() (Request, error)) error {
	rr := make([]Request, w)
	for j := range rr {
		q, err := post()
		if err != nil {
			return err
		}
		rr[j] = q
	}
	for _, q := range rr {
		if err := q.Wait(); err != nil {
			return err
		}
	}
	return nil
}

// rmaWindower is implemented by communicators that hold the RMA window of
// a prepared one-sided call (the binding and mpitest).
type rmaWindower interface {
	// RMAWindow returns this rank's part of the window, or nil when the
	// communicator holds none.
	RMAWindow() []byte
}

// WindowBytes returns this rank's part of the RMA window that Prepare
// created for a one-sided call on c (for the binding, C memory valid until
// the release), or nil when c holds no window. Read it only when no epoch
// can write it (after a barrier that follows the last observation): the
// tests check Put and Accumulate element by element through it.
func WindowBytes(c Comm) []byte {
	if w, ok := c.(rmaWindower); ok {
		return w.RMAWindow()
	}
	return nil
}

// EachBarrier reports whether Observation.TimeEach puts a barrier after
// each call of c, as the collective loops of OSU 7 and IMB-MPI1 do
// (t0; call; t1; MPI_Barrier). It is false for ping-pong and the bandwidth
// calls: osu_latency times each round trip and osu_bw each window one
// after another, the messages themselves synchronizing the two ranks.
func (c Call) EachBarrier() bool { return c != CallPingPong && !c.Bandwidth() }

// Timer returns the rank whose clock OSU's benchmark of the call reads, as
// the runtime types osu and imb take it (the row's Timer): the sender of bw
// and bibw (root), rank 0 for mbw_mr (the first sender), the origin of a
// one-sided call (root); −1 for the other calls, which have their own
// definitions.
func (c Call) Timer(root int) int {
	if !c.Valid() {
		return -1
	}
	switch ops[c].Timer {
	case TimerRank0:
		return 0
	case TimerRoot:
		return root
	}
	return -1
}
