package reprobench

import (
	crand "crypto/rand"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"time"

	"github.com/reprobench/reprobench/clocksync"
	"github.com/reprobench/reprobench/cpuload"
	"github.com/reprobench/reprobench/design"
	"github.com/reprobench/reprobench/factor"
	"github.com/reprobench/reprobench/internal/launch"
	"github.com/reprobench/reprobench/mpi"
	"github.com/reprobench/reprobench/noiseguard"
	"github.com/reprobench/reprobench/provenance"
	"github.com/reprobench/reprobench/rawdata"
	"github.com/reprobench/reprobench/timing"
	"github.com/reprobench/reprobench/window"
)

// CollectMetadata gathers, collectively, what the sidecar records about a
// run besides its experiments and options, and returns it on every rank
// (complete on rank 0; the other ranks have no clock measurement, MPI
// library or environment):
//
//   - the start time, np and the error code table;
//   - rank 0's clock: its timing.Measurement (resolution, read overhead)
//     and, for a TSC, its frequency and the processor's TSC facts;
//   - the MPI library's version and the thread levels requested, granted
//     and provided, when c is the real binding (MPI initialized); for a
//     simulated clock (a timing.Sleeper, package mpitest) the library is
//     "simulated";
//   - every rank's processor name (on rank 0 only: O(1) bytes per rank
//     when all ranks run on one host, an allgather when they do not) and
//     rank 0's design.Environment.
//
// It reads no flags and no command line: what belongs to the run — run
// id, mpirun, seed, arguments and flags, clock synchronizations,
// experiments, end time — the caller adds (Run does, from its Options);
// rawdata.Writer.Close fills the run id, mpirun and np it knows.
//
// It also records the run's provenance (provenance.Collect, in
// Metadata.Provenance), the same on every rank, with each rank's binding
// as it was at the start and without the library's MPI_T configuration,
// which Run reads after its last experiment (provenance.Start says why).
func CollectMetadata(c mpi.Comm, clk timing.Clock) (*rawdata.Metadata, error) {
	meta, _, err := collectMetadata(c, clk, false, nil)
	return meta, err
}

// collectMetadata is CollectMetadata, and also returns the binding that
// follows this rank's CPU until Finish.
func collectMetadata(c mpi.Comm, clk timing.Clock, allCvars bool, expect []provenance.Expectation) (*rawdata.Metadata, *provenance.Binding, error) {
	if c == nil || clk == nil {
		return nil, nil, errors.New("reprobench: CollectMetadata needs a communicator and a clock")
	}
	popt := provenance.Options{Simulated: timing.SleepFunc(clk) != nil, AllCvars: allCvars, Expect: expect}
	if cpuReader != nil {
		popt.CPU = cpuReader(c.Rank())
	}
	bind, err := provenance.Collect(c, popt)
	if err != nil {
		return nil, nil, err
	}
	meta := &rawdata.Metadata{StartUTC: time.Now().UTC(), Np: c.Size(), ErrorCodes: rawdata.ErrorCodes}
	if c.Rank() == 0 {
		if m, err := timing.Measure(clk); err == nil {
			meta.Clock = rawdata.MarshalRecord(m)
		}
		if t, ok := clk.(*timing.TSC); ok {
			meta.TSC = rawdata.MarshalRecord(struct {
				Frequency timing.Frequency `json:"frequency"`
				Facts     timing.TSCFacts  `json:"facts"`
			}{t.Frequency(), t.Facts()})
		}
		switch {
		case timing.SleepFunc(clk) != nil:
			meta.MPILibrary = "simulated (clock " + clk.Name() + ")"
		case mpi.World() != nil:
			meta.MPILibrary, _ = mpi.LibraryVersion()
			meta.MPIThread = mpi.Thread().String()
			meta.MPIThreadRequested, meta.MPIThreadProvided = mpi.ThreadRequested().MPIName(), mpi.ThreadProvided()
		}
	}
	if meta.ProcessorNames, err = processorNames(c); err != nil {
		return nil, nil, err
	}
	if c.Rank() == 0 {
		env := design.CollectEnvironment()
		meta.Environment = rawdata.MarshalRecord(&env)
	}
	meta.Provenance = rawdata.MarshalRecord(bind.Record())
	return meta, bind, nil
}

