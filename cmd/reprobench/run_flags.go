package main

// The flags of "reprobench run": their definitions, defaults, help texts
// and bounds. run.go holds the order of the run's steps.

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/reprobench/reprobench"
	"github.com/reprobench/reprobench/clocksync"
	"github.com/reprobench/reprobench/completion"
	"github.com/reprobench/reprobench/factor"
	"github.com/reprobench/reprobench/mpi"
	"github.com/reprobench/reprobench/rawdata"
	"github.com/reprobench/reprobench/timing"
	"github.com/reprobench/reprobench/window"
)

// labelFlag collects repeatable --label key=value flags.
type labelFlag map[string]string

func (l labelFlag) String() string {
	keys := make([]string, 0, len(l))
	for k := range l {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = k + "=" + l[k]
	}
	return strings.Join(parts, ",")
}

func (l labelFlag) Set(s string) error {
	k, v, ok := strings.Cut(s, "=")
	if !ok {
		return fmt.Errorf("want key=value, have %q", s)
	}
	if err := rawdata.CheckLabel(k, v); err != nil {
		return err
	}
	l[k] = v
	return nil
}

// runOptions are the flags of "reprobench run".
type runOptions struct {
	// allCvars is --mpi-t-all.
	allCvars bool

	calls, sizes, datatype, procSync, clockSync, runtimeType, clock, cache, out, runID, designFile string
	procSyncSet                                                                                    bool // --proc-sync was given
	mpiThread, adaptOn                                                                             string
	warmup, root, mpirun, batch, loopReps, cacheSlots, cacheBytes, maxRepeats, checkNp             int
	seed                                                                                           uint64
	seedSet, perRank                                                                               bool
	window, maxWindow, sleepGuard, lateTol, budget, resyncEvery                                    time.Duration
	roundK, tscHz                                                                                  float64
	labels                                                                                         labelFlag
	adaptTrigger                                                                                   window.AdaptTrigger
	clockAccuracy                                                                                  string // ERROR@HORIZON, clocksync.ParseAccuracy
	prehistory                                                                                     string // reprobench.ParsePrehistory

	nbc nbcOptions // the overlap measurement's flags (nbc.go)
	sim simOptions // run --sim (runsim.go)
	// --noise-guard on|off and its seed (noise.go)
	noiseGuard, noiseGuardSeed string
	noiseGuardOn               bool
	params                     factor.Values // the call parameters' flags (factors.go)
	checkResults               bool          // --check: reprobench.Experiment.VerifyResults
	windowBaseline             int           // --window-baseline: reprobench.Options.WindowBaseline (0: none)
	// --nrep and the flags of --nrep auto (run_adaptive.go)
	nrep     nrepFlag
	adaptive adaptiveOptions

	noBound reprobench.NoBound // --no-bound: reprobench.Options.NoBound
}

// setString is a string flag that records whether it was given.
type setString struct {
	p   *string
	set *bool
}

func (s setString) String() string {
	if s.p == nil {
		return ""
	}
	return *s.p
}

func (s setString) Set(v string) error { *s.p, *s.set = v, true; return nil }

// removedFlag makes an old spelling of a flag an error naming the new one.
func removedFlag(fs *flag.FlagSet, old, now string) {
	fs.Func(old, "removed: use --"+now, func(string) error {
		return fmt.Errorf("--%s was renamed --%s", old, now)
	})
}

