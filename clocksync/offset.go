package clocksync

import (
	"math"

	"github.com/reprobench/reprobench/internal/order"
	"github.com/reprobench/reprobench/mpi"
)

// OffsetMeasurer measures the offset of a link's client clock to its
// reference clock at one point in time. Both ranks of the link call its
// methods, in the same order. Implementations keep per-link state in the
// Link, so one value may be shared by the goroutines of simulated ranks.
type OffsetMeasurer interface {
	// Prepare is called once per link before the first MeasureOffset, on
	// both ranks (JKPingPong estimates the RTT here).
	Prepare(l *Link) error
	// MeasureOffset returns one Sample on the client. What the reference
	// gets is documented by each implementation.
	MeasureOffset(l *Link) (Sample, error)
}

// SKaMPIPingPong is SKaMPI's offset measurement (Algorithm 7 of Hunold & Carpen-Amarie 2016,
// SKaMPI_PingPong), after Cristian: the reference sends a ping at s_last,
// the client answers with its time t_last, the reference receives it at
// s_now. The client's offset o = client − reference at that moment lies in
// [t_last − s_now, t_last − s_last]; the reference intersects these bounds
// over the ping-pongs and takes the midpoint.
//
// It runs at least MinPingPongs and at most MaxPingPongs ping-pongs. With
// Stop > 0 it stops after MinPingPongs as soon as the bounds are no wider
// than Stop·RTT, the link's round-trip time estimated by RTT in Prepare
// (measured before it is used). With Stop = 0 it runs MaxPingPongs
// ping-pongs, as SKaMPI does (100).
//
// Both ranks get the offset (the reference sends it to the client in the last
// message), with Sample.Bound = (upper − lower)/2, the half-width of the
// intersected bounds (negative if they do not intersect: contradictory
// timestamps), and Sample.RTT the smallest round trip. Sample.Local is the midpoint of the client's timestamps on the
// client, and of the reference's on the reference. A measurement costs 2n+1
// messages for n ping-pongs.
type SKaMPIPingPong struct {
	MinPingPongs int
	MaxPingPongs int
	Stop         float64
	RTT          RTTEstimator // used when Stop > 0; nil means DefaultRTT
}

// Prepare estimates the link's RTT when the early stop needs it.
func (m *SKaMPIPingPong) Prepare(l *Link) error {
	if m.Stop <= 0 {
		return nil
	}
	return estimateRTT(m.RTT, l)
}

// MeasureOffset runs the ping-pongs; see the type's documentation.
func (m *SKaMPIPingPong) MeasureOffset(l *Link) (Sample, error) {
	if err := l.check(); err != nil {
		return Sample{}, err
	}
	maxpp := max(m.MaxPingPongs, 1)
	minpp := min(max(m.MinPingPongs, 1), maxpp)
	c := l.Comm
	var cmd [4]float64
	if l.IsRef() {
		tdMin, tdMax := math.Inf(-1), math.Inf(1)
		minRTT := math.Inf(1)
		var first, last float64
		for i := 0; i < maxpp; i++ {
			sLast := l.Now()
			if i == 0 {
				first = sLast
			}
			cmd = [4]float64{1, 0}
			if err := mpi.Send(c, cmd[:], l.Client, tagPing); err != nil {
				return Sample{}, err
			}
			tLast, err := c.RecvFloat64(l.Client, tagPong)
			if err != nil {
				return Sample{}, err
			}
			sNow := l.Now()
			last = sNow
			minRTT = min(minRTT, sNow-sLast)
			tdMin = max(tdMin, tLast-sNow)
			tdMax = min(tdMax, tLast-sLast)
			if m.Stop > 0 && i+1 >= minpp && tdMax-tdMin <= m.Stop*l.RTT {
				break
			}
		}
		diff := (tdMin + tdMax) / 2
		cmd = [4]float64{0, diff, (tdMax - tdMin) / 2, minRTT}
		if err := mpi.Send(c, cmd[:], l.Client, tagPing); err != nil {
			return Sample{}, err
		}
		return Sample{Local: (first + last) / 2, Offset: diff, Bound: cmd[2], RTT: minRTT}, nil
	}
	var first, last float64
	for n := 0; ; n++ {
		if err := mpi.Recv(c, cmd[:], l.Ref, tagPing); err != nil {
			return Sample{}, err
		}
		if cmd[0] == 0 {
			return Sample{Local: (first + last) / 2, Offset: cmd[1], Bound: cmd[2], RTT: cmd[3]}, nil
		}
		t := l.Now()
		if n == 0 {
			first = t
		}
		last = t
		if err := c.SendFloat64(t, l.Ref, tagPong); err != nil {
			return Sample{}, err
		}
	}
}

