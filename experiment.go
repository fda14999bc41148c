// An experiment (Experiment): its fields, its checks, and the decisions Run
// takes from the list before the first experiment runs (the clock
// synchronization and its accuracy, the fallback where no bound is stated,
// the noise guard). The files follow an experiment's path: run.go (Run),
// factors.go (its raw declaration), experiment.go (its checks), engine.go
// (its measurement), reduce.go (its completion times and rows).

package reprobench

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/reprobench/reprobench/analysis"
	"github.com/reprobench/reprobench/cache"
	"github.com/reprobench/reprobench/clocksync"
	"github.com/reprobench/reprobench/completion"
	"github.com/reprobench/reprobench/factor"
	"github.com/reprobench/reprobench/mpi"
	"github.com/reprobench/reprobench/rawdata"
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
	// Call: each observation waits as Sync says, then times one
	// call of Func on every rank (window.Sync.RunFunc), and its completion
	// time is Runtime's, local or global. Name is its call column in the
	// raw data; MsizeBytes and Type describe what one call moves per rank
	// (msize_bytes, count, datatype). Call, Op, Root, the loop and the
	// cache fields do not apply. Func must be called by every rank once
	// per observation (it is, collectively) and must not keep a reference
	// to the communicator's buffers between calls.
	Func func() error
	Name string

	// VerifyResults checks the operation's result: every
	// rank's send buffers hold mpi.FillCheck's pattern, and after the
	// measured observations each rank compares the receive buffer the
	// last one left with the row's Result (mpi.VerifyResult); a
	// difference on any rank marks that observation's row
	// window.CodeWrongResult. The check runs outside every timed
	// interval and after the window sequence, so it takes no window's
	// slack. Ignored for Func.
	VerifyResults bool

	// Stop, when not nil, makes the number of observations adaptive
	// (engine.measureUntil): the experiment observes in batches until the stop
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

// Count returns the number of elements per rank.
func (e *Experiment) Count() int {
	if s := e.Type.Size(); s > 0 {
		return e.MsizeBytes / s
	}
	return 0
}

// NBCMode returns the raw data's nbc_mode of ex: "" for an experiment
// that is not the overlap measurement, "overlap", or "overlap_test<k>".
func (ex *Experiment) NBCMode() string {
	if ex.Overlap == nil {
		return ""
	}
	if ex.Overlap.TestEvery > 0 {
		return "overlap_test" + strconv.FormatInt(ex.Overlap.TestEvery, 10)
	}
	return "overlap"
}

// CheckExperiments returns what Run refuses in exps with opt before it
// writes anything, found without communicating and so the same on every
// rank: no experiments, an experiment that cannot run on np ranks
// (Experiment.Check), a clock synchronization that does not parse
// or is none for an experiment that needs synchronized clocks
// (opt.ClockSync), or an accuracy option that a spec cannot take
// (opt.ClockAccuracy). A command checks its flags with it before Run.
func CheckExperiments(exps []Experiment, opt Options, np int) error {
	_, _, _, err := checkExperiments(append([]Experiment(nil), exps...), opt, np)
	return err
}