// runFlags returns the flag set of "reprobench run" bound to a new
// runOptions holding the defaults.
func runFlags(stderr io.Writer) (*flag.FlagSet, *runOptions) {
	fs := newFlagSet("run", "[flags]   (under mpirun -np N)", stderr)
	o := &runOptions{labels: labelFlag{}}
	// The defaults are the library's named ones (reprobench.DefaultExperiment,
	// reprobench.DefaultOptions): a run without flags is a library run with
	// its defaults.
	def, dopt := reprobench.DefaultExperiment(reprobench.DefaultMethod), reprobench.DefaultOptions()
	fs.StringVar(&o.calls, "calls", def.Call.String(), "comma-separated `calls` (\"reprobench ops\" says what each does, takes and needs): "+strings.Join(callNames(), ", "))
	fs.StringVar(&o.sizes, "sizes", strconv.Itoa(def.MsizeBytes), "message `sizes` in bytes, as in design: a list 8,64,1K, pow2:A..B, logu:A..B:COUNT[:STEP], or several of these comma-separated; K/M/G = 1024^1/2/3")
	fs.StringVar(&o.datatype, "datatype", def.Type.ShortName(), "element `type`: byte, int32, int64, float32, float64")
	adaptiveFlags(fs, o, def.Nrep) // --nrep, --ci-width, … (run_adaptive.go)
	fs.IntVar(&o.warmup, "warmup", def.Warmup, "unrecorded observations before each experiment, under the same process synchronization (reprobench.DefaultWarmup says why)")
	fs.StringVar(&o.prehistory, "prehistory", def.Prehistory.String(), "before each experiment's measured observations, send `N` empty one-way messages from each even rank to the next (none, N, random: 0-3 drawn from the seed, random:MAX); recorded per row as prehistory_msgs (docs/fidelity.md)")
	fs.Func("align-probe", "removed: the engine no longer adjusts the transport's state (see --prehistory)", func(string) error {
		return fmt.Errorf("--align-probe was removed: the engine leaves the transport as a plain program does; --prehistory moves its state on purpose")
	})
	fs.IntVar(&o.root, "root", def.Root, "root of rooted calls and first rank of pingpong")
	o.procSync = def.Sync.Method.String()
	fs.Var(setString{&o.procSync, &o.procSyncSet}, factor.ProcSync.Row().Flag, "comma-separated process synchronization `methods`: "+strings.Join(window.MethodNames(), ", ")+"; not given: "+reprobench.DefaultMethod.String()+"; "+reprobench.FallbackMethod.String()+" with --clock-sync none; "+reprobench.DefaultMethodFor(completion.OSU, false, true).String()+" for the tools' loops and --nbc-overlap (docs/windows.md)")
	fs.DurationVar(&o.window, factor.Window.Row().Flag, def.Sync.Window, "initial window of the windowed methods")
	fs.DurationVar(&o.maxWindow, "window-max", 0, "largest window the adaptive policies may reach (0: 100 × --window)")
	fs.DurationVar(&o.sleepGuard, "window-sleep-guard", 0, "sleep until this long before each window start instead of busy-waiting all the way (0: never sleep)")
	fs.IntVar(&o.batch, "window-batch", def.Sync.Batch, "observations per broadcast start time and per adaptation decision")
	fs.DurationVar(&o.lateTol, "late-tolerance", def.Sync.LateTolerance, "how late after its deadline an observation may start and stay valid")
	fs.StringVar(&o.adaptOn, "adapt-on", def.Sync.AdaptOn.String(), "what the adaptive methods count against their 25% threshold: invalid (every late or expired observation, as SKaMPI and NBCBench do) or expired (only observations that overran their window; docs/windows.md)")
	fs.IntVar(&o.maxRepeats, "nbcbench-max-repeats", def.Sync.MaxRepeats, "adaptive_nbcbench: most batch repetitions per experiment")
	fs.Float64Var(&o.roundK, "roundtime-k", def.Sync.RoundFactor, "round-time: start = now + k·(MPI_Bcast time)")
	fs.DurationVar(&o.budget, "roundtime-budget", def.Sync.Budget, "round-time: time budget per experiment")
	fs.StringVar(&o.clockSync, factor.ClockSync.Row().Flag, "auto", "clock synchronization `spec` (clocksync: "+strings.Join(clocksync.Algorithms(), ", ")+"[:key=value,…]), none, or auto ("+clocksync.Default().Name+" when a windowed method or global runtime needs it, else none)")
	fs.StringVar(&o.clockAccuracy, "clock-accuracy", "auto", "clock accuracy `target` ERROR@HORIZON, e.g. 1us@10s: learn until every rank's stated bound at HORIZON meets ERROR, and re-synchronize when it would not; auto: derived from the late tolerance and the experiments; none: the published fixed counts (docs/clock-sync.md)")
	fs.Func("no-bound", "what a windowed experiment does when the clock synchronization before it stated no error bound: fallback (run it with the dissemination barrier and the local completion time, recorded in the sidecar) or refuse (fail the run) (default fallback)", func(s string) (err error) {
		o.noBound, err = reprobench.ParseNoBound(s)
		return err
	})
	fs.DurationVar(&o.resyncEvery, "resync-every", dopt.ResyncEvery, "re-synchronize the clocks before an experiment when this much time has passed (0: before every experiment); with an accuracy target the predicted bound decides among those")
	fs.StringVar(&o.runtimeType, factor.RuntimeType.Row().Flag, "auto", "completion time per observation: auto (global for windowed methods, local for barrier methods), local (max over ranks of end−start), global (max end − min start), loop, osu or imb (the tools' own numbers); docs/data-format.md defines each")
	fs.IntVar(&o.loopReps, "loop-reps", def.LoopReps, "calls per observation n for --runtime loop, osu and imb (OSU's iterations: 1000, 100 above 8 KiB; osu_latency 10000)")
	fs.StringVar(&o.clock, "clock", timing.DefaultClockName, "clock: monotonic_raw (CLOCK_MONOTONIC_RAW, which no time daemon slews), monotonic (CLOCK_MONOTONIC), tsc, tsc_lfence or mpi_wtime")
	fs.StringVar(&o.mpiThread, "mpi-thread", "single", "thread level requested from MPI: single (what a C benchmark's MPI_Init gets; only the locked main thread calls MPI, see package mpi) or funneled, serialized, multiple (Open MPI then locks internally, which changes timings, see docs/data-format.md)")
	fs.Float64Var(&o.tscHz, "tsc-hz", 0, "fix the TSC frequency in Hz (0: calibrate for 1 s)")
	fs.StringVar(&o.cache, factor.Cache.Row().Flag, def.Cache.String(), "cache mode: warm, cold (overwrite a buffer the size of the core's last private cache before each observation), cycle or random (buffer offsets)")
	fs.IntVar(&o.cacheBytes, "cache-bytes", 0, "bytes overwritten by --cache cold (0: the last cache level private to a core, from sysfs; 32 MiB if unknown)")
	fs.IntVar(&o.cacheSlots, "cache-slots", def.CacheSlots, "buffer copies for --cache cycle and random")
	fs.StringVar(&o.out, "out", dopt.Dir, "output `directory`")
	fs.StringVar(&o.runID, "run-id", "", "run identifier (default: generated from the time and random bits)")
	fs.IntVar(&o.mpirun, "mpirun", 0, "index of this mpirun in a campaign")
	fs.Func("seed", "seed of the experiment order: the order \"reprobench design --seed\" gives the same factors (default: random, always recorded)", func(s string) error {
		v, err := strconv.ParseUint(s, 10, 64)
		o.seed, o.seedSet = v, true
		return err
	})
	fs.StringVar(&o.designFile, "design", "", "design `file`: run its experiments of this --mpirun instead of the flags' factorial")
	fs.Var(o.labels, "label", "`key=value` added as a column to every row (repeatable)")
	fs.BoolVar(&o.perRank, "per-rank", false, "also write every rank's local and global start/end times")
	fs.BoolVar(&o.allCvars, "mpi-t-all", false, "record every MPI_T control variable of the library in the sidecar, not only those that differ from their default")
	fs.BoolVar(&o.checkResults, "check", false, "check the operation's result: send buffers hold a per-rank pattern, and after each experiment's observations every rank compares the last result with the expected one; a wrong one is errorcode 8 (docs/data-format.md)")
	noiseGuardFlags(fs, o) // noise.go
	fs.IntVar(&o.windowBaseline, "window-baseline", 1000, "observations of the window loop with nothing to time, run once per mpirun before the first windowed experiment: the machine's own late share, recorded in the sidecar and shown beside each group's invalid share (docs/windows.md); 0: none")
	fs.IntVar(&o.checkNp, "check-np", 0, "only check the flags (and --design) for this many processes, without MPI, and exit (launch does so before its first mpirun)")
	nbcFlags(fs, &o.nbc)      // nbc.go
	simFlags(fs, &o.sim)      // runsim.go
	paramFlags(fs, &o.params) // factors.go
	for old, now := range renamedRunFlags {
		removedFlag(fs, old, now)
	}
	return fs, o
}