// syncRecordRanks is the largest rank count at which the metadata keeps
// every rank's record of each clock synchronization
// (clocksync.Result.PerRank) without Options.PerRank; beyond it they are
// summarized (clocksync.Result.Compact: quantiles over the ranks and the
// worst ranks' records), so that the sidecar does not grow with ranks ×
// synchronizations.
const syncRecordRanks = 64

// Options configure Run: where the raw data of one mpirun goes, and the
// run-wide choices recorded in its sidecar. The zero value is
// DefaultOptions but for Dir ("" is the current directory too).
type Options struct {
	Dir string // created if missing
	// RunID names the run (rawdata.CheckRunID); empty: generated from rank
	// 0's start time and random bits, as "reprobench run" does (Prepare).
	RunID  string
	Mpirun int // index of this mpirun in its campaign
	// Clock is the clock every rank times with (a simulated world's rank
	// passes its own); nil: timing.NewDefault(), the default clock of
	// "reprobench run".
	Clock timing.Clock
	// Seed is the run's seed: experiments whose Seed is 0 get one derived
	// from it and their Exp, and "reprobench run" orders its experiments
	// by it. nil: Prepare draws one (recorded as drawn,
	// rawdata.Metadata.SeedGenerated) and sets it.
	Seed *uint64
	// PerRank adds the per-rank file (every rank's timestamps) and keeps
	// every rank's clock synchronization record in the metadata at any
	// rank count (otherwise up to 64 ranks).
	PerRank bool
	// AllCvars records every MPI_T control variable of the library in the
	// provenance (provenance.Options.AllCvars), not only those that differ
	// from their default.
	AllCvars bool
	// Labels are added to every row (rawdata.CheckLabel).
	Labels map[string]string
	// ClockSync is the clock synchronization of the experiments whose
	// ClockSync is empty, in clocksync.ParseSpec's text form (e.g. "hca3"
	// or "jk:fitpts=100"). Empty (the default): clocksync.Default when an
	// experiment needs a global clock (a windowed method or the global
	// runtime type), else none. NoClockSync synchronizes no clocks.
	ClockSync   string
	NoClockSync bool // synchronize no clocks: experiments whose ClockSync is empty run with none
	// ClockAccuracy is the clock accuracy target of the specs that learn
	// to one (clocksync.DefaultTarget), without a change of the spec's
	// name. nil (the default) gives every spec that names neither a
	// target nor fixed counts the target derived from the experiments; a
	// pointer to the zero Accuracy runs the published fixed counts of
	// every spec, re-synchronized before every experiment; another target
	// replaces every spec's. The sidecar records the target and its source.
	ClockAccuracy *clocksync.Accuracy
	// ResyncEvery re-synchronizes the clocks before an experiment when this
	// much time has passed since the last synchronization (0: before every
	// experiment; an accuracy target's predicted bound decides among
	// those), as the experiment loop's own would (Run decides it itself,
	// so that the no-bound policy acts on every experiment).
	ResyncEvery time.Duration
	// NoBound is what an experiment under a windowed process
	// synchronization does when the clock synchronization before it
	// stated no error bound: fall back to the dissemination barrier (the
	// default, recorded in the sidecar) or refuse (NoBound).
	NoBound NoBound
	// NoiseSources are, on rank 0, the periodic noise sources that seed
	// the noise guard of the experiments that use it (Sync.NoiseGuard;
	// "reprobench noise --json" fits them as periodic_sources, their times
	// in CLOCK_MONOTONIC seconds); nil: the guard learns them as it runs.
	NoiseSources []noiseguard.Source
	// WindowBaseline is the number of observations of the window
	// baseline, the machine's own late share measured with nothing to time
	// (window.MeasureBaseline) after the clock synchronization before the
	// first windowed experiment, recorded in the sidecar
	// (rawdata.Metadata.WindowBaseline): 0 is
	// window.DefaultBaselineObservations, negative leaves it out. Runs
	// without a windowed experiment measure none.
	WindowBaseline int
	// Design, Args and Flags are recorded in the sidecar as they are: the
	// design file the experiments came from, the program's command line,
	// and its flags with the values that ran. Run reads no flags and no
	// os.Args itself.
	Design string
	Args   []string
	Flags  map[string]string
	// Getenv is the environment Run reads for the size the
	// launcher declared (nil: os.Getenv).
	Getenv func(string) string
	// Note, when set, receives on rank 0 what a person running the
	// program should read: the clock accuracy target and where it came
	// from, and a target not met before an experiment.
	Note func(msg string)
	// Progress, when set, is called on rank 0 after each experiment.
	Progress func(done, total int)
	// BeforeMeasure, when set, is called on every rank once the output
	// files exist (as .partial files) and before the first experiment.
	BeforeMeasure func() error
	// Simulation, when not nil, marks the raw data as simulated: the
	// sidecar's simulation record (rawdata.Metadata.Simulation), set by
	// Simulate to its model.
	Simulation json.RawMessage
	// CPULoad reads a rank's CPU-time sample around each experiment's
	// measured observations (as cpuload.Read does); nil: cpuload.Read,
	// or none when Simulation is set (a simulated run has no /proc of its
	// own). Every rank must set the same.
	CPULoad func() (cpuload.Sample, error)

	prepared  bool      // Prepare ran
	seedDrawn bool      // Prepare drew the seed
	start     time.Time // rank 0's start time, agreed by Prepare
}

