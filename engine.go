// The engine is the experiment loop of reprobench: given a
// communicator, a clock, a global clock and a list of experiments, it runs
// each (warm-up, then the measured observations under the experiment's
// process synchronization, package window) and streams one raw row per
// observation to a rowSink on rank 0. It never aggregates: summaries are the
// analysis package's job (Stanisic et al. 2017: separate design, engine and analysis).
//
// Per experiment, the ranks' timestamps are gathered at rank 0 once, after
// the last observation, so the observation loop itself does not
// communicate beyond what the method needs and does not allocate.

package reprobench

import (
	"fmt"
	"runtime"
	"time"

	"github.com/reprobench/reprobench/analysis"
	"github.com/reprobench/reprobench/cache"
	"github.com/reprobench/reprobench/completion"
	"github.com/reprobench/reprobench/cpuload"
	"github.com/reprobench/reprobench/factor"
	"github.com/reprobench/reprobench/mpi"
	"github.com/reprobench/reprobench/rawdata"
	"github.com/reprobench/reprobench/timing"
	"github.com/reprobench/reprobench/window"
)

// Experiment is one cell of the design: a call at a message size, observed
// Nrep times.
type Experiment struct {
	Exp        int           // index in the run, recorded in the raw data
	Call       mpi.Call      //
	MsizeBytes int           // bytes per rank's contribution (a multiple of Type's size)
	Type       mpi.Datatype  //
	Op         mpi.ReduceOp  // for reductions; Sum by default
	Root       int           // root of rooted calls, first rank of a ping-pong (the peer is Root+1 mod P)
	Nrep       int           // recorded observations (round-time: valid ones)
	Warmup     int           // unrecorded observations before (same method; they adapt the window)
	Sync       window.Config // process synchronization
	Runtime    completion.Type
	LoopReps   int        // calls per observation for completion.Type.Loops (default 100)
	Cache      cache.Mode //
	CacheSlots int        // buffer copies for cache.Cycle and cache.Random (default 16)
	FlushBytes int        // cache.Cold: bytes overwritten (default: cache.PrivateBytes, else 32 MiB)
	Seed       uint64     // for cache.Random
	// Prehistory is the opt-in design factor that moves hidden per-peer
	// transport state on purpose (prehistory.go): Prehistory.Msgs empty
	// one-way messages from each even rank to the rank after it, after
	// the warm-up and before the measured observations. Zero: none.
	Prehistory Prehistory
	// ClockSync is the clock synchronization spec in force for this
	// experiment (clocksync's syntax, or "none"); Run applies it.
	// It is recorded in the raw data's clocksync column.
	ClockSync string
	// Labels are user factors recorded as columns of its rows (rawdata).
	Labels map[string]string
	// Params are the levels of the factor table's call parameters (package
	// factor: skew, bw_window, rma_sync, in_place, root_shift); an unset
	// parameter is at its row's default. A parameter the call does not
	// take is ignored (and not recorded), except a skew above 1, which
	// such a call refuses (mpi.CheckSkew).
	Params factor.Values

	// Overlap, for a non-blocking collective (the nbc family), selects
	// the overlap measurement with its parameters (nbc.go); nil measures
	// the call alone.
	Overlap *Overlap

	// Func, when set, is the user's own operation, measured instead of
	// Call (func.go): each observation waits as Sync says, then times one
	// call of Func on every rank (window.Sync.RunFunc), and its completion
	// time is Runtime's, local or global. Name is its call column in the
	// raw data; MsizeBytes and Type describe what one call moves per rank
	// (msize_bytes, count, datatype). Call, Op, Root, the loop and the
	// cache fields do not apply. Func must be called by every rank once
	// per observation (it is, collectively) and must not keep a reference
	// to the communicator's buffers between calls.
	Func func() error
	Name string

	// VerifyResults checks the operation's result (check.go): every
	// rank's send buffers hold mpi.FillCheck's pattern, and after the
	// measured observations each rank compares the receive buffer the
	// last one left with the row's Result (mpi.VerifyResult); a
	// difference on any rank marks that observation's row
	// window.CodeWrongResult. The check runs outside every timed
	// interval and after the window sequence, so it takes no window's
	// slack. Ignored for Func.
	VerifyResults bool

	// Stop, when not nil, makes the number of observations adaptive
	// (adaptive.go): the experiment observes in batches until the stop
	// rule is met on its valid observations, or its cap is reached, and
	// Nrep is ignored. Its zero fields take analysis's defaults. Not
	// with Overlap.
	Stop *analysis.StopRule
}