// renamedRunFlags are old flag spellings and their names now (one
// vocabulary in design, run and launch).
var renamedRunFlags = map[string]string{"datatypes": "datatype", "msizes": "sizes",
	factor.ProcSync.String(): factor.ProcSync.Row().Flag, factor.ClockSync.String(): factor.ClockSync.Row().Flag,
	"window-s": factor.Window.Row().Flag, "runtime-type": factor.RuntimeType.Row().Flag}

// check validates the flags against their documented bounds, so that what
// the metadata records is what runs.
func (o *runOptions) check() error {
	var err error
	if o.adaptTrigger, err = window.ParseAdaptTrigger(o.adaptOn); err != nil {
		return fmt.Errorf("--adapt-on: %v", err)
	}
	if o.noiseGuardOn, err = parseNoiseGuard(o.noiseGuard); err != nil { // noise.go
		return err
	}
	pos := func(name string, v int) error {
		if v < 1 {
			return fmt.Errorf("--%s %d: must be at least 1", name, v)
		}
		return nil
	}
	nonneg := func(name string, v int) error {
		if v < 0 {
			return fmt.Errorf("--%s %d: must not be negative", name, v)
		}
		return nil
	}
	dur := func(name string, v, lo, hi time.Duration) error {
		if v < lo || v > hi {
			return fmt.Errorf("--%s %v: must be in [%v, %v]", name, v, lo, hi)
		}
		return nil
	}
	if err := nonneg("window-baseline", o.windowBaseline); err != nil {
		return err
	}
	if o.maxWindow != 0 && o.maxWindow < o.window {
		return fmt.Errorf("--window-max %v is below --window %v", o.maxWindow, o.window)
	}
	if !(o.roundK > 0) || o.roundK > 1e6 {
		return fmt.Errorf("--roundtime-k %v: must be in (0, 1e6]", o.roundK)
	}
	if a := strings.TrimSpace(o.clockAccuracy); a != "" && !strings.EqualFold(a, "auto") && !strings.EqualFold(a, "none") {
		if _, err := clocksync.ParseAccuracy(a); err != nil {
			return fmt.Errorf("--clock-accuracy: %v", err)
		}
	}
	if o.runID != "" {
		if err := rawdata.CheckRunID(o.runID); err != nil {
			return fmt.Errorf("--run-id: %v", err)
		}
	}
	switch o.clock {
	case "monotonic", "monotonic_raw", "tsc", "tsc_rdtscp", "tsc_lfence", "mpi_wtime", "wtime":
	default:
		return fmt.Errorf("--clock %q: want one of %s", o.clock, strings.Join(clockNames, ", "))
	}
	if !(o.tscHz >= 0) {
		return fmt.Errorf("--tsc-hz %v: must not be negative (0: calibrate)", o.tscHz)
	}
	return errors.Join(nonneg("mpirun", o.mpirun), nonneg("warmup", o.warmup), nonneg("root", o.root),
		pos("window-batch", o.batch), pos("loop-reps", o.loopReps), pos("cache-slots", o.cacheSlots), nonneg("cache-bytes", o.cacheBytes),
		pos("nbcbench-max-repeats", o.maxRepeats),
		dur(factor.Window.Row().Flag, o.window, time.Nanosecond, window.MaxWindowLimit), dur("window-max", o.maxWindow, 0, window.MaxWindowLimit),
		dur("window-sleep-guard", o.sleepGuard, 0, window.MaxWindowLimit), dur("late-tolerance", o.lateTol, 0, window.MaxWindowLimit),
		dur("roundtime-budget", o.budget, time.Millisecond, 24*time.Hour), dur("resync-every", o.resyncEvery, 0, 1000*time.Hour))
}

func callNames() []string {
	var n []string
	for _, c := range mpi.Calls() {
		n = append(n, c.String())
	}
	return n
}
