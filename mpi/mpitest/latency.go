package mpitest

import (
	"math"
	"time"
)

// Latency is the network model: the one-way time of a message of n bytes
// from rank s to rank d is
//
//	Base ± Asymmetry/2 + Exp(mean Jitter) + (Spike with probability SpikeProb) + n/BytesPerSecond
//
// where +Asymmetry/2 applies when s < d and −Asymmetry/2 when s > d (the
// sum is clamped at zero). A zero field selects its default; Off (any
// negative value) turns the component off.
//
// The random parts of the k-th message on the link (s, d) are a fixed
// function of Config.Seed, s, d and k, so a link's latencies do not depend
// on the traffic of other links or on goroutine scheduling.
type Latency struct {
	Base      time.Duration // one-way latency; default 1 µs
	Jitter    time.Duration // mean of the exponential jitter; default 100 ns
	SpikeProb float64       // probability of a spike per message (OS noise); default 0.01
	Spike     time.Duration // extra latency of a spike; default 20 µs
	Asymmetry time.Duration // difference between the two directions of a link; default 0

	// BytesPerSecond is the bandwidth: the sender of a message of n
	// bytes is busy for n/BytesPerSecond (injection), and the message
	// arrives the latency after that, as in LogGP. A receiver takes in
	// one message at a time: a receive completes no earlier than the
	// previous one plus n/BytesPerSecond (so a root gathering P blocks
	// pays for P blocks). Default 10e9 (10 GB/s); Off means infinite.
	BytesPerSecond float64

	// InterNode, when not nil and Config.RanksPerNode > 0, is the model
	// for messages between ranks of different nodes (its own zero fields
	// take the package defaults, not the fields of the enclosing Latency).
	InterNode *Latency

	// PerLink, when not nil, gives the model of each link (world ranks),
	// overriding the fields above and InterNode. It is called for every
	// message and must be a pure function.
	PerLink func(src, dst int) Latency
}

// Defaults of Latency.
const (
	DefaultBase           = time.Microsecond
	DefaultJitter         = 100 * time.Nanosecond
	DefaultSpikeProb      = 0.01
	defaultSpike          = 20 * time.Microsecond
	defaultBytesPerSecond = 10e9
)

// linkModel is a resolved Latency in seconds.
type linkModel struct {
	base, jitter, spikeP, spike, asym, secPerByte float64
}

func (l *Latency) resolve() linkModel {
	m := linkModel{
		base:   orD(l.Base, DefaultBase).Seconds(),
		jitter: orD(l.Jitter, DefaultJitter).Seconds(),
		spikeP: orF(l.SpikeProb, DefaultSpikeProb),
		spike:  orD(l.Spike, defaultSpike).Seconds(),
		asym:   l.Asymmetry.Seconds(),
	}
	if bw := orF(l.BytesPerSecond, defaultBytesPerSecond); bw > 0 {
		m.secPerByte = 1 / bw
	}
	return m
}

// draw returns the latency in seconds (without the bandwidth term) of
// message seq on the link src→dst; pre is hashPrefix(seed, domLatency)
// (World.latSeed).
func (m *linkModel) draw(pre uint64, src, dst int, seq uint64) float64 {
	lat := m.base
	if src < dst {
		lat += m.asym / 2
	} else if src > dst {
		lat -= m.asym / 2
	}
	if m.jitter > 0 || m.spikeP > 0 {
		h := hashRest(pre, uint64(src)<<32|uint64(uint32(dst)), seq)
		if m.jitter > 0 {
			lat += -m.jitter * math.Log1p(-unit(h))
		}
		if m.spikeP > 0 && unit(mix(h^0x5851f42d4c957f2d)) < m.spikeP {
			lat += m.spike
		}
	}
	return math.Max(lat, 0)
}

// Random streams: every draw is a hash of (seed, domain, index, index), a
// counter-based generator, so no state is shared between goroutines.
const (
	domClock uint64 = iota + 1
	domLatency
	domWander
)

// mix is the splitmix64 finalizer.
func mix(x uint64) uint64 {
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	x ^= x >> 31
	return x
}

// The constants of hash4.
const hashG, hashG2, hashG3 = 0x9e3779b97f4a7c15, 0x3c6ef372fe94f82a, 0xdaa66d2c7ddf743f

// hash4 hashes (seed, a, b, c); it equals hashRest(hashPrefix(seed, a), b, c).
func hash4(seed, a, b, c uint64) uint64 {
	return hashRest(hashPrefix(seed, a), b, c)
}

// hashPrefix is the part of hash4 that depends on seed and a only, for a
// stream whose seed and domain are fixed.
func hashPrefix(seed, a uint64) uint64 {
	return mix(mix(seed+hashG) ^ (a + hashG))
}

// hashRest completes hash4 from hashPrefix(seed, a).
func hashRest(pre, b, c uint64) uint64 {
	return mix(mix(pre^(b+hashG2)) ^ (c + hashG3))
}

// unit maps a hash to a uniform float64 in [0, 1).
func unit(h uint64) float64 { return float64(h>>11) * 0x1p-53 }

// normal returns a standard normal variate for stream seed, index i
// (Box–Muller).
func normal(seed, i uint64) float64 {
	u1 := unit(hash4(seed, domWander, i, 0))
	u2 := unit(hash4(seed, domWander, i, 1))
	return math.Sqrt(-2*math.Log1p(-u1)) * math.Cos(2*math.Pi*u2)
}