// CallName returns the raw data's call column of the experiment: Name for
// a user's function (Func), else Call's MPI name.
func (e *Experiment) CallName() string {
	if e.Func != nil {
		return e.Name
	}
	return e.Call.String()
}

// Raw returns what the raw data records of ex besides its rows: its
// factor levels and labels, to declare it to a rawdata.Writer.
func (e *Experiment) Raw() rawdata.Experiment {
	f := e.factorCells()
	r := rawdata.Experiment{Exp: e.Exp, Factors: f, Labels: e.Labels, NBCMode: e.NBCMode()}
	if !e.Prehistory.None() {
		r.Covariates = rawdata.Covariates{Prehistory: e.Prehistory.String(), PrehistoryMsgs: e.Prehistory.Msgs}
	}
	return r
}

// Declare returns the rawdata declarations of exps (Experiment.Raw).
func declare(exps []Experiment) []rawdata.Experiment {
	out := make([]rawdata.Experiment, len(exps))
	for i := range exps {
		out[i] = exps[i].Raw()
	}
	return out
}

// Count returns the number of elements per rank.
func (e *Experiment) Count() int {
	if s := e.Type.Size(); s > 0 {
		return e.MsizeBytes / s
	}
	return 0
}

// rowSink receives the output of rank 0. Row and RankRow values are reused
// after the call returns. *rawdata.Writer is a rowSink that writes the files
// "reprobench analyze" reads.
type rowSink interface {
	Row(r *rawdata.Row) error
	// RankRow is called only when engine.PerRank is set.
	RankRow(r *rawdata.RankRow) error
	// EndExperiment is called after the rows of an experiment (flush here).
	EndExperiment(s *rawdata.Summary) error
}

// engine runs experiments on one rank. Every rank makes one with the same
// experiments and calls Run collectively.
type engine struct {
	Comm   mpi.Comm
	Clock  timing.Clock       // the clock the critical path reads; the base clock of Global
	Global window.GlobalClock // nil: window.Identity (no global time)
	// Resync, when set, is called collectively before an experiment when
	// ResyncEvery has passed since the last call (zero: before every
	// experiment); it re-synchronizes the clocks as ex.ClockSync says.
	Resync      func(ex *Experiment) error
	ResyncEvery time.Duration
	PerRank     bool
	// Progress, when set, is called on rank 0 after each experiment.
	Progress func(done, total int)
	// NoiseGuard is this rank's noise guard state, shared by the
	// experiments whose Sync.NoiseGuard is set (window.NoiseGuard: the
	// nodes, what was learned); nil: Run makes one with every rank on one
	// node.
	NoiseGuard *window.NoiseGuard
	// BeforeWindows, when set, is called collectively once per Run: after
	// the clock synchronization before the first experiment whose method
	// is windowed (window.Method.Windowed), before that experiment runs.
	// package pipeline measures the machine's own late share there
	// (window.MeasureBaseline).
	BeforeWindows func(ex *Experiment) error
	// CPULoad, when set, reads this rank's CPU-time sample (cpuload.Read):
	// just before each experiment's first measured observation and just
	// after its last, outside the timed part; one MPI_Allgather after the
	// observations collects the ranks' readings and rank 0's Summary.CPULoad
	// holds their combination (cpuload.Combine). Set on every rank or on
	// none. A rank whose reading fails contributes nothing. Run also
	// keeps each rank's first and last readings, and after the last
	// experiment collects them as the whole run's load (RunLoad).
	CPULoad func() (cpuload.Sample, error)
	// RunLoad is set by Run on rank 0 when CPULoad is set and every
	// experiment ran: the CPU time other processes took from just before
	// the first experiment's measured observations to just after the
	// last's, one pair of readings per rank (so that the clock ticks'
	// rounding, rawdata.CPULoad.ResolutionS, counts once, not once per
	// experiment), collected by one MPI_Allgather after the last
	// experiment.
	RunLoad *rawdata.CPULoad
	// BeginBatch and EndBatch, when set, are called on every rank just
	// before and just after each batch of measured observations (one per
	// experiment, or one per look of its stop rule; not the warm-up),
	// outside the timed part: Run reads the rank's CPU there
	// (provenance.Binding.BeginBatch).
	BeginBatch, EndBatch func()

	// span is this rank's first and last CPU-time readings of the run,
	// and spanErr the first failed one.
	span    [2]cpuload.Sample
	spanN   int
	spanErr error
}