// DefaultOptions returns the options "reprobench run" runs with when given
// no flags: output in the current directory, the default clock, a
// generated run id, a drawn seed, the clock synchronization the
// experiments need with the accuracy target derived from them, a
// resynchronization before every experiment that the target's predicted
// bound asks for, no per-rank file and no labels. It is the zero Options
// with Dir ".".
func DefaultOptions() Options {
	return Options{Dir: "."}
}

// Prepare is collective: it returns opt with what is left to draw filled
// in identically on every rank — a seed when opt.Seed is nil, a run id when
// opt.RunID is empty — and with rank 0's start time. Every rank draws its
// own values and the ranks agree on rank 0's in one allreduce (a sum to
// which the other ranks add zeros), so that the set-up's traffic is
// net-symmetric (one-way messages such as a broadcast move hidden per-peer
// state of the MPI library) and each rank exchanges O(1) bytes. Call it
// before building experiments that depend on the seed (Factorial); Run calls
// it when it has not run. The seed is drawn from crypto/rand.
func Prepare(c mpi.Comm, opt Options) (Options, error) {
	if c == nil {
		return opt, errors.New("reprobench: Prepare needs a communicator")
	}
	if opt.prepared {
		return opt, nil
	}
	var b [12]byte
	_, _ = crand.Read(b[:]) // never fails (crypto/rand)
	mine := []int64{int64(binary.LittleEndian.Uint64(b[:8])), int64(binary.LittleEndian.Uint32(b[8:])), time.Now().UnixNano()}
	if c.Rank() != 0 {
		clear(mine) // the sum is rank 0's values
	}
	all := make([]int64, len(mine))
	if err := mpi.Allreduce(c, mine, all, mpi.Sum); err != nil {
		return opt, &launch.RankError{Rank: c.Rank(), Err: fmt.Errorf("reprobench: Prepare: %w", err)}
	}
	opt.start = time.Unix(0, all[2]).UTC()
	if opt.Seed == nil {
		seed := uint64(all[0])
		opt.Seed, opt.seedDrawn = &seed, true
	}
	if opt.RunID == "" {
		var id [4]byte
		binary.BigEndian.PutUint32(id[:], uint32(all[1]))
		opt.RunID = opt.start.Format("20060102T150405Z") + "-" + hex.EncodeToString(id[:])
	}
	opt.prepared = true
	return opt, nil
}

// Result is what Run wrote, on rank 0.
type Result struct {
	Files     rawdata.Names     // the final paths
	Rows      int               // raw rows written
	Metadata  *rawdata.Metadata // the sidecar's content
	Summaries []rawdata.Summary // per experiment
}

