package main

import (
	crand "crypto/rand"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/reprobench/reprobench/clocksync"
	"github.com/reprobench/reprobench/design"
	"github.com/reprobench/reprobench/engine"
	"github.com/reprobench/reprobench/mpi"
	"github.com/reprobench/reprobench/pipeline"
	"github.com/reprobench/reprobench/rawdata"
	"github.com/reprobench/reprobench/window"
)

func init() {
	register(command{
		name: "run",
		summary: "run benchmark experiments under mpirun (every rank runs it); rank 0 writes raw CSV rows and a JSON metadata sidecar. " +
			"An error on any rank after the ranks have agreed on the setup is printed with its cause and aborts the whole job (MPI_Abort) with exit status " + strconv.Itoa(exitAborted),
		run: runRun,
	})
}

// exitAborted is the exit status of a job that "reprobench run" aborted
// with MPI_Abort because one rank failed (disk full, a failed MPI call, …)
// while the others may be inside a collective.
const exitAborted = 3

func runRun(stdout, stderr io.Writer, args []string) error {
	fs, o := runFlags(stderr)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("%w: unexpected arguments %q", errUsage, fs.Args())
	}
	if err := o.check(); err != nil {
		return fmt.Errorf("%w: %v", errUsage, err)
	}
	level, err := mpi.ParseThreadLevel(o.mpiThread)
	if err != nil {
		return fmt.Errorf("%w: --mpi-thread: %v", errUsage, err)
	}
	if o.checkNp > 0 {
		return runCheckFlags(o, o.checkNp) // launch_hooks.go
	}
	if note := pipeline.LaunchNote(os.Getenv); note != "" {
		fmt.Fprintln(stderr, "reprobench run: note:", note)
	}
	if _, err := mpi.InitThread(level); err != nil {
		return err
	}
	err = runRanks(stdout, stderr, fs, o)
	var abort *pipeline.RankError
	if errors.As(err, &abort) {
		// The other ranks may be inside a collective: end the job.
		fmt.Fprintf(stderr, "reprobench run: rank %d: %v; aborting the job (MPI_Abort, exit status %d)\n", abort.Rank, abort.Err, exitAborted)
		drainStderr(time.Second) // the message must reach the launcher before the job is torn down
		_ = mpi.Abort(exitAborted)
		os.Exit(exitAborted)
	}
	if ferr := mpi.Finalize(); err == nil {
		err = ferr
	}
	return err
}

// baseExperiment returns the run-wide levels of the flags (what a design
// row's empty cells take).
func baseExperiment(o *runOptions) (engine.Experiment, error) {
	dt, err := mpi.ParseDatatype(o.datatype)
	if err != nil {
		return engine.Experiment{}, err
	}
	rt, err := window.ParseRuntimeType(o.runtimeType)
	if err != nil {
		return engine.Experiment{}, err
	}
	cm, err := window.ParseCacheMode(o.cache)
	if err != nil {
		return engine.Experiment{}, err
	}
	methods, err := pipeline.ParseMethods(o.procSync)
	if err != nil {
		return engine.Experiment{}, err
	}
	rs := mpi.RMAFence // p2p
	if o.rmaSync != "" {
		if rs, err = mpi.ParseRMASync(o.rmaSync); err != nil {
			return engine.Experiment{}, fmt.Errorf("--rma-sync: %v", err)
		}
	}
	return engine.Experiment{BWWindow: o.bwWindow, RMASync: rs, // p2p
		Type: dt, Root: o.root, Nrep: o.nrep, Warmup: o.warmup, Runtime: rt, LoopReps: o.loopReps,
		Cache: cm, CacheSlots: o.cacheSlots, FlushBytes: o.cacheBytes, Labels: o.labels, Skew: o.skew, // vcoll: Skew
		Sync: window.Config{Method: methods[0], Window: o.window, Batch: o.batch, LateTolerance: o.lateTol, RoundFactor: o.roundK,
			Budget: o.budget, MaxRepeats: o.maxRepeats, MaxWindow: o.maxWindow, SleepGuard: o.sleepGuard, AdaptOn: o.adaptTrigger,
			NoiseGuard: o.noiseGuardOn}}, nil
}