// Run executes the experiments in order; rank 0 writes to sink (other ranks
// may pass nil). It returns the summaries on rank 0.
func (e *engine) Run(exps []Experiment, sink rowSink) ([]rawdata.Summary, error) {
	if e.Comm == nil || e.Clock == nil {
		return nil, fmt.Errorf("reprobench: the engine needs a Comm and a Clock")
	}
	if e.Comm.Rank() == 0 && sink == nil {
		return nil, fmt.Errorf("reprobench: rank 0 needs a sink")
	}
	var sums []rawdata.Summary
	var lastSync time.Time
	e.RunLoad, e.spanN, e.spanErr = nil, 0, nil
	windowsSeen := false
	for i := range exps {
		ex := &exps[i]
		if e.Resync != nil && (lastSync.IsZero() || time.Since(lastSync) >= e.ResyncEvery) {
			if err := e.Resync(ex); err != nil {
				return sums, fmt.Errorf("reprobench: experiment %d: clock synchronization: %w", ex.Exp, err)
			}
			lastSync = time.Now()
		}
		if e.BeforeWindows != nil && !windowsSeen && ex.Sync.Method.Windowed() {
			windowsSeen = true
			if err := e.BeforeWindows(ex); err != nil {
				return sums, fmt.Errorf("reprobench: before experiment %d: %w", ex.Exp, err)
			}
		}
		s, err := e.runOne(ex, sink)
		if err != nil {
			return sums, fmt.Errorf("reprobench: experiment %d (%s, %d bytes): %w", ex.Exp, ex.CallName(), ex.MsizeBytes, err)
		}
		if e.Comm.Rank() == 0 {
			sums = append(sums, *s)
			if err := sink.EndExperiment(s); err != nil {
				return sums, err
			}
			if e.Progress != nil {
				e.Progress(i+1, len(exps))
			}
		}
	}
	if e.CPULoad != nil {
		l, err := e.gatherRank(loadVector(e.span[0], e.span[1], e.spanN > 0 && e.spanErr == nil))
		if err != nil {
			return sums, fmt.Errorf("reprobench: the run's CPU load: %w", err)
		}
		e.RunLoad = l
	}
	return sums, nil
}

