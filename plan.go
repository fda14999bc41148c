package reprobench

import (
	"fmt"
	"time"

	"github.com/reprobench/reprobench/cache"
	"github.com/reprobench/reprobench/completion"
	"github.com/reprobench/reprobench/factor"
	"github.com/reprobench/reprobench/mpi"
	"github.com/reprobench/reprobench/noiseguard"
	"github.com/reprobench/reprobench/rawdata"
	"github.com/reprobench/reprobench/window"
)

// plan is one experiment as the engine runs it: what Run derives from
// the Experiment once, before its first observation, so that the
// observations only execute it and the rows only read it.
//
// Experiment.check derives its values while it validates the experiment,
// one owner at a time: the call's row of the operation table and its
// datatype, the call's parameters (the levels of the factor table's call
// parameters it takes, typed per family), the observations, and the
// process synchronization. engine.newPlan then makes, on each rank and
// without communicating, what the observations run on: the process
// synchronization in one place (the window.Sync, the run's noise guard,
// the Record), and the buffers of a built-in call.
type plan struct {
	ex    *Experiment
	name  string // the raw data's call column (Experiment.CallName)
	count int    // elements per rank (Experiment.Count)
	dtype string // the raw data's datatype column
	// The names the sidecar records of the process synchronization, the
	// runtime type and the cache mode.
	method, runtimeType, cache string

	// The levels of the call parameters that ex.Call takes
	// (mpi.Call.Levels), and the vcoll and p2p ones typed per family as
	// the sidecar records them (familyParams, p2p.go): zero where the
	// call takes none.
	levels factor.Values
	vcoll  vcollParams
	p2p    p2pParams

	// The family's part: fn for a user's function (func.go); obs for a
	// built-in call, whose call parameters mpi.Observation.SetParams types
	// per family (Skew for vcoll, BWWindow and RMASync for p2p), with the
	// bytes its buffers need and, once newPlan made them, the buffers;
	// overlap and, after the calibration, ovCal for the overlap
	// measurement of a non-blocking collective (nbc.go), whose phases the
	// Record holds (window.Record.Pure and Compute).
	fn           func() error
	obs          *mpi.Observation
	sendB, recvB int
	bufs         *cache.Buffers
	overlap      bool
	ovCal        *rawdata.OverlapCalibration

	// The process synchronization: the calls per observation, the most
	// observations ex records (Experiment.MaxObservations), and, from
	// newPlan, the global clock (window.Identity without one), the Sync,
	// whether the run's noise guard places its starts, the Record of the
	// observations, when the experiment started, and run, which takes n
	// observations into rec under the Sync as the family does: the
	// user's function (window.Sync.RunFunc) or the built-in call
	// (window.Sync.Run).
	reps    int
	maxObs  int
	g       window.GlobalClock
	sy      *window.Sync
	guarded bool
	rec     *window.Record
	began   time.Time
	run     func(n int, rec *window.Record, warmUp bool) error
}

// MaxObservations returns the most observations ex records: Nrep, or the
// stop rule's cap when Stop is set.
func (e *Experiment) MaxObservations() int {
	if e.Stop != nil {
		return e.Stop.WithDefaults().Max
	}
	return e.Nrep
}