// checkExperiments is CheckExperiments on exps, whose clock
// synchronizations it resolves: it returns the run-wide spec and the
// default accuracy target with how it was derived.
func checkExperiments(exps []Experiment, opt Options, np int) (spec string, target clocksync.Accuracy, why string, err error) {
	if len(exps) == 0 {
		err = errors.New("reprobench: Run: no experiments")
	}
	for i := range exps {
		if e := exps[i].Check(np); e != nil {
			err = errors.Join(err, fmt.Errorf("experiment %d: %w", exps[i].Exp, e))
		}
	}
	spec, e := opt.clockSyncText()
	if e != nil {
		return spec, target, why, errors.Join(err, e)
	}
	spec, e = resolveClockSync(exps, spec)
	if e != nil {
		return spec, target, why, errors.Join(err, e)
	}
	target, why = clockAccuracy(exps)
	return spec, target, why, errors.Join(err, checkAccuracy(exps, opt.clockAccuracyText(), target))
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

// check validates an experiment for a communicator of size p
// (Experiment.Check) and returns the values of its plan that the
// validation derives. It allocates neither buffers nor a Sync, and does
// not communicate.
func (ex *Experiment) check(p int) (*plan, error) {
	pl := &plan{ex: ex, maxObs: ex.MaxObservations(), reps: 1}
	if ex.Func != nil {
		if err := ex.checkFunc(); err != nil {
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

// MaxObservations returns the most observations ex records: Nrep, or the
// stop rule's cap when Stop is set.
func (e *Experiment) MaxObservations() int {
	if e.Stop != nil {
		return e.Stop.WithDefaults().Max
	}
	return e.Nrep
}

// checkFunc validates an experiment of a user's function (Experiment.Func):
// a name the raw data can hold that is no built-in call's, a datatype and
// a message size that is a multiple of it, nrep ≥ 1 (or a valid stop rule), the local or global
// runtime type, and none of the fields that apply to built-in calls only
// (which would otherwise be ignored silently).
func (ex *Experiment) checkFunc() error {
	if err := rawdata.CheckCall(ex.Name); err != nil {
		return fmt.Errorf("function's name: %w", err)
	}
	if c, err := mpi.ParseCall(ex.Name); err == nil {
		return fmt.Errorf("function's name %q is the built-in call %v: its rows would fall into that call's groups; choose another name", ex.Name, c)
	}
	if !ex.Type.Valid() {
		return fmt.Errorf("invalid datatype %v", ex.Type)
	}
	if ex.MsizeBytes < 0 || ex.MsizeBytes%ex.Type.Size() != 0 {
		return fmt.Errorf("message size %d bytes is not a multiple of %v's %d bytes", ex.MsizeBytes, ex.Type, ex.Type.Size())
	}
	if err := ex.checkNrep(); err != nil {
		return err
	}
	if ex.Runtime != completion.Local && ex.Runtime != completion.Global {
		return fmt.Errorf("runtime type %v: a function is timed once per observation, local or global", ex.Runtime)
	}
	// The values DefaultExperiment sets (or zero) are accepted: they do
	// not apply to a function, and a function's experiment starts from it.
	if ex.Cache != cache.Warm || (ex.LoopReps != 0 && ex.LoopReps != DefaultLoopReps) ||
		(ex.CacheSlots != 0 && ex.CacheSlots != DefaultCacheSlots) || ex.FlushBytes != 0 || ex.Overlap != nil {
		return fmt.Errorf("function %s: cache modes, loop repetitions, overlap and call parameters apply to built-in calls only", ex.Name)
	}
	for _, id := range factor.CallParams() {
		if v, ok := ex.Params.Get(id); ok && v != id.Row().Default {
			return fmt.Errorf("function %s: %s applies to built-in calls only", ex.Name, id)
		}
	}
	return ex.Sync.Check()
}

// checkNrep validates the number of observations: nrep ≥ 1 without a stop
// rule, a valid rule (not with the overlap measurement) with one, and a
// warm-up ≥ 0.
func (ex *Experiment) checkNrep() error {
	if ex.Warmup < 0 {
		return fmt.Errorf("need warm-up ≥ 0, have %d", ex.Warmup)
	}
	if ex.Stop == nil {
		if ex.Nrep < 1 {
			return fmt.Errorf("need nrep ≥ 1 and warm-up ≥ 0, have %d and %d", ex.Nrep, ex.Warmup)
		}
		return nil
	}
	if ex.Overlap != nil {
		return fmt.Errorf("an adaptive number of observations (Stop) does not apply to the overlap measurement")
	}
	return ex.Stop.Check()
}

// checkParams refuses call parameters out of their rows' bounds (package
// factor), a skew the call cannot take (mpi.CheckSkew: above 1 for a call
// without count vectors, or counts beyond MPI's int), and what mbw_mr
// cannot do on p ranks, before any rank starts the experiment (the rows'
// MinRanks is checked with every call's); count is the elements per rank.
func (e *Experiment) checkParams(p, count int) error {
	for _, id := range factor.CallParams() {
		if v, ok := e.Params.Get(id); ok {
			f := id.Row()
			if _, err := f.Parse(f.Format(v)); err != nil {
				return err
			}
		}
	}
	skew, _ := e.Params.Get(factor.Skew)
	if err := mpi.CheckSkew(e.Call, count, p, int(skew)); err != nil {
		return err
	}
	if e.Call == mpi.CallMBWMR && p%2 != 0 {
		return fmt.Errorf("mbw_mr pairs rank i with rank i+P/2 and needs an even number of ranks, have %d", p)
	}
	return nil
}

// checkOverlap refuses what the overlap measurement cannot do.
func (ex *Experiment) checkOverlap() error {
	ov := ex.Overlap
	if ov == nil {
		return nil
	}
	if !ex.Call.NonBlocking() {
		return fmt.Errorf("the overlap measurement needs a non-blocking collective (MPI_Iallreduce, …), not %v", ex.Call)
	}
	switch ex.Sync.Method {
	case window.Barrier, window.DoubleBarrier, window.Dissemination:
	default:
		return fmt.Errorf("the overlap measurement of %v waits before each of its two phases; process synchronization %v gives one start time per observation: use barrier, double_barrier or dissemination", ex.Call, ex.Sync.Method)
	}
	if ex.Runtime == completion.IMB {
		return fmt.Errorf("the overlap measurement follows OSU's definition; runtime type imb (IMB-NBC defines overlap by another formula) is not supported: use local, global, loop or osu")
	}
	if ov.TestEvery < 0 || ov.KernelIters < 0 {
		return fmt.Errorf("negative MPI_Test interval %d or kernel iterations %d", ov.TestEvery, ov.KernelIters)
	}
	if ex.Runtime == completion.OSU && ov.KernelIters > 0 {
		return fmt.Errorf("runtime type osu runs OSU's time-targeted kernel, aimed at each observation's pure time; "+
			"a fixed kernel iteration count (%d) applies to local, global and loop", ov.KernelIters)
	}
	return nil
}

// resolveClockSync sets the clock synchronization of the experiments that
// have none (ClockSync ""): spec, or for spec "auto"
// the algorithm of clocksync.Default when one of
// them needs synchronized clocks and none otherwise. It returns the
// run-wide spec and refuses an experiment that needs synchronized clocks
// under "none".
func resolveClockSync(exps []Experiment, spec string) (string, error) {
	if err := checkClockSync(spec); err != nil {
		return "", err
	}
	if spec == "auto" {
		spec = "none"
		for i := range exps {
			if needsGlobalClock(&exps[i]) && (exps[i].ClockSync == "" || exps[i].ClockSync == "auto") {
				spec = clocksync.Default().Name
			}
		}
	}
	for i := range exps {
		ex := &exps[i]
		if ex.ClockSync == "" || ex.ClockSync == "auto" {
			ex.ClockSync = spec
		}
		if ex.ClockSync == "none" && needsGlobalClock(ex) {
			return "", fmt.Errorf("reprobench: experiment %d (%v, %v runtime) needs synchronized clocks, but its clock sync is none", ex.Exp, ex.Sync.Method, ex.Runtime)
		}
	}
	return spec, nil
}

// needsGlobalClock reports whether ex needs synchronized clocks (a
// windowed method or the global runtime).
func needsGlobalClock(ex *Experiment) bool {
	return ex.Sync.Method.Windowed() || ex.Runtime == completion.Global
}

// clockAccuracy derives the clock accuracy target of a run from its
// experiments, for resyncOptions.Default, and says how. The error
// is the smallest late tolerance (window.Config.LateTolerance, 1 µs when
// unset) of the experiments that synchronize clocks, and at most a tenth of
// a windowed experiment's window: a rank's clock error moves its window
// starts against the other ranks', which the late tolerance is the run's
// measure of. The horizon is the longest expected duration of such an
// experiment — (warmup + nrep) windows for the windowed methods, the
// budget for round-time — rounded up to whole seconds, at least 1 s. A
// clocksync.Resyncer re-synchronizes when a later experiment would outlast
// the bound. It returns the zero target when no experiment synchronizes.
func clockAccuracy(exps []Experiment) (clocksync.Accuracy, string) {
	errS, horizon := math.Inf(1), 0.0
	var why []string
	for i := range exps {
		ex := &exps[i]
		if ex.ClockSync == "none" || ex.ClockSync == "" {
			continue
		}
		tol := ex.Sync.LateTolerance
		if tol <= 0 {
			tol = time.Microsecond
		}
		e, src := tol.Seconds(), fmt.Sprintf("late tolerance %v", tol)
		var d float64
		if m := ex.Sync.Method; m.Windowed() {
			w := ex.Sync.Window
			if w <= 0 {
				w = 100 * time.Microsecond
			}
			if (w / 10).Seconds() < e {
				e, src = (w / 10).Seconds(), fmt.Sprintf("a tenth of the %v window", w)
			}
			d = float64(ex.Warmup+ex.MaxObservations()) * w.Seconds()
			if m == window.RoundTime {
				b := ex.Sync.Budget
				if b <= 0 {
					b = 10 * time.Second
				}
				d = b.Seconds()
			}
		}
		if e < errS {
			errS, why = e, []string{src}
		}
		horizon = max(horizon, d)
	}
	if math.IsInf(errS, 1) {
		return clocksync.Accuracy{}, ""
	}
	h := max(math.Ceil(horizon), 1)
	return clocksync.Accuracy{Error: time.Duration(math.Round(errS * 1e9)), Horizon: time.Duration(h * 1e9)}, fmt.Sprintf("%s at the longest expected experiment (%.3g s, at least 1 s)", why[0], horizon)
}

// checkAccuracy refuses an accuracy option that a clock sync spec of exps
// cannot take (clocksync.TargetText).
func checkAccuracy(exps []Experiment, accuracy string, target clocksync.Accuracy) error {
	for i := range exps {
		if cs := exps[i].ClockSync; cs != "" && cs != "none" {
			if _, err := clocksync.ParseSpec(cs, clocksync.DefaultTarget(target), clocksync.TargetText(accuracy)); err != nil {
				return fmt.Errorf("reprobench: clock accuracy %s with clock sync %s: %w", accuracy, cs, err)
			}
		}
	}
	return nil
}

// accuracyNote returns the clock accuracy target a run records for the
// accuracy option accuracy (Options.ClockAccuracy), and where it came from:
// the option ("none": the published fixed counts), or the default target
// derived from the experiments (target, and why).
func accuracyNote(accuracy string, target clocksync.Accuracy, why string) (string, string) {
	switch a := strings.TrimSpace(accuracy); {
	case strings.EqualFold(a, "none"):
		return "none", "given: none, the published fixed counts, re-synchronized before every experiment (or after ResyncEvery)"
	case a != "" && !strings.EqualFold(a, "auto"):
		t, err := clocksync.ParseAccuracy(a)
		if err != nil {
			return a, "given"
		}
		return t.String(), "given"
	}
	return target.String(), "default: " + why + "; specs with fixed counts or accuracy= keep theirs"
}

// needsSync reports whether any experiment synchronizes clocks.
func needsSync(exps []Experiment) bool {
	for i := range exps {
		if exps[i].ClockSync != "none" && exps[i].ClockSync != "" {
			return true
		}
	}
	return false
}

// applyNoBound acts on an experiment before it runs when the clock
// synchronization in force stated no bound (why is the reason, "" when a
// bound was stated): nothing for a method that is not windowed or when a
// bound was stated; else, by policy, an error, or ex switched to
// FallbackMethod with the local completion time, and the fallback
// returned for the record. Every rank calls it with the same why (agreed
// at the synchronization), so every rank runs the same method.
func applyNoBound(ex *Experiment, why string, policy NoBound) (*rawdata.ProcSyncFallback, error) {
	if why == "" || !ex.Sync.Method.Windowed() {
		return nil, nil
	}
	if policy == NoBoundRefuse {
		return nil, fmt.Errorf("reprobench: experiment %d (%v): the clock synchronization before it stated no error bound (%s), and the no-bound policy is refuse", ex.Exp, ex.Sync.Method, why)
	}
	fb := &rawdata.ProcSyncFallback{Exp: ex.Exp, Declared: ex.Sync.Method.String(), DeclaredRuntime: ex.Runtime.String(),
		Why: "the clock synchronization before it stated no error bound: " + why}
	ex.Sync.Method = FallbackMethod
	if ex.Runtime == completion.Global {
		ex.Runtime = completion.Local
	}
	fb.Ran, fb.RanRuntime = ex.Sync.Method.String(), ex.Runtime.String()
	return fb, nil
}

// guardsNoise reports whether some experiment uses the noise guard (a
// windowed method with Sync.NoiseGuard).
func guardsNoise(exps []Experiment) bool {
	for _, ex := range exps {
		if ex.Sync.NoiseGuard && ex.Sync.Method.Windowed() {
			return true
		}
	}
	return false
}
