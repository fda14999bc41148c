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
	"math"
	"runtime"
	"time"

	"github.com/reprobench/reprobench/analysis"
	"github.com/reprobench/reprobench/cache"
	"github.com/reprobench/reprobench/completion"
	"github.com/reprobench/reprobench/cpuload"
	"github.com/reprobench/reprobench/factor"
	"github.com/reprobench/reprobench/internal/order"
	"github.com/reprobench/reprobench/mpi"
	"github.com/reprobench/reprobench/noiseguard"
	"github.com/reprobench/reprobench/rawdata"
	"github.com/reprobench/reprobench/timing"
	"github.com/reprobench/reprobench/window"
)

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
		if err := e.verify(pl.obs, pl.rec); err != nil {
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
		return e.measureUntil(ex, o)
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

// observed is what an experiment's observations leave for its rows,
// beside its plan.
type observed struct {
	*plan
	allocsPerObs float64 // heap allocations per measured observation on this rank
	// the noise guard's slot counts before the measured observations
	slots0, skipped0 int64
	traffic          rawdata.Traffic // what the engine sent outside the observations
	// measureUntil's completion reductions, done while observing (nil:
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

// finalWindowS is the window in seconds after the adaptations of history
// (exact, as the raw data records them), or initial if there were none.
func finalWindowS(initial time.Duration, history []window.Adaptation) float64 {
	if len(history) == 0 {
		return initial.Seconds()
	}
	return history[len(history)-1].NewWindowS
}

// newPlan validates ex and makes its plan on this rank (see plan),
// without communicating.
func (e *engine) newPlan(ex *Experiment) (*plan, error) {
	c := e.Comm
	pl, err := ex.check(c.Size())
	if err != nil {
		return nil, err
	}

	// The process synchronization, in one place.
	pl.g = e.Global
	if window.Absent(pl.g) {
		pl.g = window.Identity{Clock: e.Clock}
	}
	if ex.Runtime == completion.Global && window.Absent(e.Global) {
		return nil, fmt.Errorf("runtime type global needs synchronized clocks")
	}
	pl.began = time.Now()
	pl.overlap = ex.Overlap != nil && pl.obs != nil // nbc
	if pl.sy, err = window.New(c, e.Clock, e.Global, ex.Sync); err != nil {
		return nil, err
	}
	pl.rec = window.NewRecord(pl.sy.Config().Capacity(max(pl.maxObs, ex.Warmup)))
	switch { // the family's observations
	case pl.fn != nil:
		pl.run = func(n int, rec *window.Record, warmUp bool) error { return pl.sy.RunFunc(pl.fn, n, rec, warmUp) }
	default:
		pl.run = func(n int, rec *window.Record, warmUp bool) error { return pl.sy.Run(pl.obs, n, rec, warmUp) }
	}
	if ex.Sync.NoiseGuard && ex.Sync.Method.Windowed() {
		// The run's noise guard, made on first use.
		if e.NoiseGuard == nil {
			if e.NoiseGuard, err = window.NewNoiseGuard(nil, noiseguard.Config{}); err != nil {
				return nil, err
			}
		}
		pl.sy.Guard, pl.guarded = e.NoiseGuard, true
	}
	if pl.obs == nil {
		return pl, nil
	}

	// The buffers of a built-in call, buf_offset bytes after a page
	// boundary, with the result check's pattern in every send slot when
	// ex asks for the check (verify).
	slots := ex.CacheSlots
	if slots <= 0 {
		slots = DefaultCacheSlots
	}
	flush := ex.FlushBytes
	if ex.Cache == cache.Cold && flush <= 0 {
		if flush, err = cache.PrivateBytes(cache.SysCPU); err != nil {
			flush = 32 << 20
		}
	}
	pl.bufs = cache.NewBuffersAt(ex.Cache, pl.sendB, pl.recvB, slots, flush, ex.Seed, int(pl.levels.Level(factor.BufOffset)))
	if ex.VerifyResults {
		fillCheck(pl.bufs, ex.Type, c.Rank())
	}
	pl.obs.Send, pl.obs.Recv = pl.bufs.Send, pl.bufs.Recv
	if ex.Cache != cache.Warm {
		pl.sy.Buffers = pl.bufs
	}
	return pl, nil
}

// calibrateKernel sets o.KernelIters for this rank (see the comment at the
// top of the file) and returns the calibration on rank 0.
func calibrateKernel(c mpi.Comm, clk timing.Clock, o *mpi.Observation, ex *Experiment) (*rawdata.OverlapCalibration, error) {
	if ex.Runtime == completion.OSU {
		o.TimedKernel, o.KernelIters = true, 0
		if c.Rank() != 0 {
			return nil, nil
		}
		return &rawdata.OverlapCalibration{Kernel: osuKernelDescription, TestEvery: ex.Overlap.TestEvery, TimeTargeted: true}, nil
	}
	cal := &rawdata.OverlapCalibration{Kernel: kernelDescription, TestEvery: ex.Overlap.TestEvery, Given: ex.Overlap.KernelIters > 0}
	k := ex.Overlap.KernelIters
	var target, kernel float64
	if k <= 0 {
		k = overlapStartIter
		cal.Rounds, cal.Observations = overlapRounds, overlapObs
		probe := *o
		probe.Offsets, probe.Flush = nil, nil
		probe.Overlap, probe.Reps, probe.TimeEach, probe.Sync = true, 1, false, mpi.SyncBarrier
		cal.ProbeReps = probe.Reps
		pure, comp := make([]float64, overlapObs), make([]float64, overlapObs)
		for range overlapRounds {
			probe.KernelIters = k
			for i := range overlapObs {
				if err := c.Observe(&probe, clk); err != nil {
					return nil, fmt.Errorf("calibrating the compute kernel: %w", err)
				}
				n := float64(probe.Reps)
				pure[i], comp[i] = clk.Freq().Seconds(probe.Pure)/n, clk.Freq().Seconds(probe.Compute)/n
			}
			target, kernel = order.Median(pure), order.Median(comp)
			if kernel > 0 && target > 0 {
				// At most ×1000 per round, so that one noisy round cannot
				// make the next one last seconds.
				f := math.Min(target/kernel, 1000)
				k = max(1, int64(math.Round(float64(k)*f)))
			}
		}
	}
	o.KernelIters = k
	mine := []float64{float64(k), target, kernel}
	var all []float64
	if c.Rank() == 0 {
		all = make([]float64, 3*c.Size())
	}
	if err := mpi.Gather(c, mine, all, 0); err != nil {
		return nil, err
	}
	if c.Rank() != 0 {
		return nil, nil
	}
	for r := range c.Size() {
		cal.KernelIters = append(cal.KernelIters, int64(all[3*r]))
		cal.TargetPureS = append(cal.TargetPureS, all[3*r+1])
		cal.KernelS = append(cal.KernelS, all[3*r+2])
	}
	return cal, nil
}

// measureUntil takes ex's measured observations in batches until ex.Stop
// is met or its cap reached: batches end at the rule's looks
// (analysis.StopRule.NextLook). After each batch the batch's completion
// times are reduced by allreduce (traffic purpose rawdata.TrafficStop;
// rows reuses them instead of reducing again), every rank judges the
// valid observations so far (error code 0), and one more allreduce (the
// minimum of the ranks' verdicts) makes them stop together: net-symmetric
// traffic only, and no rank decides for the others. The observations
// between the looks are taken exactly as a fixed run takes them; the
// experiment's order in the run is unchanged. o.stop records the rule,
// its parameters and the width reached.
func (e *engine) measureUntil(ex *Experiment, o *observed) error {
	st := analysis.NewStopper(*ex.Stop)
	rule := st.Rule()
	cp := newCompletion(ex, o.reps, e.Comm.Size(), e.Comm.Rank(), o.overlap)
	batch := window.NewRecord(o.sy.Config().Capacity(rule.Max))
	red := &reduced{}
	var valid []float64
	var allocs uint64
	verdict, agreed := make([]float64, 1), make([]float64, 1)
	n := 0 // observations asked for so far
	o.rec.N = 0
	for {
		next := rule.NextLook(n)
		if err := e.runBatch(o, next-n, batch, &allocs); err != nil {
			return err
		}
		i0 := o.rec.N
		appendRecord(o.rec, batch)
		r, err := e.reduce(cp, o, i0, o.rec.N, rawdata.TrafficStop)
		if err != nil {
			return err
		}
		red.mx, red.sm, red.late = append(red.mx, r.mx...), append(red.sm, r.sm...), max(red.late, r.late)
		for j := range o.rec.N - i0 {
			if o.rec.Code[i0+j] == 0 { // reduced across ranks already
				valid = append(valid, cp.runtime(r.mx[cp.nmax*j:cp.nmax*(j+1)], r.sm[cp.nsum*j:cp.nsum*(j+1)]))
			}
		}
		n = next
		verdict[0] = 0
		if st.Look(valid) {
			verdict[0] = 1
		}
		if err := mpi.Allreduce(e.Comm, verdict, agreed, mpi.Min); err != nil {
			return err
		}
		o.traffic.Add(rawdata.TrafficStop, rawdata.Symmetric, 1, 8)
		if agreed[0] == 1 || n >= rule.Max {
			break
		}
	}
	o.reduced = red
	o.allocsPerObs = float64(allocs) / float64(max(o.rec.N, 1))
	o.stop = stopRecord(st, n, len(valid), agreed[0] == 1)
	return nil
}

// appendRecord appends src's N observations to dst and advances dst.N,
// growing dst's slices past its capacity when a method records more
// attempts than its Capacity foresaw for the sum of the batches.
func appendRecord(dst, src *window.Record) {
	k := dst.N
	dst.Start = append(dst.Start[:k], src.Start[:src.N]...)
	dst.End = append(dst.End[:k], src.End[:src.N]...)
	dst.Late = append(dst.Late[:k], src.Late[:src.N]...)
	dst.Code = append(dst.Code[:k], src.Code[:src.N]...)
	dst.Deadline = append(dst.Deadline[:k], src.Deadline[:src.N]...)
	dst.Offset = append(dst.Offset[:k], src.Offset[:src.N]...)
	dst.Pure = append(dst.Pure[:k], src.Pure[:src.N]...)
	dst.Compute = append(dst.Compute[:k], src.Compute[:src.N]...)
	dst.N = k + src.N
}

// verify checks the result of the last measured observation of o, the one
// whose receive buffer the observations left (o.Recv), on every rank
// (mpi.VerifyResult), and marks its row window.CodeWrongResult when any
// rank found a difference. The ranks agree by one allreduce (MPI_MAX) of
// one int64, outside every timed interval and after the window sequence;
// the check's own cost is computing the expected result, O(p × send
// bytes) on each rank.
//
// A call that rotates its root (root_shift) is checked against the root
// of the observation's last call (mpi.VerifyResult).
//
// An in-place call (mpi.Observation.InPlace) reads its input from the
// receive buffer, which the timed calls overwrote, so its check runs one
// more call, untimed, after mpi.InPlaceInput put the send buffer's pattern
// there, and checks that call's result (with root_shift, that call is an
// observation's first: its root is o.Root).
func (e *engine) verify(o *mpi.Observation, rec *window.Record) error {
	c := e.Comm
	checked := o
	if o.InPlace() {
		one := *o
		one.Reps, one.Sync, one.TimeEach, one.Overlap, one.Offsets, one.Flush, one.CallIndex = 1, mpi.SyncBarrier, false, false, nil, nil, 0
		mpi.InPlaceInput(&one, c.Rank(), c.Size())
		if err := c.Observe(&one, e.Clock); err != nil {
			return err
		}
		checked = &one
	}
	bad, _ := mpi.VerifyResult(checked, c.Size(), c.Rank(), checked.Recv)
	mine, all := []int64{int64(bad)}, []int64{0}
	if err := mpi.Allreduce(c, mine, all, mpi.Max); err != nil {
		return err
	}
	if all[0] > 0 && rec.N > 0 {
		rec.Code[rec.N-1] |= window.CodeWrongResult
	}
	return nil
}

// fillCheck writes rank's result-check pattern (mpi.FillCheck) into every
// send slot of bufs, before the experiment's first observation.
func fillCheck(bufs *cache.Buffers, d mpi.Datatype, rank int) {
	bufs.FillSend(func(b []byte) { mpi.FillCheck(b, d, rank) })
}

// stopRecord is the sidecar's record of a stop rule after its last look
// at n observations asked for, valid of them valid; met says whether the
// ranks agreed the rule was met (false: the cap stopped it).
func stopRecord(st *analysis.Stopper, n, valid int, met bool) *rawdata.StopRecord {
	r, c := st.Rule(), st.Last()
	s := &rawdata.StopRecord{Rule: rawdata.StopRuleQuantileCI, Quantile: r.Quantile, Level: r.Level, IntervalLevel: r.IntervalLevel(), Width: r.Width,
		Min: r.Min, Max: r.Max, Confirm: r.Confirm, Looks: st.Looks(), Observations: n, Valid: valid,
		Met: met, Capped: !met}
	if c.Lo == c.Lo && c.Hi == c.Hi { // an interval exists
		s.EstimateS, s.CILoS, s.CIHiS, s.Reached = ptr(c.Estimate), ptr(c.Lo), ptr(c.Hi), ptr(c.Reached)
	} else if c.Estimate == c.Estimate {
		s.EstimateS = ptr(c.Estimate)
	}
	return s
}

func ptr(v float64) *float64 { return &v }
