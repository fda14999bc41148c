package main

import (
	"bufio"
	crand "crypto/rand"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/reprobench/reprobench/clocksync"
	"github.com/reprobench/reprobench/design"
	"github.com/reprobench/reprobench/engine"
	"github.com/reprobench/reprobench/mpi"
	"github.com/reprobench/reprobench/timing"
	"github.com/reprobench/reprobench/window"
)

func init() {
	register(command{
		name:    "run",
		summary: "run benchmark experiments under mpirun (every rank runs it); rank 0 writes raw CSV rows and a JSON metadata sidecar",
		run:     runRun,
	})
}

// labelFlag collects repeatable --label key=value flags.
type labelFlag map[string]string

func (l labelFlag) String() string {
	keys := sortedKeys(l)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = k + "=" + l[k]
	}
	return strings.Join(parts, ",")
}

var labelKeyRE = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9_]*$`)

// rawColumns are the fixed columns of the raw CSV (docs/data-format.md).
var rawColumns = []string{"run_id", "mpirun", "exp", "call", "msize_bytes", "count", "datatype", "np", "rep", "runtime_s", "errorcode"}

// factorColumns follow the raw columns: the levels of the experiment's
// factors that are not already columns (named as in design files). Without
// them, observations taken under different methods would fall into one group
// in every analysis.
var factorColumns = []string{"procsync", "window_s", "runtime_type", "cache", "clocksync"}

// experimentFactors returns the factor columns of every experiment, by
// experiment number; spec is the run's clock synchronization, clockSpecs the
// experiments' own (design files).
func experimentFactors(exps []engine.Experiment, spec string, clockSpecs map[int]string) map[int][]byte {
	f := make(map[int][]byte, len(exps))
	for i := range exps {
		cs := spec
		if c, ok := clockSpecs[exps[i].Exp]; ok {
			cs = c
		}
		f[exps[i].Exp] = factorValues(&exps[i], cs)
	}
	return f
}

// factorValues returns the factor columns' values of ex, each preceded by a
// comma. The clock synchronization spec's commas become semicolons (the raw
// CSV is unquoted).
func factorValues(ex *engine.Experiment, clockSync string) []byte {
	win := "0"
	if ex.Sync.Method.Windowed() {
		win = strconv.FormatFloat(ex.Sync.Window.Seconds(), 'g', -1, 64)
	}
	v := []string{"", ex.Sync.Method.String(), win, ex.Runtime.String(), ex.Cache.String(), strings.ReplaceAll(clockSync, ",", ";")}
	return []byte(strings.Join(v, ","))
}

// rankColumns are the columns of the per-rank CSV.
var rankColumns = []string{"run_id", "mpirun", "exp", "call", "msize_bytes", "np", "rep", "rank",
	"local_start_s", "local_end_s", "global_start_s", "global_end_s", "errorcode"}

func (l labelFlag) Set(s string) error {
	k, v, ok := strings.Cut(s, "=")
	if !ok || !labelKeyRE.MatchString(k) {
		return fmt.Errorf("want key=value with key of letters, digits and _, starting with a letter; have %q", s)
	}
	for _, c := range append(append(rawColumns, rankColumns...), factorColumns...) {
		if k == c {
			return fmt.Errorf("label key %q collides with a column of the raw data", k)
		}
	}
	if strings.ContainsAny(v, ",\"\n\r") {
		return fmt.Errorf("label value %q must not contain commas, quotes or newlines", v)
	}
	l[k] = v
	return nil
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// runOptions are the flags of "reprobench run".
type runOptions struct {
	calls, sizes, datatype, procSync, clockSync, runtimeType, clock, cache, out, runID, designFile string
	mpiThread, adaptOn                                                                             string
	nrep, warmup, root, mpirun, batch, loopReps, cacheSlots, cacheBytes, maxRepeats                int
	seed                                                                                           uint64
	seedSet, perRank                                                                               bool
	window, maxWindow, sleepGuard, lateTol, budget, resyncEvery                                    time.Duration
	roundK, tscHz                                                                                  float64
	labels                                                                                         labelFlag
	adaptTrigger                                                                                   window.AdaptTrigger
	clockAccuracy                                                                                  string // issue 22 (h22)
}

func runRun(stdout, stderr io.Writer, args []string) error {
	fs := newFlagSet("run", "[flags]   (under mpirun -np N)", stderr)
	o := runOptions{labels: labelFlag{}}
	fs.StringVar(&o.calls, "calls", "MPI_Allreduce", "comma-separated `calls`: "+strings.Join(callNames(), ", "))
	fs.StringVar(&o.sizes, "sizes", "8", "message sizes in bytes: a comma-separated `list`, or LO-HI for the powers of two in [LO, HI]")
	fs.StringVar(&o.datatype, "datatype", "float64", "element `type`: byte, int32, int64, float32, float64")
	fs.IntVar(&o.nrep, "nrep", 1000, "recorded observations per experiment")
	fs.IntVar(&o.warmup, "warmup", 10, "unrecorded observations before each experiment (same sync method)")
	fs.IntVar(&o.root, "root", 0, "root of rooted calls and first rank of pingpong")
	fs.StringVar(&o.procSync, "proc-sync", "barrier", "comma-separated process synchronization `methods`: "+strings.Join(window.MethodNames(), ", "))
	fs.DurationVar(&o.window, "window", 100*time.Microsecond, "initial window of the windowed methods")
	fs.DurationVar(&o.maxWindow, "window-max", 0, "largest window the adaptive policies may reach (0: 100 × --window)")
	fs.DurationVar(&o.sleepGuard, "window-sleep-guard", 0, "sleep until this long before each window start instead of busy-waiting all the way (0: never sleep)")
	fs.IntVar(&o.batch, "window-batch", 100, "observations per broadcast start time and per adaptation decision")
	fs.DurationVar(&o.lateTol, "late-tolerance", time.Microsecond, "how late after its deadline an observation may start and stay valid")
	fs.StringVar(&o.adaptOn, "adapt-on", "invalid", "what the adaptive methods count against their 25% threshold: invalid (every late or expired observation, as SKaMPI and NBCBench publish) or expired (only observations that overran their window: a late start on an idle rank is machine noise, which no window prevents; see reprobench noise)")
	fs.IntVar(&o.maxRepeats, "nbcbench-max-repeats", 20, "adaptive_nbcbench: most batch repetitions per experiment")
	fs.Float64Var(&o.roundK, "roundtime-k", 4, "round-time: start = now + k·(MPI_Bcast time)")
	fs.DurationVar(&o.budget, "roundtime-budget", 10*time.Second, "round-time: time budget per experiment")
	fs.StringVar(&o.clockSync, "clock-sync", "auto", "clock synchronization `spec` (clocksync: "+strings.Join(clocksync.Algorithms(), ", ")+"[:key=value,…]), none, or auto (hca3 when a windowed method or global runtime needs it, else none)")
	fs.StringVar(&o.clockAccuracy, "clock-accuracy", "", "clock accuracy target ERROR@HORIZON, e.g. 1us@10s (hca3, twolevel): learn until the predicted bound meets it, and re-synchronize before an experiment whose end it would otherwise exceed; empty: fixed fit points and --resync-every")
	fs.DurationVar(&o.resyncEvery, "resync-every", 0, "re-synchronize the clocks before an experiment when this much time has passed (0: before every experiment)")
	fs.StringVar(&o.runtimeType, "runtime", "local", "completion time: local (max over ranks of end−start), global (max end − min start, global clock), loop (IMB/OSU loop average)")
	fs.IntVar(&o.loopReps, "loop-reps", 100, "calls per observation for --runtime loop")
	fs.StringVar(&o.clock, "clock", "monotonic", "clock: monotonic, tsc, tsc_lfence or mpi_wtime")
	fs.StringVar(&o.mpiThread, "mpi-thread", "funneled", "thread level requested from MPI: funneled (truthful for a Go program) or single (what plain MPI_Init C benchmarks get; it changes timings, see docs/data-format.md)")
	fs.Float64Var(&o.tscHz, "tsc-hz", 0, "fix the TSC frequency in Hz (0: calibrate for 1 s)")
	fs.StringVar(&o.cache, "cache", "warm", "cache mode: warm, cold (overwrite an LLC-sized buffer before each observation), cycle or random (buffer offsets)")
	fs.IntVar(&o.cacheBytes, "cache-bytes", 0, "bytes overwritten by --cache cold (0: last-level cache size from sysfs)")
	fs.IntVar(&o.cacheSlots, "cache-slots", 16, "buffer copies for --cache cycle and random")
	fs.StringVar(&o.out, "out", ".", "output `directory`")
	fs.StringVar(&o.runID, "run-id", "", "run identifier (default: generated from the time and random bits)")
	fs.IntVar(&o.mpirun, "mpirun", 0, "index of this mpirun in a campaign")
	fs.Func("seed", "seed of the experiment order (default: random, always recorded)", func(s string) error {
		v, err := strconv.ParseUint(s, 10, 64)
		o.seed, o.seedSet = v, true
		return err
	})
	fs.StringVar(&o.designFile, "design", "", "design `file`: run its experiments of this --mpirun instead of the flags' factorial")
	fs.Var(o.labels, "label", "`key=value` added as a column to every row (repeatable)")
	fs.BoolVar(&o.perRank, "per-rank", false, "also write every rank's local and global start/end times")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("%w: unexpected arguments %q", errUsage, fs.Args())
	}
	if o.mpirun < 0 || o.nrep < 1 || o.warmup < 0 {
		return fmt.Errorf("%w: need --mpirun ≥ 0, --nrep ≥ 1, --warmup ≥ 0", errUsage)
	}
	var err error
	if o.adaptTrigger, err = window.ParseAdaptTrigger(o.adaptOn); err != nil {
		return fmt.Errorf("%w: --adapt-on: %v", errUsage, err)
	}
	level, err := mpi.ParseThreadLevel(o.mpiThread)
	if err != nil {
		return fmt.Errorf("%w: --mpi-thread: %v", errUsage, err)
	}
	if _, err := mpi.InitThread(level); err != nil {
		return err
	}
	err = runRanks(stdout, stderr, fs, &o)
	if ferr := mpi.Finalize(); err == nil {
		err = ferr
	}
	return err
}

func callNames() []string {
	var n []string
	for _, c := range mpi.Calls() {
		n = append(n, c.String())
	}
	return n
}

// parseSizeList parses "8,64,1024" or "8-1024" (powers of two).
func parseSizeList(s string) ([]int, error) {
	if lo, hi, ok := strings.Cut(s, "-"); ok && !strings.Contains(s, ",") {
		a, err1 := strconv.Atoi(lo)
		b, err2 := strconv.Atoi(hi)
		if err1 != nil || err2 != nil || a < 1 || b < a {
			return nil, fmt.Errorf("bad size range %q (want LO-HI with 1 ≤ LO ≤ HI)", s)
		}
		var out []int
		for v := 1; v <= b; v *= 2 {
			if v >= a {
				out = append(out, v)
			}
		}
		return out, nil
	}
	var out []int
	for _, f := range strings.Split(s, ",") {
		v, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || v < 0 {
			return nil, fmt.Errorf("bad message size %q", f)
		}
		out = append(out, v)
	}
	return out, nil
}

// makeClock builds the clock named by --clock.
func makeClock(o *runOptions) (timing.Clock, error) {
	switch o.clock {
	case "monotonic":
		return timing.NewMonotonic(), nil
	case "tsc", "tsc_rdtscp":
		return timing.NewTSC(timing.TSCConfig{Hz: o.tscHz})
	case "tsc_lfence":
		return timing.NewTSC(timing.TSCConfig{Hz: o.tscHz, Fenced: true})
	case "mpi_wtime", "wtime":
		return mpi.WtimeClock(), nil
	}
	return nil, fmt.Errorf("%w: unknown --clock %q", errUsage, o.clock)
}

// runMeta is the JSON metadata sidecar.
type runMeta struct {
	RunID          string              `json:"run_id"`
	Mpirun         int                 `json:"mpirun"`
	Seed           uint64              `json:"seed"`
	SeedGenerated  bool                `json:"seed_generated"`
	Np             int                 `json:"np"`
	Flags          map[string]string   `json:"flags"`
	Args           []string            `json:"args"`
	Labels         map[string]string   `json:"labels"`
	Design         string              `json:"design_file,omitempty"`
	StartUTC       time.Time           `json:"start_utc"`
	EndUTC         time.Time           `json:"end_utc"`
	DurationS      float64             `json:"duration_s"`
	Clock          timing.Measurement  `json:"clock"`
	TSC            *tscMeta            `json:"tsc,omitempty"`
	ClockSyncSpec  string              `json:"clock_sync"`
	ClockSyncs     []syncMeta          `json:"clock_syncs,omitempty"`
	MPILibrary     string              `json:"mpi_library_version"`
	MPIThread      string              `json:"mpi_thread_level"`
	ProcessorNames []string            `json:"processor_names"`
	ErrorCodes     map[string]string   `json:"errorcodes"`
	Files          map[string]string   `json:"files"`
	Experiments    []engine.Summary    `json:"experiments"`
	Environment    *design.Environment `json:"environment,omitempty"`
}

type tscMeta struct {
	Frequency timing.Frequency `json:"frequency"`
	Facts     timing.TSCFacts  `json:"facts"`
}

type syncMeta struct {
	BeforeExp int               `json:"before_exp"`
	Result    *clocksync.Result `json:"result"`
	Reason    string            `json:"reason,omitempty"` // why --clock-accuracy re-synchronized
}

var errorCodeDocs = map[string]string{
	"0": "valid",
	"1": "started late (after its window's start plus the late tolerance on some rank)",
	"2": "window expired (ended after the next window's start on some rank)",
	"3": "started late and window expired",
	"4": "discarded: its batch was repeated with a larger window (NBCBench policy); 5, 6, 7 combine 4 with 1, 2, 3",
}

// bcastString broadcasts s from rank 0 (length first).
func bcastString(c mpi.Comm, s string) (string, error) {
	n := []int64{int64(len(s))}
	if err := mpi.Bcast(c, n, 0); err != nil {
		return "", err
	}
	b := make([]byte, n[0])
	copy(b, s)
	if err := mpi.Bcast(c, b, 0); err != nil {
		return "", err
	}
	return string(b), nil
}

// agree broadcasts rank 0's error (nil or not) so that every rank stops
// together.
func agree(c mpi.Comm, err error) error {
	msg := ""
	if c.Rank() == 0 && err != nil {
		msg = err.Error()
		if msg == "" {
			msg = "error"
		}
	}
	m, berr := bcastString(c, msg)
	if berr != nil {
		return berr
	}
	if m == "" {
		return nil
	}
	if err != nil {
		return err
	}
	return fmt.Errorf("rank 0: %s", m)
}

// buildExperiments returns the experiments of this mpirun, the clock
// synchronization spec of experiments that name their own (design files),
// and their labels (design files; nil for flag-driven runs).
func buildExperiments(o *runOptions, np int) ([]engine.Experiment, map[int]string, map[int]map[string]string, error) {
	dt, err := mpi.ParseDatatype(o.datatype)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("%w: %v", errUsage, err)
	}
	rt, err := window.ParseRuntimeType(o.runtimeType)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("%w: %v", errUsage, err)
	}
	cm, err := window.ParseCacheMode(o.cache)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("%w: %v", errUsage, err)
	}
	base := engine.Experiment{Type: dt, Root: o.root, Nrep: o.nrep, Warmup: o.warmup, Runtime: rt, LoopReps: o.loopReps,
		Cache: cm, CacheSlots: o.cacheSlots, FlushBytes: o.cacheBytes,
		Sync: window.Config{Window: o.window, Batch: o.batch, LateTolerance: o.lateTol, RoundFactor: o.roundK, Budget: o.budget, MaxRepeats: o.maxRepeats, MaxWindow: o.maxWindow, SleepGuard: o.sleepGuard, AdaptOn: o.adaptTrigger}}
	clockSpecs := map[int]string{}
	expLabels := map[int]map[string]string{}
	var exps []engine.Experiment
	if o.designFile != "" {
		vocab := design.Vocabulary{Calls: callNames(), ProcSyncs: window.MethodNames(), RuntimeTypes: window.RuntimeTypeNames(),
			CacheModes: window.CacheModeNames(), Datatypes: []string{"byte", "int32", "int64", "float32", "float64",
				"MPI_BYTE", "MPI_INT32_T", "MPI_INT64_T", "MPI_FLOAT", "MPI_DOUBLE"}}
		d, err := design.ReadFile(o.designFile, vocab)
		if err != nil {
			return nil, nil, nil, err
		}
		for _, de := range d.Experiments {
			if de.Mpirun != o.mpirun {
				continue
			}
			where := fmt.Sprintf("%s:%d", de.File, de.Line)
			if de.Np != 0 && de.Np != np {
				return nil, nil, nil, fmt.Errorf("%s: experiment %d wants np=%d, but this mpirun has %d ranks", where, de.Exp, de.Np, np)
			}
			ex := base
			ex.Exp = de.Exp
			if ex.Call, err = mpi.ParseCall(de.Call); err != nil {
				return nil, nil, nil, fmt.Errorf("%s: %v", where, err)
			}
			ex.MsizeBytes = de.MsizeBytes
			if de.Datatype != "" {
				if ex.Type, err = mpi.ParseDatatype(de.Datatype); err != nil {
					return nil, nil, nil, fmt.Errorf("%s: %v", where, err)
				}
			}
			if de.Nrep != 0 {
				ex.Nrep = de.Nrep
			}
			ps := o.procSync
			if de.ProcSync != "" {
				ps = de.ProcSync
			}
			if ex.Sync.Method, err = window.ParseMethod(ps); err != nil {
				return nil, nil, nil, fmt.Errorf("%s: %v", where, err)
			}
			if de.WindowS != 0 {
				ex.Sync.Window = time.Duration(de.WindowS * 1e9)
			}
			if de.RuntimeType != "" {
				if ex.Runtime, err = window.ParseRuntimeType(de.RuntimeType); err != nil {
					return nil, nil, nil, fmt.Errorf("%s: %v", where, err)
				}
			}
			if de.Cache != "" {
				if ex.Cache, err = window.ParseCacheMode(de.Cache); err != nil {
					return nil, nil, nil, fmt.Errorf("%s: %v", where, err)
				}
			}
			if de.ClockSync != "" {
				clockSpecs[ex.Exp] = de.ClockSync
			}
			for k, v := range de.Labels {
				if err := (labelFlag{}).Set(k + "=" + v); err != nil {
					return nil, nil, nil, fmt.Errorf("%s: label: %v", where, err)
				}
			}
			if len(de.Labels) > 0 {
				expLabels[ex.Exp] = de.Labels
			}
			if err := ex.Check(np); err != nil {
				return nil, nil, nil, fmt.Errorf("%s: %v", where, err)
			}
			exps = append(exps, ex)
		}
		if len(exps) == 0 {
			return nil, nil, nil, fmt.Errorf("%s has no experiments for --mpirun %d", o.designFile, o.mpirun)
		}
		return exps, clockSpecs, expLabels, nil
	}
	sizes, err := parseSizeList(o.sizes)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("%w: %v", errUsage, err)
	}
	var methods []window.Method
	for _, s := range strings.Split(o.procSync, ",") {
		m, err := window.ParseMethod(s)
		if err != nil {
			return nil, nil, nil, fmt.Errorf("%w: %v", errUsage, err)
		}
		methods = append(methods, m)
	}
	for _, cs := range strings.Split(o.calls, ",") {
		call, err := mpi.ParseCall(strings.TrimSpace(cs))
		if err != nil {
			return nil, nil, nil, fmt.Errorf("%w: %v", errUsage, err)
		}
		for _, m := range methods {
			for _, sz := range sizes {
				ex := base
				ex.Call, ex.MsizeBytes, ex.Sync.Method = call, sz, m
				if err := ex.Check(np); err != nil {
					return nil, nil, nil, fmt.Errorf("%w: %v, %d bytes: %v", errUsage, call, sz, err)
				}
				exps = append(exps, ex)
			}
		}
	}
	// Shuffle (paper 000 Alg. 5) from the seed and the mpirun index; the
	// experiment number is the position in the unshuffled factorial, so it
	// names the same configuration in every mpirun.
	for i := range exps {
		exps[i].Exp = i
	}
	rng := rand.New(rand.NewPCG(o.seed, uint64(o.mpirun)))
	rng.Shuffle(len(exps), func(i, j int) { exps[i], exps[j] = exps[j], exps[i] })
	for i := range exps {
		exps[i].Seed = o.seed ^ uint64(exps[i].Exp)*0x9e3779b97f4a7c15
	}
	return exps, clockSpecs, nil, nil
}

// runRanks is run by every rank between Init and Finalize.
func runRanks(stdout, stderr io.Writer, fs *flag.FlagSet, o *runOptions) error {
	c := mpi.World()
	me, np := c.Rank(), c.Size()
	start := time.Now().UTC()

	// Rank 0 decides the run id and the seed; everyone uses them.
	var prep error
	seedGenerated := false
	var names outNames
	if me == 0 {
		if !o.seedSet {
			var b [8]byte
			if _, err := crand.Read(b[:]); err != nil {
				prep = err
			}
			o.seed, seedGenerated = binary.LittleEndian.Uint64(b[:]), true
		}
		if o.runID == "" {
			var b [4]byte
			_, _ = crand.Read(b[:])
			o.runID = start.Format("20060102T150405Z") + "-" + hex.EncodeToString(b[:])
		}
		if prep == nil {
			names, prep = checkOutputs(o)
		}
	}
	if err := agree(c, prep); err != nil {
		return err
	}
	seedStr, err := bcastString(c, strconv.FormatUint(o.seed, 10))
	if err != nil {
		return err
	}
	o.seed, _ = strconv.ParseUint(seedStr, 10, 64)
	if o.runID, err = bcastString(c, o.runID); err != nil {
		return err
	}

	exps, clockSpecs, expLabels, perr := buildExperiments(o, np)
	if err := agree(c, perr); err != nil {
		return err
	}
	if perr != nil {
		return perr
	}

	clk, cerr := makeClock(o)
	if err := agree(c, cerr); err != nil {
		return err
	}
	if cerr != nil {
		return cerr
	}

	if c.Rank() == 0 {
		if note := eventTickNote(exps, mpi.BuildFlavor, os.Getenv); note != "" {
			fmt.Fprintln(stderr, "reprobench run: note:", note)
		}
	}

	// Clock synchronization.
	spec := o.clockSync
	if spec == "auto" {
		spec = "none"
		for _, ex := range exps {
			if ex.Sync.Method.Windowed() || ex.Runtime == window.RuntimeGlobal {
				spec = "hca3"
			}
		}
	}
	meta := &runMeta{RunID: o.runID, Mpirun: o.mpirun, Seed: o.seed, SeedGenerated: seedGenerated, Np: np,
		Flags: map[string]string{}, Args: os.Args, Labels: o.labels, Design: o.designFile, StartUTC: start,
		ClockSyncSpec: spec, ErrorCodes: errorCodeDocs}
	fs.VisitAll(func(f *flag.Flag) { meta.Flags[f.Name] = f.Value.String() })
	meta.Flags["seed"] = strconv.FormatUint(o.seed, 10)
	meta.Flags["run-id"] = o.runID
	algs := map[string]*clocksync.Algorithm{}
	getAlg := func(s string) (*clocksync.Algorithm, error) {
		if a, ok := algs[s]; ok {
			return a, nil
		}
		a, err := clocksync.ParseWithAccuracy(s, o.clockAccuracy)
		if err != nil {
			return nil, fmt.Errorf("%w: --clock-sync: %v", errUsage, err)
		}
		algs[s] = a
		return a, nil
	}
	var g *clocksync.GlobalClock
	var resyncer *clocksync.Resyncer
	if o.clockAccuracy != "" {
		acc, err := clocksync.ParseAccuracy(o.clockAccuracy)
		if err != nil {
			return fmt.Errorf("%w: --clock-accuracy: %v", errUsage, err)
		}
		resyncer = &clocksync.Resyncer{Target: acc}
	}
	eng := &engine.Engine{Comm: c, Clock: clk, PerRank: o.perRank, ResyncEvery: o.resyncEvery}
	needSync := spec != "none" || len(clockSpecs) > 0
	if spec != "none" {
		_, aerr := getAlg(spec)
		if err := agree(c, aerr); err != nil {
			return err
		}
		if aerr != nil {
			return aerr
		}
	}
	if needSync {
		g = clocksync.NewGlobalClock(clk)
		eng.Global = g
		eng.Resync = func(exp int) error {
			s := spec
			if cs, ok := clockSpecs[exp]; ok {
				s = cs
			}
			if s == "none" {
				return nil
			}
			a, err := getAlg(s)
			if err != nil {
				return err
			}
			why := ""
			if resyncer != nil { // --clock-accuracy: re-sync when the bound says so
				due, reason, err := resyncer.Due(c)
				if err != nil || !due {
					return err
				}
				why = reason
			}
			res, err := a.Sync(c, g)
			if err != nil {
				return err
			}
			if resyncer != nil {
				resyncer.Synced(res)
			}
			if me == 0 {
				meta.ClockSyncs = append(meta.ClockSyncs, syncMeta{BeforeExp: exp, Result: res, Reason: why})
				if res.Target != "" && !res.TargetMet {
					fmt.Fprintf(stderr, "reprobench run: WARNING: clock accuracy target %s not met before experiment %d (bound %v; %d rank(s) out of time)\n", res.Target, exp, res.Bound, res.BudgetExceeded)
				}
			}
			return nil
		}
	}
	for _, ex := range exps {
		if (ex.Sync.Method.Windowed() || ex.Runtime == window.RuntimeGlobal) && !needSync {
			return fmt.Errorf("%w: experiment %d (%v, %v runtime) needs synchronized clocks; set --clock-sync", errUsage, ex.Exp, ex.Sync.Method, ex.Runtime)
		}
	}

	// Facts for the metadata: clock, MPI library, processor names.
	if me == 0 {
		if m, err := timing.Measure(clk); err == nil {
			meta.Clock = m
		}
		if t, ok := clk.(*timing.TSC); ok {
			meta.TSC = &tscMeta{Frequency: t.Frequency(), Facts: t.Facts()}
		}
		meta.MPILibrary, _ = mpi.LibraryVersion()
		meta.MPIThread = mpi.Thread().String()
	}
	pn, _ := mpi.ProcessorName()
	var pbuf [256]byte
	copy(pbuf[:], pn)
	var allNames []byte
	if me == 0 {
		allNames = make([]byte, 256*np)
	}
	if err := c.Gather(pbuf[:], allNames, 256, mpi.Byte, 0); err != nil {
		return err
	}
	var sink *csvSink
	if me == 0 {
		for r := range np {
			meta.ProcessorNames = append(meta.ProcessorNames, strings.TrimRight(string(allNames[256*r:256*(r+1)]), "\x00"))
		}
		env := design.CollectEnvironment()
		meta.Environment = &env
		sink, err = newCSVSink(names, o, experimentFactors(exps, spec, clockSpecs), expLabels)
	}
	if err := agree(c, err); err != nil {
		return err
	}
	if me == 0 {
		eng.Progress = func(done, total int) {
			fmt.Fprintf(stderr, "reprobench run: experiment %d/%d done\n", done, total)
		}
	}
	var s engine.Sink
	if sink != nil {
		s = sink
	}
	sums, rerr := eng.Run(exps, s)
	if me != 0 {
		return rerr
	}
	meta.Experiments = sums
	meta.EndUTC = time.Now().UTC()
	meta.DurationS = meta.EndUTC.Sub(start).Seconds()
	if rerr != nil {
		_ = sink.abort(meta)
		return fmt.Errorf("%w (partial output kept in %s.partial)", rerr, names.csv)
	}
	if err := sink.finish(meta); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "%s: %d experiments, %d rows\n", names.csv, len(sums), sink.rows)
	return nil
}

// outNames are the final file names of one mpirun.
type outNames struct{ csv, ranks, json string }

// checkOutputs returns the file names and refuses to overwrite results.
func checkOutputs(o *runOptions) (outNames, error) {
	base := filepath.Join(o.out, fmt.Sprintf("%s-mpirun%03d", o.runID, o.mpirun))
	n := outNames{csv: base + ".csv", json: base + ".json"}
	if o.perRank {
		n.ranks = base + ".ranks.csv"
	}
	if err := os.MkdirAll(o.out, 0o755); err != nil {
		return n, err
	}
	for _, f := range []string{n.csv, n.ranks, n.json} {
		if f == "" {
			continue
		}
		if _, err := os.Stat(f); err == nil {
			return n, fmt.Errorf("%s already exists; refusing to overwrite results (choose another --run-id, --mpirun or --out)", f)
		}
	}
	return n, nil
}

// csvSink writes the raw rows (rank 0) to .partial files.
type csvSink struct {
	names     outNames
	f, rf     *os.File
	w, rw     *bufio.Writer
	prefix    []byte         // run_id,mpirun,
	expSuffix map[int][]byte // per experiment: ,factor values…,label values…\n
	buf       []byte
	rows      int
}

// newCSVSink creates the .partial files. The factor columns hold each
// experiment's levels (factors, by experiment number). The label columns are
// the union of the --label keys and the keys of expLabels (labels of
// individual experiments, from a design file, which override --label).
func newCSVSink(n outNames, o *runOptions, factors map[int][]byte, expLabels map[int]map[string]string) (*csvSink, error) {
	s := &csvSink{names: n, expSuffix: map[int][]byte{}}
	all := map[string]string{}
	for k := range o.labels {
		all[k] = ""
	}
	for _, l := range expLabels {
		for k := range l {
			all[k] = ""
		}
	}
	keys := sortedKeys(all)
	suffix := func(l map[string]string) []byte {
		var suf []byte
		for _, k := range keys {
			suf = append(suf, ',')
			if v, ok := l[k]; ok && v != "" {
				suf = append(suf, v...)
			} else {
				suf = append(suf, o.labels[k]...)
			}
		}
		return append(suf, '\n')
	}
	for exp, f := range factors {
		s.expSuffix[exp] = append(append([]byte(nil), f...), suffix(expLabels[exp])...)
	}
	var err error
	if s.f, err = os.Create(n.csv + ".partial"); err != nil {
		return nil, err
	}
	s.w = bufio.NewWriterSize(s.f, 1<<16)
	s.w.WriteString(strings.Join(append(append(append([]string(nil), rawColumns...), factorColumns...), keys...), ",") + "\n")
	if n.ranks != "" {
		if s.rf, err = os.Create(n.ranks + ".partial"); err != nil {
			return nil, err
		}
		s.rw = bufio.NewWriterSize(s.rf, 1<<16)
		s.rw.WriteString(strings.Join(rankColumns, ",") + "\n")
	}
	s.prefix = []byte(o.runID + "," + strconv.Itoa(o.mpirun) + ",")
	return s, nil
}

func appendFloat(b []byte, v float64) []byte { return strconv.AppendFloat(b, v, 'g', -1, 64) }

// Row writes one raw row.
func (s *csvSink) Row(r *engine.Row) error {
	b := append(s.buf[:0], s.prefix...)
	b = strconv.AppendInt(b, int64(r.Exp), 10)
	b = append(b, ',')
	b = append(b, r.Call.String()...)
	b = append(b, ',')
	b = strconv.AppendInt(b, int64(r.MsizeBytes), 10)
	b = append(b, ',')
	b = strconv.AppendInt(b, int64(r.Count), 10)
	b = append(b, ',')
	b = append(b, r.Type.ShortName()...)
	b = append(b, ',')
	b = strconv.AppendInt(b, int64(r.Np), 10)
	b = append(b, ',')
	b = strconv.AppendInt(b, int64(r.Rep), 10)
	b = append(b, ',')
	b = appendFloat(b, r.RuntimeS)
	b = append(b, ',')
	b = strconv.AppendInt(b, int64(r.ErrorCode), 10)
	suf, ok := s.expSuffix[r.Exp]
	if !ok {
		return fmt.Errorf("raw data: experiment %d has no factor levels", r.Exp)
	}
	b = append(b, suf...)
	s.buf = b
	s.rows++
	_, err := s.w.Write(b)
	return err
}

// RankRow writes one per-rank row.
func (s *csvSink) RankRow(r *engine.RankRow) error {
	b := append(s.buf[:0], s.prefix...)
	for _, v := range []int{r.Exp} {
		b = strconv.AppendInt(b, int64(v), 10)
	}
	b = append(b, ',')
	b = append(b, r.Call.String()...)
	for _, v := range []int{r.MsizeBytes, r.Np, r.Rep, r.Rank} {
		b = append(b, ',')
		b = strconv.AppendInt(b, int64(v), 10)
	}
	for _, v := range []float64{r.LocalStartS, r.LocalEndS, r.GlobalStartS, r.GlobalEndS} {
		b = append(b, ',')
		b = appendFloat(b, v)
	}
	b = append(b, ',')
	b = strconv.AppendInt(b, int64(r.ErrorCode), 10)
	b = append(b, '\n')
	s.buf = b
	_, err := s.rw.Write(b)
	return err
}

// EndExperiment flushes the rows of the experiment to the files.
func (s *csvSink) EndExperiment(*engine.Summary) error {
	if err := s.w.Flush(); err != nil {
		return err
	}
	if s.rw != nil {
		return s.rw.Flush()
	}
	return nil
}

func syncClose(w *bufio.Writer, f *os.File) error {
	if err := w.Flush(); err != nil {
		return err
	}
	if err := f.Sync(); err != nil {
		return err
	}
	return f.Close()
}

func writeJSON(path string, meta *runMeta) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	enc := json.NewEncoder(f)
	enc.SetIndent("", "  ")
	if err := enc.Encode(meta); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// finish fsyncs the .partial files and renames them, the JSON sidecar last
// (its presence marks the mpirun complete).
func (s *csvSink) finish(meta *runMeta) error {
	meta.Files = map[string]string{"raw": filepath.Base(s.names.csv), "metadata": filepath.Base(s.names.json)}
	if s.rf != nil {
		meta.Files["per_rank"] = filepath.Base(s.names.ranks)
	}
	if err := syncClose(s.w, s.f); err != nil {
		return err
	}
	if s.rf != nil {
		if err := syncClose(s.rw, s.rf); err != nil {
			return err
		}
	}
	if err := writeJSON(s.names.json+".partial", meta); err != nil {
		return err
	}
	renames := [][2]string{{s.names.csv + ".partial", s.names.csv}}
	if s.rf != nil {
		renames = append(renames, [2]string{s.names.ranks + ".partial", s.names.ranks})
	}
	renames = append(renames, [2]string{s.names.json + ".partial", s.names.json})
	for _, r := range renames {
		if err := os.Rename(r[0], r[1]); err != nil {
			return err
		}
	}
	if d, err := os.Open(filepath.Dir(s.names.json)); err == nil {
		_ = d.Sync()
		d.Close()
	}
	return nil
}

// abort leaves the .partial files (metadata included) for inspection.
func (s *csvSink) abort(meta *runMeta) error {
	err := errors.Join(syncClose(s.w, s.f))
	if s.rf != nil {
		err = errors.Join(err, syncClose(s.rw, s.rf))
	}
	return errors.Join(err, writeJSON(s.names.json+".partial", meta))
}

// eventTickNote explains, for windowed methods under Open MPI with its
// default event tick, what the tick does to them, or returns "".
//
// Open MPI's opal_progress runs its event library (a system call) every
// mpi_event_tick_rate µs from inside whatever MPI call is progressing.
// Under barrier sync that is mostly the untimed barrier; under a window the
// only MPI calls are the timed ones. Measured with bench/window/window.c
// (pure C, perfect clock sync, Open MPI 4.1.4, 2-core VM, 8-byte allreduce,
// 100 µs window): 2.0 % of valid observations above 2 µs and p99 3.1 µs by
// default, 0.3 % and 1.2 µs with the tick off (barrier: 0.8 µs).
func eventTickNote(exps []engine.Experiment, flavor string, getenv func(string) string) string {
	if flavor != "openmpi" || getenv("OMPI_MCA_mpi_event_tick_rate") != "" {
		return ""
	}
	for _, ex := range exps {
		if ex.Sync.Method.Windowed() {
			return "Open MPI runs its event loop from inside MPI calls every few ms (MCA mpi_event_tick_rate); " +
				"under windowed process sync those are the timed calls, and about 1% of observations per rank " +
				"take microseconds longer. OMPI_MCA_mpi_event_tick_rate=0 turns the periodic tick off " +
				"(components that need the event loop still get it); the environment is recorded in the metadata."
		}
	}
	return ""
}