// Run runs exps collectively on c and writes their raw data and sidecar on
// rank 0; "reprobench run" is this function behind flags. It refuses a
// communicator of another size than its launcher declared (a
// wrong launcher or srun PMI plugin starts singletons that would each write
// a result of np 1), agrees on the seed and run id (Prepare), checks the
// output and the experiments on every rank (all ranks fail together, with
// the same error), resolves the clock synchronization (opt.ClockSync) and
// its accuracy target (opt.ClockAccuracy), gathers the metadata
// (CollectMetadata), synchronizes the clocks before each experiment that
// needs it (recording each result and why), runs the engine, and closes the
// files with the complete sidecar — or, on failure, leaves them as
// .partial files with the error in the sidecar. exps is not modified.
//
// The experiments may be built-in calls or a user's functions
// (Experiment.Func); DefaultExperiment is the verified
// starting point. Rank 0 returns the Result, the other ranks nil. An
// error before the ranks have agreed on the setup is returned by every
// rank; a later one may be this rank's alone, while the other ranks wait
// for it in a collective, so on an error the program should end the job
// (mpi.Abort) rather than return.
func Run(c mpi.Comm, exps []Experiment, opt Options) (*Result, error) {
	if c == nil {
		return nil, errors.New("reprobench: Run needs a communicator")
	}
	clk := opt.Clock
	if clk == nil {
		clk = timing.NewDefault()
	}
	getenv := opt.Getenv
	if getenv == nil {
		getenv = os.Getenv
	}
	if err := launch.CheckLaunch(c, getenv); err != nil {
		return nil, err
	}
	opt, err := Prepare(c, opt)
	if err != nil {
		return nil, err
	}
	me := c.Rank()
	exps = append([]Experiment(nil), exps...)
	// What the launcher set for this mpirun: the per-mpirun factors'
	// levels (the algorithm) and the control variables to read back.
	perMpirun := factor.MpirunLevels(getenv)
	expect, setup := provenance.ParseExpect(getenv(provenance.ExpectEnv))
	if me == 0 {
		_, err := rawdata.Check(&rawdata.Options{Dir: opt.Dir, RunID: opt.RunID, Mpirun: opt.Mpirun, PerRank: opt.PerRank,
			Labels: opt.Labels, Experiments: declare(exps), PerMpirun: perMpirun})
		setup = errors.Join(setup, err)
	}
	for i := range exps {
		if exps[i].Seed == 0 {
			exps[i].Seed = experimentSeed(*opt.Seed, exps[i].Exp)
		}
	}
	spec, target, targetWhy, err := checkExperiments(exps, opt, c.Size())
	setup = errors.Join(setup, err)
	if err := launch.Agree(c, setup); err != nil {
		return nil, err
	}
	fail := func(err error) error { return &launch.RankError{Rank: me, Err: err} }
	meta, bind, err := collectMetadata(c, clk, opt.AllCvars, expect)
	if err != nil {
		return nil, fail(err)
	}
	names := meta.ProcessorNames
	meta.RunID, meta.Mpirun, meta.Seed, meta.SeedGenerated = opt.RunID, opt.Mpirun, *opt.Seed, opt.seedDrawn
	meta.Labels, meta.Design, meta.Args, meta.Flags, meta.ClockSyncSpec = map[string]string{}, opt.Design, opt.Args, opt.Flags, spec
	maps.Copy(meta.Labels, opt.Labels) // no labels: {}
	for id, v := range perMpirun {
		if meta.PerMpirun == nil {
			meta.PerMpirun = map[string]string{}
		}
		meta.PerMpirun[id.String()] = v
	}
	meta.Simulation = opt.Simulation
	if !opt.start.IsZero() {
		meta.StartUTC = opt.start
	}
	note := func(msg string) {
		if me == 0 && opt.Note != nil {
			opt.Note(msg)
		}
	}
	// The resync (newResync) decides itself when a synchronization is
	// due (opt.ResyncEvery), as it must act on every experiment.
	eng := &engine{Comm: c, Clock: clk, PerRank: opt.PerRank, CPULoad: opt.CPULoad}
	if eng.CPULoad == nil && opt.Simulation == nil {
		eng.CPULoad = cpuload.Read
	}
	noted := provenanceNotes(bind.Record(), nil, note)
	eng.BeginBatch, eng.EndBatch = bind.BeginBatch, bind.EndBatch
	if needsSync(exps) {
		meta.ClockAccuracy, meta.ClockAccuracySource = accuracyNote(opt.clockAccuracyText(), target, targetWhy)
		note(fmt.Sprintf("clock accuracy target %s (%s)", meta.ClockAccuracy, meta.ClockAccuracySource))
		g := clocksync.NewGlobalClock(clk)
		eng.Global = g
		if eng.Resync, err = newResync(c, g, resyncOptions{Accuracy: opt.clockAccuracyText(), Default: target, Every: opt.ResyncEvery,
			NoBound: opt.NoBound,
			Fallback: func(fb *rawdata.ProcSyncFallback) {
				if me != 0 {
					return
				}
				meta.ProcSyncFallbacks = append(meta.ProcSyncFallbacks, *fb)
				note(fmt.Sprintf("WARNING: experiment %d ran with %s (%s completion time) instead of %s: %s (--no-bound fallback)",
					fb.Exp, fb.Ran, fb.RanRuntime, fb.Declared, fb.Why))
			},
			Record: func(ex *Experiment, res *clocksync.Result, reason string) {
				if me != 0 {
					return
				}
				rec := res
				if !opt.PerRank {
					rec = res.Compact(syncRecordRanks)
				}
				meta.ClockSyncs = append(meta.ClockSyncs, rawdata.ClockSync{BeforeExp: ex.Exp, Result: rawdata.MarshalRecord(rec), Reason: reason})
				if res.Descheduled != nil && res.Bound.Unknown {
					note(fmt.Sprintf("WARNING: no clock bound stated before experiment %d: %v (%s)", ex.Exp, res.Descheduled, clocksync.WhyDescheduled))
				} else if res.Descheduled != nil {
					note(fmt.Sprintf("WARNING: ranks descheduled during the clock synchronization before experiment %d: the bound stated is the worst case, %v (%v)", ex.Exp, res.Bound, res.Descheduled))
				} else if res.Target != "" && !res.TargetMet {
					note(fmt.Sprintf("WARNING: clock accuracy target %s not met before experiment %d (bound %v; %d rank(s) out of time)", res.Target, ex.Exp, res.Bound, res.BudgetExceeded))
				}
			}}); err != nil {
			return nil, fail(err)
		}
	}
	if eng.Global != nil && opt.WindowBaseline >= 0 {
		eng.BeforeWindows = func(ex *Experiment) error {
			b, err := window.MeasureBaseline(c, clk, eng.Global, ex.Sync, opt.WindowBaseline)
			if err != nil {
				return fmt.Errorf("window baseline: %w", err)
			}
			b.BeforeExp = ex.Exp
			if me == 0 {
				meta.WindowBaseline = b
				batches := int64(b.Batches)
				meta.Traffic.Add(rawdata.TrafficBaseline, rawdata.Symmetric, 2*batches, 8*(batches+2*int64(b.Observations)))
			}
			return nil
		}
	}
	if guardsNoise(exps) {
		if eng.NoiseGuard, err = newNoiseGuard(c, names, opt.noiseProbe()); err != nil {
			return nil, fail(err)
		}
	}
	var w *rawdata.Writer
	var sink rowSink
	if me == 0 {
		if w, err = rawdata.Create(rawdata.Options{Dir: opt.Dir, RunID: opt.RunID, Mpirun: opt.Mpirun, PerRank: opt.PerRank,
			Labels: opt.Labels, Experiments: declare(exps), PerMpirun: perMpirun}); err != nil {
			return nil, fail(err)
		}
		sink = w
		eng.Progress = opt.Progress
	}
	if opt.BeforeMeasure != nil {
		if err := opt.BeforeMeasure(); err != nil {
			return nil, fail(err)
		}
	}
	sums, rerr := eng.Run(exps, sink)
	if rerr == nil {
		rec, err := bind.Finish(c, bindingSamples)
		if err != nil {
			return nil, fail(err)
		}
		meta.Provenance = rawdata.MarshalRecord(rec)
		provenanceNotes(rec, noted, note)
		if me == 0 { // a setting of the launcher that did not take effect fails the run
			rerr = rec.MPIT.CheckError()
		}
	}
	if me != 0 {
		if rerr != nil {
			return nil, fail(rerr)
		}
		return nil, nil
	}
	meta.Experiments, meta.EndUTC = sums, time.Now().UTC()
	if meta.CPULoad = eng.RunLoad; meta.CPULoad != nil {
		meta.Traffic.Add(rawdata.TrafficCPULoad, rawdata.Symmetric, 1, 8*cpuload.RankFields)
	}
	meta.DurationS = meta.EndUTC.Sub(meta.StartUTC).Seconds()
	if rerr != nil {
		_ = w.Abort(meta, rerr)
		return nil, fail(fmt.Errorf("%w (partial output kept in %s%s)", rerr, w.Names().CSV, rawdata.PartialSuffix))
	}
	if err := w.Close(meta); err != nil {
		return nil, fail(err)
	}
	return &Result{Files: w.Names(), Rows: w.Rows(), Metadata: meta, Summaries: sums}, nil
}