// check validates an experiment for a communicator of size p
// (Experiment.Check) and returns the values of its plan that the
// validation derives. It allocates neither buffers nor a Sync, and does
// not communicate.
func (ex *Experiment) check(p int) (*plan, error) {
	pl := &plan{ex: ex, maxObs: ex.MaxObservations(), reps: 1}
	if ex.Func != nil {
		if err := ex.checkFunc(); err != nil { // func.go
			return nil, err
		}
		pl.name, pl.count, pl.dtype, pl.fn = ex.Name, ex.MsizeBytes/ex.Type.Size(), ex.Type.ShortName(), ex.Func
		pl.levels = ex.Call.Levels(ex.Params)
		pl.vcoll, pl.p2p = familyParams(pl.levels)
		pl.runtimeType, pl.cache, pl.method = ex.Runtime.String(), ex.Cache.String(), ex.Sync.Method.String()
		return pl, nil
	}

	// The call: its row of the operation table and its datatype.
	if !ex.Call.Valid() {
		return nil, fmt.Errorf("invalid call %v", ex.Call)
	}
	if !ex.Type.Valid() {
		return nil, fmt.Errorf("invalid datatype %v", ex.Type)
	}
	size := ex.Type.Size()
	if ex.MsizeBytes < 0 || ex.MsizeBytes%size != 0 {
		return nil, fmt.Errorf("message size %d bytes is not a multiple of %v's %d bytes", ex.MsizeBytes, ex.Type, size)
	}
	pl.count, pl.dtype = ex.MsizeBytes/size, ex.Type.ShortName()
	op := ex.Call.Op()
	pl.name = op.Name
	if err := op.CheckRanks(p); err != nil {
		return nil, err
	}
	if ex.Root < 0 || ex.Root >= p {
		return nil, fmt.Errorf("root %d out of range [0,%d)", ex.Root, p)
	}
	if err := op.CheckType(ex.Type, ex.Op); err != nil {
		return nil, err
	}
	if op.Bound && (ex.Cache == cache.Cycle || ex.Cache == cache.Random) {
		return nil, fmt.Errorf("%v: the request mpi.Prepare makes is bound to the buffers it was given, and cache mode %v moves them between observations (use warm or cold)", ex.Call, ex.Cache)
	}

	// The call's parameters: the levels it takes, typed per family in its
	// observation, and the bytes of its buffers (the row's rule,
	// Op.Buffers, with the vcoll family's skew).
	pl.levels = ex.Call.Levels(ex.Params)
	o := &mpi.Observation{Call: ex.Call, Count: pl.count, Type: ex.Type, Op: ex.Op, Root: ex.Root, Peer: (ex.Root + 1) % p}
	o.SetParams(ex.Params)
	pl.vcoll, pl.p2p = familyParams(pl.levels)
	if err := ex.checkParams(p, pl.count); err != nil {
		return nil, err
	}
	pl.sendB, pl.recvB = mpi.SkewedBufferSizes(ex.Call, pl.count, ex.Type, p, o.Skew)
	if err := ex.checkOverlap(); err != nil { // nbc
		return nil, err
	}

	// The observations.
	if err := ex.checkNrep(); err != nil {
		return nil, err
	}
	if ex.Prehistory.Msgs < 0 || ex.Prehistory.Max < 0 {
		return nil, fmt.Errorf("negative prehistory count %d or maximum %d", ex.Prehistory.Msgs, ex.Prehistory.Max)
	}
	if ex.LoopReps < 0 || ex.CacheSlots < 0 || ex.FlushBytes < 0 {
		return nil, fmt.Errorf("negative loop repetitions %d, cache slots %d or flush bytes %d (0: default)", ex.LoopReps, ex.CacheSlots, ex.FlushBytes)
	}

	// The method: the runtime type, the cache mode, the process
	// synchronization.
	pl.runtimeType = ex.Runtime.String()
	if _, err := completion.ParseType(pl.runtimeType); err != nil {
		return nil, err
	}
	if ex.Runtime.Loops() {
		pl.reps = ex.LoopReps
		if pl.reps <= 0 {
			pl.reps = 100
		}
	}
	o.Reps, o.TimeEach = pl.reps, ex.Runtime.TimesEach(ex.Call)
	pl.cache = ex.Cache.String()
	if _, err := cache.ParseMode(pl.cache); err != nil {
		return nil, err
	}
	pl.method = ex.Sync.Method.String()
	if err := ex.Sync.Check(); err != nil {
		return nil, err
	}
	pl.obs = o
	return pl, nil
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
	// ex asks for the check (check.go).
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
