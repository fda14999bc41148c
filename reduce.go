package reprobench

import (
	"math"

	"github.com/reprobench/reprobench/completion"
	"github.com/reprobench/reprobench/mpi"
	"github.com/reprobench/reprobench/rawdata"
)

// completionSlots is the reduced form of an experiment's completion time
// (Hunold & Carpen-Amarie 2016, Alg. 1): what each rank contributes per
// observation to an element-wise maximum and to an element-wise sum across
// ranks, so that rank 0 needs O(observations) values, not O(ranks ×
// observations). Its results equal the definitions of the runtime types
// (completion.Type) on the ranks' gathered values (their tick
// durations, global starts and ends); sums may differ from a sum in
// rank order in the last bits, since a reduction combines in its own
// order.
//
// Maximum slots per observation: local and loop: the duration; global:
// the global end and the negated global start (max(−s) = −min s); osu and
// imb with a timing rank (mpi.Call.Timer) or a ping-pong: the duration of
// the ranks whose clock the definition reads, −Inf on the others. Sum
// slots: osu and imb otherwise: the duration per call; the overlap
// measurement adds the pure, compute and total seconds.
type completionSlots struct {
	rt       completion.Type
	reps     int  // calls per observation
	p, me    int  // ranks, this rank
	timer    int  // osu/imb: the rank whose duration is the runtime, -1: none
	pingpong bool // osu/imb ping-pong: root (and for imb its peer) count
	root     int
	overlap  bool
	nmax     int // maximum slots per observation
	nsum     int // sum slots per observation
}

func newCompletion(ex *Experiment, reps, p, me int, overlap bool) *completionSlots {
	c := &completionSlots{rt: ex.Runtime, reps: reps, p: p, me: me, timer: -1, root: ex.Root, overlap: overlap}
	switch ex.Runtime {
	case completion.Global:
		c.nmax = 2
	case completion.OSU, completion.IMB:
		if ex.Func == nil {
			c.timer = ex.Call.Timer(ex.Root)
			c.pingpong = ex.Call == mpi.CallPingPong
		}
		if c.timer >= 0 || c.pingpong {
			c.nmax = 1
		} else {
			c.nsum = 1
		}
	default:
		c.nmax = 1
	}
	if overlap {
		c.nsum += 3
	}
	return c
}

// counts reports whether this rank's duration is the one (or one of the
// two) an osu or imb runtime reads.
func (c *completionSlots) counts() bool {
	switch {
	case c.timer >= 0:
		return c.me == c.timer
	case c.rt == completion.IMB:
		return c.me == c.root || c.me == (c.root+1)%c.p
	}
	return c.me == c.root
}

// contribute writes this rank's slots of one observation: mx gets nmax
// values, sm nsum; durS is the rank's duration (seconds, from its ticks),
// gs and ge its global start and end, pure and compute the overlap
// measurement's seconds (ignored without it).
func (c *completionSlots) contribute(mx, sm []float64, durS, gs, ge, pure, compute float64) {
	switch c.rt {
	case completion.Global:
		mx[0], mx[1] = ge, -gs
	case completion.OSU, completion.IMB:
		switch {
		case c.nmax == 0:
			sm[0] = durS / float64(c.reps)
		case c.counts():
			mx[0] = durS
		default:
			mx[0] = math.Inf(-1)
		}
	default:
		mx[0] = durS
	}
	if c.overlap {
		s := sm[len(sm)-3:]
		s[0], s[1], s[2] = pure, compute, durS
	}
}

// runtime returns an observation's completion time, seconds, from its
// reduced slots.
func (c *completionSlots) runtime(mx, sm []float64) float64 {
	switch c.rt {
	case completion.Global:
		return mx[0] + mx[1] // max end − min start
	case completion.Loop:
		return mx[0] / float64(c.reps)
	case completion.OSU, completion.IMB:
		switch {
		case c.nmax == 0:
			return sm[0] / float64(c.p)
		case c.timer >= 0:
			return mx[0] / float64(c.reps)
		}
		return mx[0] / (2 * float64(c.reps)) // ping-pong: half the round trip
	}
	return mx[0] // local, exact in ticks
}