// noteSpan keeps o's readings as the run's first (when it is the first
// experiment measured) and last.
func (e *engine) noteSpan(o *observed) {
	if e.CPULoad == nil {
		return
	}
	if o.loadErr != nil && e.spanErr == nil {
		e.spanErr = o.loadErr
	}
	if e.spanN == 0 {
		e.span[0] = o.load[0]
	}
	e.span[1] = o.load[1]
	e.spanN++
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

// Check validates an experiment for a communicator of size p: the call,
// datatype and message size, nrep ≥ 1 (or a valid stop rule), no negative count, the runtime type
// and cache mode, and the process synchronization's bounds
// (window.Config.Check).
func (ex *Experiment) Check(p int) error {
	if _, err := ex.check(p); err != nil {
		return fmt.Errorf("reprobench: %w", err)
	}
	return nil
}

// runOne runs one experiment: its plan (plan.go), the resources its call
// needs (collective), its observations, the result check and its rows.
func (e *engine) runOne(ex *Experiment, sink rowSink) (_ *rawdata.Summary, err error) {
	pl, err := e.newPlan(ex)
	if err != nil {
		return nil, err
	}
	if pl.obs != nil {
		var release func() error
		if release, err = mpi.Prepare(e.Comm, pl.obs); err != nil {
			return nil, fmt.Errorf("preparing %v: %w", ex.Call, err)
		}
		defer func() {
			if rerr := release(); rerr != nil && err == nil {
				err = fmt.Errorf("releasing %v: %w", ex.Call, rerr)
			}
		}()
	}
	if pl.overlap { // nbc: the overlap measurement sizes its kernel
		pl.obs.Overlap, pl.obs.TestEvery = true, ex.Overlap.TestEvery
		if pl.ovCal, err = calibrateKernel(e.Comm, e.Clock, pl.obs, ex); err != nil {
			return nil, err
		}
	}
	o := &observed{plan: pl}
	if err := e.measure(ex, o); err != nil {
		return nil, err
	}
	e.noteSpan(o)
	if ex.VerifyResults && pl.obs != nil {
		if err := e.verify(pl.obs, pl.rec); err != nil { // check.go
			return nil, err
		}
	}
	return e.rows(ex, o, sink)
}

// measure runs ex's warm-up and its measured observations (plan.run) into
// the plan's Record (o.rec), noting the noise guard's slots and the heap
// allocations of the measured observations in o.
func (e *engine) measure(ex *Experiment, o *observed) error {
	if ex.Warmup > 0 {
		if err := o.run(ex.Warmup, o.rec, true); err != nil {
			return fmt.Errorf("warm-up: %w", err)
		}
	}
	if n := ex.Prehistory.Msgs; n > 0 {
		if err := prehistory(e.Comm, n); err != nil {
			return fmt.Errorf("prehistory: %w", err)
		}
		o.traffic.Add(rawdata.TrafficPrehistory, rawdata.OneWay, prehistoryMessages(e.Comm.Size(), n), 0)
	}
	if o.guarded {
		o.slots0, o.skipped0 = e.NoiseGuard.Slots()
	}
	o.readLoad(e.CPULoad, 0)
	defer o.readLoad(e.CPULoad, 1)
	if ex.Stop != nil {
		return e.measureUntil(ex, o) // adaptive.go
	}
	var allocs uint64
	if err := e.runBatch(o, ex.Nrep, o.rec, &allocs); err != nil {
		return err
	}
	o.allocsPerObs = float64(allocs) / float64(max(o.rec.N, 1))
	return nil
}

// runBatch takes a batch of n measured observations into rec (o.run),
// between e.BeginBatch and e.EndBatch, and adds to *allocs the heap
// allocations of the observations alone (runtime.MemStats.Mallocs read
// just inside the batch hooks, whose own allocations are not the
// measurement's).
func (e *engine) runBatch(o *observed, n int, rec *window.Record, allocs *uint64) error {
	if e.BeginBatch != nil {
		e.BeginBatch()
	}
	var ms0, ms1 runtime.MemStats
	runtime.ReadMemStats(&ms0)
	err := o.run(n, rec, false)
	runtime.ReadMemStats(&ms1)
	*allocs += ms1.Mallocs - ms0.Mallocs
	if e.EndBatch != nil {
		e.EndBatch()
	}
	return err
}

// readLoad reads the CPU-time sample i (0: before, 1: after the measured
// observations) with read, when set; a failed reading is kept as such.
func (o *observed) readLoad(read func() (cpuload.Sample, error), i int) {
	if read == nil || (i == 1 && o.loadErr != nil) {
		return
	}
	s, err := read()
	o.load[i] = s
	if err != nil && o.loadErr == nil {
		o.loadErr = err
	}
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

// observed is what an experiment's observations leave for its rows,
// beside its plan.
type observed struct {
	*plan
	allocsPerObs float64 // heap allocations per measured observation on this rank
	// the noise guard's slot counts before the measured observations
	slots0, skipped0 int64
	traffic          rawdata.Traffic // what the engine sent outside the observations
	// adaptive.go: the completion reductions done while observing (nil:
	// rows does them) and the stop rule's record
	reduced *reduced
	stop    *rawdata.StopRecord
	// the CPU-time samples before and after the measured observations
	// (engine.CPULoad), and the first error reading them
	load    [2]cpuload.Sample
	loadErr error
}

// perRankChunkBytes bounds the bytes of the ranks' timestamps rank 0 holds
// at once when per-rank rows are asked for (engine.PerRank): they are
// gathered in chunks of at least one observation.
var perRankChunkBytes = 8 << 20

// perRankFields is the number of float64 per rank and observation that a
// per-rank row needs: local start and end, global start and end.
const perRankFields = 4

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
	red := o.reduced // adaptive.go: reduced while observing
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

// finalWindowS is the window in seconds after the adaptations of history
// (exact, as the raw data records them), or initial if there were none.
func finalWindowS(initial time.Duration, history []window.Adaptation) float64 {
	if len(history) == 0 {
		return initial.Seconds()
	}
	return history[len(history)-1].NewWindowS
}
