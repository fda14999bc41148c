package reprobench

import (
	"fmt"
	"math"
	"time"

	"github.com/reprobench/reprobench/completion"
	"github.com/reprobench/reprobench/cpuload"
	"github.com/reprobench/reprobench/mpi"
	"github.com/reprobench/reprobench/rawdata"
	"github.com/reprobench/reprobench/window"
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

// rows computes each observation's completion time as ex.Runtime says by
// reductions across ranks (completion, Hunold & Carpen-Amarie 2016,
// Alg. 1), so that rank 0 holds O(observations) values whatever the rank
// count, and writes the rows to sink. With engine.PerRank it also gathers
// the ranks' timestamps at rank 0, in chunks of at most perRankChunkBytes
// (one observation at least), and writes the per-rank rows. It returns
// the experiment's Summary on rank 0, nil elsewhere.
//
// The reductions are allreduces, so that the instrument's own traffic
// between two ranks is net-symmetric; the per-rank gather, one-way, runs
// only when asked for.
func (e *engine) rows(ex *Experiment, o *observed, sink rowSink) (*rawdata.Summary, error) {
	c := e.Comm
	p, me := c.Size(), c.Rank()
	sy, rec, g, reps := o.sy, o.rec, o.g, o.reps
	cfg := sy.Config()
	n := rec.N
	// Each rank's contributions: the completion's slots per observation,
	// then, in the last maximum slot, the latest start of the rank. The
	// duration is computed from the tick difference on the rank (exact, and
	// in the rank's own frequency).
	cp := newCompletion(ex, reps, p, me, o.overlap)
	red := o.reduced // measureUntil's: reduced while observing
	if red == nil {
		var err error
		if red, err = e.reduce(cp, o, 0, n, rawdata.TrafficResults); err != nil {
			return nil, err
		}
	}
	mxAll, smAll := red.mx, red.sm
	load, err := e.gatherLoad(o)
	if err != nil {
		return nil, err
	}
	var sum *rawdata.Summary
	if me == 0 {
		sum = &rawdata.Summary{Exp: ex.Exp, Call: o.name, MsizeBytes: ex.MsizeBytes, Method: o.method,
			RuntimeType: o.runtimeType, Cache: o.cache, WarmupCount: ex.Warmup, Rows: n,
			Adaptations: append([]window.Adaptation(nil), sy.History...), StartedAt: o.began.UTC(),
			AllocsPerObs: o.allocsPerObs, Overlap: o.ovCal, CPULoad: load}
		if !ex.Prehistory.None() {
			sum.Prehistory = ex.Prehistory.String()
		}
		sum.Skew, sum.BWWindow, sum.RMASync = o.vcoll.skew, o.p2p.bwWindow, o.p2p.rmaSync
		sum.LibraryBarrier = cfg.Method.LibraryBarrier()
		if cfg.Method.Windowed() && cfg.Method != window.RoundTime {
			sum.InitialWindow, sum.FinalWindowS = cfg.Window.Seconds(), finalWindowS(cfg.Window, sy.History)
		}
		if o.guarded {
			sum.NoiseGuard = e.NoiseGuard.Record(o.slots0, o.skipped0)
		}
		if cfg.Method.Windowed() {
			sum.MaxLateS = red.late
		}
		sum.Wait = sy.Wait()
	}
	row := rawdata.Row{Exp: ex.Exp, Call: o.name, MsizeBytes: ex.MsizeBytes, Count: o.count, Datatype: o.dtype, Np: p}
	rr := rawdata.RankRow{Exp: ex.Exp, Call: o.name, MsizeBytes: ex.MsizeBytes, Np: p}
	chunk := n // observations per chunk
	var mine, all []float64
	var sinkErr error
	if e.PerRank {
		chunk = max(1, min(n, perRankChunkBytes/(8*perRankFields*p)))
		mine = make([]float64, perRankFields*chunk)
		if me == 0 {
			all = make([]float64, perRankFields*chunk*p)
		}
	}
	for i0 := 0; i0 < n; i0 += chunk {
		m := min(chunk, n-i0) // observations in this chunk
		if e.PerRank {
			for j := range m {
				i, v := i0+j, mine[perRankFields*j:]
				v[0], v[1] = e.Clock.Freq().Seconds(rec.Start[i]), e.Clock.Freq().Seconds(rec.End[i])
				v[2], v[3] = g.ToGlobal(rec.Start[i]), g.ToGlobal(rec.End[i])
			}
			var recv []float64
			if me == 0 {
				recv = all[:perRankFields*m*p]
			}
			if err := mpi.Gather(c, mine[:perRankFields*m], recv, 0); err != nil {
				return nil, err
			}
			o.traffic.Add(rawdata.TrafficResults, rawdata.OneWay, int64(p-1), int64(8*perRankFields*m*(p-1)))
		}
		if me != 0 || sinkErr != nil {
			continue // a failed sink stops the writing, not the gathers the other ranks are in
		}
		for j := range m {
			i := i0 + j
			row.Rep, row.ErrorCode = i, int(rec.Code[i]) // the code is reduced across ranks already
			mxi, smi := mxAll[cp.nmax*i:cp.nmax*(i+1)], smAll[cp.nsum*i:cp.nsum*(i+1)]
			row.RuntimeS = cp.runtime(mxi, smi)
			if o.overlap {
				cp.overlapRow(&row, smi) // nbc
			}
			if row.ErrorCode != 0 {
				sum.Invalid++
			}
			if sinkErr = sink.Row(&row); sinkErr != nil {
				break
			}
			if !e.PerRank {
				continue
			}
			rr.Rep, rr.ErrorCode = i, row.ErrorCode
			for r := range p {
				v := all[r*perRankFields*m+perRankFields*j:]
				rr.Rank = r
				rr.LocalStartS, rr.LocalEndS, rr.GlobalStartS, rr.GlobalEndS = v[0], v[1], v[2], v[3]
				if sinkErr = sink.RankRow(&rr); sinkErr != nil {
					break
				}
			}
			if sinkErr != nil {
				break
			}
		}
	}
	if me != 0 {
		return nil, nil
	}
	if sinkErr != nil {
		return nil, sinkErr
	}
	sum.Traffic = o.traffic
	sum.Stop = o.stop
	sum.DurationS = time.Since(o.began).Seconds()
	return sum, nil
}

// gatherLoad collects every rank's CPU-time reading of the experiment
// (one MPI_Allgather of cpuload.RankFields int64, counted as
// rawdata.TrafficCPULoad) and returns their combination on rank 0; nil
// when e.CPULoad is not set, or on other ranks.
func (e *engine) gatherLoad(o *observed) (*rawdata.CPULoad, error) {
	if e.CPULoad == nil {
		return nil, nil
	}
	o.traffic.Add(rawdata.TrafficCPULoad, rawdata.Symmetric, 1, 8*cpuload.RankFields)
	return e.gatherRank(loadVector(o.load[0], o.load[1], o.loadErr == nil))
}

// gatherRank collects every rank's reading (mine: cpuload.Rank.Vector, or
// zeros for none) with one MPI_Allgather and returns their combination
// on rank 0, nil on other ranks.
func (e *engine) gatherRank(mine []int64) (*rawdata.CPULoad, error) {
	c := e.Comm
	p := c.Size()
	all := make([]int64, cpuload.RankFields*p)
	if err := mpi.Allgather(c, mine, all); err != nil {
		return nil, fmt.Errorf("collecting the CPU load: %w", err)
	}
	if c.Rank() != 0 {
		return nil, nil
	}
	ranks := make([]cpuload.Rank, p)
	for r := range p {
		ranks[r] = cpuload.RankOf(all[r*cpuload.RankFields:])
	}
	return cpuload.Combine(ranks), nil
}

// loadVector is this rank's reading between a and b as exchanged
// (cpuload.Rank.Vector), or zeros for none: ok false, or readings that
// cpuload.Delta refuses.
func loadVector(a, b cpuload.Sample, ok bool) []int64 {
	if ok {
		if r, err := cpuload.Delta(a, b); err == nil {
			return r.Vector()
		}
	}
	return make([]int64, cpuload.RankFields)
}