// overlapRow fills the overlap columns of row from an observation's
// reduced sum slots, as the package-level overlapRow does from the ranks'
// values.
func (c *completionSlots) overlapRow(row *rawdata.Row, sm []float64) {
	s := sm[len(sm)-3:]
	n := float64(c.p * c.reps)
	row.PureS, row.ComputeS, row.TotalS = s[0]/n, s[1]/n, s[2]/n
	row.OverlapFrac = mpi.Overlap(row.PureS, row.ComputeS, row.TotalS)
}

// reduced is the completion reductions of an experiment's observations:
// the maximum and sum slots of each (completionSlots), identical on every
// rank, and the latest start over ranks and observations.
type reduced struct {
	mx, sm []float64
	late   float64
}

// reduce computes the completion slots of observations [i0, i1) of o.rec
// on this rank and reduces them across ranks by allreduce (net-symmetric
// traffic, counted under purpose), so that every rank holds them.
func (e *engine) reduce(cp *completionSlots, o *observed, i0, i1 int, purpose string) (*reduced, error) {
	rec, g := o.rec, o.g
	k := i1 - i0
	mx, sm := make([]float64, cp.nmax*k+1), make([]float64, cp.nsum*k)
	late := 0.0
	f := e.Clock.Freq()
	for j := range k {
		i := i0 + j
		var pure, comp float64
		if cp.overlap {
			pure, comp = f.Seconds(rec.Pure[i]), f.Seconds(rec.Compute[i]) // nbc
		}
		cp.contribute(mx[cp.nmax*j:cp.nmax*(j+1)], sm[cp.nsum*j:cp.nsum*(j+1)],
			f.Seconds(rec.End[i]-rec.Start[i]), g.ToGlobal(rec.Start[i]), g.ToGlobal(rec.End[i]), pure, comp)
		late = max(late, f.Seconds(rec.Late[i]))
	}
	mx[len(mx)-1] = late
	r := &reduced{mx: make([]float64, len(mx)), sm: make([]float64, len(sm))}
	if err := mpi.Allreduce(e.Comm, mx, r.mx, mpi.Max); err != nil {
		return nil, err
	}
	if len(sm) > 0 {
		if err := mpi.Allreduce(e.Comm, sm, r.sm, mpi.Sum); err != nil {
			return nil, err
		}
	}
	o.traffic.Add(purpose, rawdata.Symmetric, 1, int64(8*len(mx)))
	if len(sm) > 0 {
		o.traffic.Add(purpose, rawdata.Symmetric, 1, int64(8*len(sm)))
	}
	r.late = r.mx[len(r.mx)-1]
	r.mx = r.mx[:len(r.mx)-1]
	return r, nil
}

// recordBytes is what window.Record holds per observation: start, end,
// late seconds, code, deadline, offset, and the pure and compute ticks.
const recordBytes = 8 + 8 + 8 + 1 + 8 + 8 + 8 + 8

// rank0Bytes returns the bytes the engine allocates on rank 0 of p ranks
// for ex's observations and results: the observation record (its
// capacity under ex's process synchronization), the reductions' buffers
// and, with perRank, the per-rank chunk (at most perRankChunkBytes). It
// leaves out what does not depend on the observation count (buffers of
// the call, the window's state). Without perRank it does not depend on p.
func rank0Bytes(ex *Experiment, p int, perRank bool) int64 {
	n := int64(ex.Sync.Capacity(max(ex.MaxObservations(), ex.Warmup)))
	c := newCompletion(ex, 1, p, 0, ex.Overlap != nil)
	b := n*recordBytes + 2*8*(int64(c.nmax+c.nsum)*n+1)
	if perRank {
		chunk := max(1, min(n, int64(perRankChunkBytes/(8*perRankFields*p))))
		b += 8 * perRankFields * chunk * int64(p+1)
	}
	return b
}