// buildExperiments returns the experiments of this mpirun: the design
// file's, or the flags' factorial in design's order for --seed.
func buildExperiments(o *runOptions, np int) (out []engine.Experiment, err error) {
	defer func() {
		if err == nil {
			err = o.nbc.apply(out, np) // nbc.go
		}
		for i := range out {
			// The tools' loops probe too. The alignment is no part of
			// a tool's loop but of what ran before it, which our own
			// set-up messages do not reproduce: OSU 7.4's collectives
			// send only barriers before theirs and, like the plain C
			// loop, start with the rings level (osu_allreduce 8 B,
			// Open MPI, 15 pairs: 1.07 and 1.07 with the probe, 1.17
			// and 1.24 without); IMB-MPI1 runs in the slow alignment,
			// which the engine keeps for runtime imb (engine/align.go).
			out[i].AlignProbe = o.alignProbe
			out[i].VerifyResults = o.checkResults // --check
		}
	}()
	base, err := baseExperiment(o)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", errUsage, err)
	}
	if o.designFile != "" {
		if strings.Contains(o.procSync, ",") {
			return nil, fmt.Errorf("%w: --proc-sync %q: with --design, one method (the default of empty procsync cells)", errUsage, o.procSync)
		}
		d, err := design.ReadFile(o.designFile, pipeline.Vocabulary())
		if err != nil {
			return nil, err
		}
		if o.mpirun == checkAllMpiruns { // run --check-np: every mpirun of the design
			var all []engine.Experiment
			for _, m := range d.Mpiruns() {
				exps, err := pipeline.FromDesignFile(d, m, base, o.seed, np)
				if err != nil {
					return nil, err
				}
				all = append(all, exps...)
			}
			return all, nil
		}
		return pipeline.FromDesignFile(d, o.mpirun, base, o.seed, np)
	}
	var f pipeline.Factorial
	if f.Calls, err = pipeline.ParseCalls(o.calls); err != nil {
		return nil, fmt.Errorf("%w: --calls: %v", errUsage, err)
	}
	if f.Sizes, err = pipeline.ParseSizes(o.sizes, o.seed); err != nil {
		return nil, fmt.Errorf("%w: --sizes: %v", errUsage, err)
	}
	if f.Methods, err = pipeline.ParseMethods(o.procSync); err != nil {
		return nil, fmt.Errorf("%w: --proc-sync: %v", errUsage, err)
	}
	exps, err := f.Experiments(base, o.seed, o.mpirun, np)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", errUsage, err)
	}
	return exps, nil
}