// JKPingPong is the offset measurement of Jones and Koenig as used by JK and
// HCA (the inner loop of Algorithms 4 and 15 of Hunold & Carpen-Amarie 2016): the client sends
// a request, the reference answers with its time tremote, the client reads
// its time local on receipt and computes diff = local − tremote − RTT/2.
// Of Exchanges such exchanges it keeps the median diff — as a real exchange
// (the lower median for an even count), so the fit point pairs that diff with
// the local time at which it was measured.
//
// Prepare estimates the link's RTT with RTT (Alg. 17) before the first
// exchange. Only the client gets a Sample; the reference gets the zero Sample.
type JKPingPong struct {
	Exchanges int
	RTT       RTTEstimator // nil means DefaultRTT
}

// Prepare estimates the link's RTT (Alg. 17).
func (m *JKPingPong) Prepare(l *Link) error { return estimateRTT(m.RTT, l) }

// MeasureOffset runs Exchanges exchanges; see the type's documentation.
func (m *JKPingPong) MeasureOffset(l *Link) (Sample, error) {
	if err := l.check(); err != nil {
		return Sample{}, err
	}
	n := max(m.Exchanges, 1)
	c := l.Comm
	if l.IsRef() {
		for i := 0; i < n; i++ {
			if _, err := c.RecvFloat64(l.Client, tagExchange); err != nil {
				return Sample{}, err
			}
			if err := c.SendFloat64(l.Now(), l.Client, tagReply); err != nil {
				return Sample{}, err
			}
		}
		return Sample{}, nil
	}
	local, diff, sent := l.scratchLocal[:0], l.scratchDiff[:0], l.scratchSent[:0]
	half := l.RTT / 2
	for i := 0; i < n; i++ {
		t0 := l.Now()
		if err := c.SendFloat64(0, l.Ref, tagExchange); err != nil {
			return Sample{}, err
		}
		tremote, err := c.RecvFloat64(l.Ref, tagReply)
		if err != nil {
			return Sample{}, err
		}
		t := l.Now()
		local = append(local, t)
		diff = append(diff, t-tremote-half)
		sent = append(sent, t0)
	}
	l.scratchLocal, l.scratchDiff, l.scratchSent = local, diff, sent
	k := order.LowerMedianIndex(diff, &l.scratchIdx)
	// The true offset lies in [t0 − tremote, t − tremote] (the reference
	// read its clock between the request and the reply), and diff is
	// t − tremote − half: it errs by at most max(half, rtt − half).
	rtt := local[k] - sent[k]
	return Sample{Local: local[k], Offset: diff[k], Bound: max(half, rtt-half)}, nil
}

// NetgaugePingPong is Netgauge's offset measurement (Compute_Offset,
// Algorithm 12 of Hunold & Carpen-Amarie 2016): the reference sends its time s_time, the client
// answers with its time tremote, the reference receives at e_time; the offset
// of the exchange with the smallest round-trip time so far is kept,
// client − reference = tremote − s_time − rtt/2. It stops once Patience
// consecutive ping-pongs have not improved the minimum RTT (the paper's
// n_pingpongs = 100), or after MaxPingPongs.
//
// Both ranks get the offset (the reference sends it to the client).
type NetgaugePingPong struct {
	Patience     int
	MaxPingPongs int
}

// Prepare does nothing: the RTT is measured by the ping-pongs themselves.
func (m *NetgaugePingPong) Prepare(l *Link) error { return nil }

// MeasureOffset runs the ping-pongs; see the type's documentation.
func (m *NetgaugePingPong) MeasureOffset(l *Link) (Sample, error) {
	if err := l.check(); err != nil {
		return Sample{}, err
	}
	patience := max(m.Patience, 1)
	maxpp := m.MaxPingPongs
	if maxpp <= 0 {
		maxpp = math.MaxInt
	}
	c := l.Comm
	var cmd [2]float64
	if l.IsRef() {
		best := math.Inf(1)
		var off, at float64
		for i, since := 0, 0; i < maxpp && since < patience; i++ {
			s := l.Now()
			cmd = [2]float64{1, s}
			if err := mpi.Send(c, cmd[:], l.Client, tagPing); err != nil {
				return Sample{}, err
			}
			tremote, err := c.RecvFloat64(l.Client, tagPong)
			if err != nil {
				return Sample{}, err
			}
			e := l.Now()
			if rtt := e - s; rtt < best {
				best, since = rtt, 0
				off = tremote - s - rtt/2
				at = s + rtt/2
			} else {
				since++
			}
		}
		l.RTT = best
		cmd = [2]float64{0, off}
		if err := mpi.Send(c, cmd[:], l.Client, tagPing); err != nil {
			return Sample{}, err
		}
		return Sample{Local: at, Offset: off}, nil
	}
	var last float64
	for {
		if err := mpi.Recv(c, cmd[:], l.Ref, tagPing); err != nil {
			return Sample{}, err
		}
		if cmd[0] == 0 {
			return Sample{Local: last, Offset: cmd[1]}, nil
		}
		last = l.Now()
		if err := c.SendFloat64(last, l.Ref, tagPong); err != nil {
			return Sample{}, err
		}
	}
}