// runRanks is run by every rank between Init and Finalize. Errors before
// the engine starts are agreed on by every rank; later ones are
// *rankFailure (the caller aborts the job).
func runRanks(stdout, stderr io.Writer, fs *flag.FlagSet, o *runOptions) error {
	c := mpi.World()
	me, np := c.Rank(), c.Size()
	start := time.Now().UTC()
	// A launcher or PMI that did not connect the ranks: refuse before
	// anything is written (issue #32).
	if err := pipeline.CheckLaunch(c, os.Getenv); err != nil {
		return err
	}

	// Rank 0 decides the run id and the seed; everyone uses them.
	var prep error
	seedGenerated := false
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
			if _, prep = rawdata.Check(&rawdata.Options{Dir: o.out, RunID: o.runID, Mpirun: o.mpirun, PerRank: o.perRank, Labels: o.labels}); prep != nil && !errors.Is(prep, rawdata.ErrExists) {
				prep = fmt.Errorf("%w: %v", errUsage, prep)
			}
		}
	}
	if err := pipeline.Agree(c, prep); err != nil {
		return err
	}
	seedStr, err := pipeline.BcastString(c, strconv.FormatUint(o.seed, 10), 0)
	if err != nil {
		return &pipeline.RankError{Rank: me, Err: err}
	}
	o.seed, _ = strconv.ParseUint(seedStr, 10, 64)
	if o.runID, err = pipeline.BcastString(c, o.runID, 0); err != nil {
		return &pipeline.RankError{Rank: me, Err: err}
	}

	exps, perr := buildExperiments(o, np)
	var spec string
	if perr == nil {
		if spec, perr = pipeline.ResolveClockSync(exps, o.clockSync); perr != nil {
			perr = fmt.Errorf("%w: --clock-sync: %v", errUsage, perr)
		}
	}
	// The default clock accuracy target, from what the experiments need
	// (issue 28); --clock-accuracy none or a target replaces it.
	target, targetWhy := pipeline.ClockAccuracy(exps)
	for i := 0; perr == nil && i < len(exps); i++ {
		if cs := exps[i].ClockSync; cs != "" && cs != "none" {
			if _, err := clocksync.ParseSpecAccuracy(cs, o.clockAccuracy, target); err != nil {
				perr = fmt.Errorf("%w: --clock-accuracy %s with clock sync %s: %v", errUsage, o.clockAccuracy, cs, err)
			}
		}
	}
	clk, cerr := pipeline.Clock(o.clock, o.tscHz)
	// vcluster: a node's drift (clocksync.NodeSkewEnv, set only on a
	// virtual cluster's skewed nodes) for every clock read of this rank;
	// a skewed clock has no C-readable source, so such a rank drives its
	// critical path from Go (mpi.ObserveGo). docs/clusters.md, "What C code
	// sees", says why.
	if cerr == nil {
		clk, _, cerr = clocksync.NodeSkew(clk)
	}
	if err := pipeline.Agree(c, errors.Join(perr, cerr)); err != nil {
		return err
	}
	if me == 0 {
		if note := pipeline.EventTickNote(exps, mpi.BuildFlavor, os.Getenv); note != "" {
			fmt.Fprintln(stderr, "reprobench run: note:", note)
		}
	}

	// From here on, an error on one rank aborts the job.
	fail := func(err error) error { return &pipeline.RankError{Rank: me, Err: err} }
	// Facts for the metadata (clock, MPI library, processor names,
	// environment): what a library program's pipeline.Run records too.
	meta, err := pipeline.CollectMetadata(c, clk)
	if err != nil {
		return fail(err)
	}
	meta.RunID, meta.Mpirun, meta.Seed, meta.SeedGenerated = o.runID, o.mpirun, o.seed, seedGenerated
	meta.Labels, meta.Design, meta.StartUTC, meta.ClockSyncSpec = o.labels, o.designFile, start, spec
	meta.Flags = map[string]string{}
	if pipeline.NeedsSync(exps) {
		meta.ClockAccuracy, meta.ClockAccuracySource = clockAccuracyNote(o.clockAccuracy, target, targetWhy)
		if me == 0 {
			fmt.Fprintf(stderr, "reprobench run: clock accuracy target %s (%s)\n", meta.ClockAccuracy, meta.ClockAccuracySource)
		}
	}
	fs.VisitAll(func(f *flag.Flag) {
		if _, removed := renamedRunFlags[f.Name]; !removed {
			meta.Flags[f.Name] = f.Value.String()
		}
	})
	meta.Flags["seed"] = strconv.FormatUint(o.seed, 10)
	meta.Flags["run-id"] = o.runID
	eng := &engine.Engine{Comm: c, Clock: clk, PerRank: o.perRank, ResyncEvery: o.resyncEvery}
	if pipeline.NeedsSync(exps) {
		g := clocksync.NewGlobalClock(clk)
		eng.Global = g
		resync, err := pipeline.NewResync(c, g, pipeline.ResyncOptions{Accuracy: o.clockAccuracy, Default: target,
			Record: func(ex *engine.Experiment, res *clocksync.Result, reason string) {
				if me != 0 {
					return
				}
				meta.ClockSyncs = append(meta.ClockSyncs, rawdata.ClockSync{BeforeExp: ex.Exp, Result: rawdata.MarshalRecord(res), Reason: reason})
				if res.Target != "" && !res.TargetMet {
					fmt.Fprintf(stderr, "reprobench run: WARNING: clock accuracy target %s not met before experiment %d (bound %v; %d rank(s) out of time)\n", res.Target, ex.Exp, res.Bound, res.BudgetExceeded)
				}
			}})
		if err != nil {
			return fail(err)
		}
		eng.Resync = resync
	}

	if eng.NoiseGuard, err = noiseGuardHook(c, meta.ProcessorNames, exps, o); err != nil { // noise.go (noise, issue 15)
		return fail(err)
	}
	var w *rawdata.Writer
	if me == 0 {
		w, err = rawdata.Create(rawdata.Options{Dir: o.out, RunID: o.runID, Mpirun: o.mpirun, PerRank: o.perRank,
			Labels: o.labels, Experiments: engine.Declare(exps)})
		if err != nil {
			return fail(err)
		}
		eng.Progress = func(done, total int) {
			fmt.Fprintf(stderr, "reprobench run: experiment %d/%d done\n", done, total)
		}
	}
	var s engine.Sink
	if w != nil {
		s = w
	}
	if err := launchTestHold(o.mpirun, me); err != nil { // kill tests only (launch_hold.go)
		return err
	}
	sums, rerr := eng.Run(exps, s)
	if me != 0 {
		if rerr != nil {
			return fail(rerr)
		}
		return nil
	}
	meta.Experiments = sums
	meta.EndUTC = time.Now().UTC()
	meta.DurationS = meta.EndUTC.Sub(start).Seconds()
	if rerr != nil {
		_ = w.Abort(meta, rerr)
		return fail(fmt.Errorf("%w (partial output kept in %s%s)", rerr, w.Names().CSV, rawdata.PartialSuffix))
	}
	if err := w.Close(meta); err != nil {
		return fail(err)
	}
	fmt.Fprintf(stdout, "%s: %d experiments, %d rows\n", w.Names().CSV, len(sums), w.Rows())
	return nil
}

// clockAccuracyNote returns the clock accuracy target a run records and
// prints, and where it came from: the --clock-accuracy flag (none: the
// published fixed counts) or the default derived from the experiments.
func clockAccuracyNote(flag string, target clocksync.Accuracy, why string) (string, string) {
	switch f := strings.TrimSpace(flag); {
	case strings.EqualFold(f, "none"):
		return "none", "--clock-accuracy none: the published fixed counts, re-synchronized before every experiment (or --resync-every)"
	case f != "" && !strings.EqualFold(f, "auto"):
		a, _ := clocksync.ParseAccuracy(f) // checked by runOptions.check
		return a.String(), "--clock-accuracy"
	}
	return target.String(), "default: " + why + "; specs with fixed counts or accuracy= keep theirs; --clock-accuracy sets another, none the published fixed counts"
}
