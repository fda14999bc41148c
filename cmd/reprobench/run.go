package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/reprobench/reprobench"
	"github.com/reprobench/reprobench/cache"
	"github.com/reprobench/reprobench/clocksync"
	"github.com/reprobench/reprobench/completion"
	"github.com/reprobench/reprobench/design"
	"github.com/reprobench/reprobench/internal/launch"
	"github.com/reprobench/reprobench/mpi"
	"github.com/reprobench/reprobench/timing"
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
	if o.sim.on {
		return runSim(stdout, stderr, o) // runsim.go
	}
	if note := launch.LaunchNote(os.Getenv); note != "" {
		fmt.Fprintln(stderr, "reprobench run: note:", note)
	}
	if _, err := mpi.InitThread(level); err != nil {
		return err
	}
	err = runRanks(stdout, stderr, fs, o)
	var abort *launch.RankError
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
// row's empty cells take), starting from the library's named defaults
// (reprobench.DefaultExperiment) that the flags' defaults equal.
func baseExperiment(o *runOptions) (reprobench.Base, error) {
	dt, err := mpi.ParseDatatype(o.datatype)
	if err != nil {
		return reprobench.Base{}, err
	}
	cm, err := cache.ParseMode(o.cache)
	if err != nil {
		return reprobench.Base{}, err
	}
	methods, err := parseMethods(o.procSync)
	if err != nil {
		return reprobench.Base{}, err
	}
	auto := strings.EqualFold(strings.TrimSpace(o.runtimeType), "auto")
	var rt completion.Type
	if !auto {
		if rt, err = completion.ParseType(o.runtimeType); err != nil {
			return reprobench.Base{}, err
		}
	}
	if !o.procSyncSet {
		methods = []window.Method{reprobench.DefaultMethodFor(rt, o.nbc.overlap, !strings.EqualFold(strings.TrimSpace(o.clockSync), "none"))}
	}
	b := reprobench.Base{Experiment: reprobench.DefaultExperiment(methods[0]), AutoRuntime: auto}
	if !auto {
		b.Runtime = rt
	}
	if b.Prehistory, err = reprobench.ParsePrehistory(o.prehistory); err != nil {
		return reprobench.Base{}, fmt.Errorf("--prehistory: %v", err)
	}
	ex := &b.Experiment
	ex.Params = o.params
	ex.Type, ex.Root, ex.Nrep, ex.Warmup, ex.LoopReps = dt, o.root, o.nrep.n, o.warmup, o.loopReps
	if ex.Stop, err = o.stopRule(); err != nil { // run_adaptive.go
		return reprobench.Base{}, err
	}
	ex.Cache, ex.CacheSlots, ex.FlushBytes, ex.Labels = cm, o.cacheSlots, o.cacheBytes, o.labels
	ex.Sync = window.Config{Method: methods[0], Window: o.window, Batch: o.batch, LateTolerance: o.lateTol, RoundFactor: o.roundK,
		Budget: o.budget, MaxRepeats: o.maxRepeats, MaxWindow: o.maxWindow, SleepGuard: o.sleepGuard, AdaptOn: o.adaptTrigger,
		NoiseGuard: o.noiseGuardOn}
	return b, nil
}

// buildExperiments returns the experiments of this mpirun: the design
// file's, or the flags' factorial in design's order for --seed.
func buildExperiments(o *runOptions, np int) (out []reprobench.Experiment, err error) {
	defer func() {
		if err == nil {
			err = o.nbc.apply(out, np) // nbc.go
		}
		for i := range out {
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
		d, err := design.ReadFile(o.designFile, reprobench.Vocabulary())
		if err != nil {
			return nil, err
		}
		if o.mpirun == checkAllMpiruns { // run --check-np: every mpirun of the design
			var all []reprobench.Experiment
			for _, m := range d.Mpiruns() {
				exps, err := reprobench.FromDesignFile(d, m, base, o.seed, np)
				if err != nil {
					return nil, err
				}
				all = append(all, exps...)
			}
			return all, nil
		}
		return reprobench.FromDesignFile(d, o.mpirun, base, o.seed, np)
	}
	var f reprobench.Factorial
	if f.Calls, err = parseCalls(o.calls); err != nil {
		return nil, fmt.Errorf("%w: --calls: %v", errUsage, err)
	}
	if f.Sizes, err = parseSizes(o.sizes, o.seed); err != nil {
		return nil, fmt.Errorf("%w: --sizes: %v", errUsage, err)
	}
	if f.Methods, err = parseMethods(o.procSync); err != nil {
		return nil, fmt.Errorf("%w: --proc-sync: %v", errUsage, err)
	}
	if !o.procSyncSet {
		f.Methods = []window.Method{base.Sync.Method}
	}
	exps, err := f.Experiments(base, o.seed, o.mpirun, np)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", errUsage, err)
	}
	return exps, nil
}

// runRanks is run by every rank between Init and Finalize, on MPI's world.
func runRanks(stdout, stderr io.Writer, fs *flag.FlagSet, o *runOptions) error {
	return runOn(mpi.World(), nil, stdout, stderr, fs, o)
}

// runOn maps the flags onto the library's options and runs
// reprobench.Run on c; clk, when not nil, replaces the --clock (a simulated
// world's clock). Errors before the engine starts are agreed on by every
// rank; later ones are *launch.RankError (the caller aborts the job).
func runOn(c mpi.Comm, clk timing.Clock, stdout, stderr io.Writer, fs *flag.FlagSet, o *runOptions) error {
	me, np := c.Rank(), c.Size()
	// A launcher or PMI that did not connect the ranks: refuse before
	// anything is written, and before the flags are checked against np.
	if err := launch.CheckLaunch(c, os.Getenv); err != nil {
		return err
	}
	opt := reprobench.DefaultOptions()
	opt.Dir, opt.RunID, opt.Mpirun, opt.PerRank, opt.Labels = o.out, o.runID, o.mpirun, o.perRank, o.labels
	opt.AllCvars = o.allCvars
	opt.Design, opt.Args, opt.ResyncEvery = o.designFile, os.Args, o.resyncEvery
	if o.seedSet {
		seed := o.seed
		opt.Seed = &seed
	}
	if err := setClockOptions(&opt, o.clockSync, o.clockAccuracy); err != nil {
		return err // runOptions.check parsed the target on every rank
	}
	opt.NoBound = o.noBound
	opt.WindowBaseline = o.windowBaseline
	if o.windowBaseline == 0 {
		opt.WindowBaseline = -1 // none
	}
	// The seed and the run id, agreed by every rank (an allgather).
	opt, err := reprobench.Prepare(c, opt)
	if err != nil {
		return err
	}
	o.seed, o.runID = *opt.Seed, opt.RunID

	// What every rank can check alone, the same way on every rank.
	exps, perr := buildExperiments(o, np)
	if perr == nil {
		if perr = reprobench.CheckExperiments(exps, opt, np); perr != nil { // --clock-sync, --clock-accuracy
			perr = fmt.Errorf("%w: %v", errUsage, perr)
		}
	}
	if perr == nil && o.noiseGuardSeed != "" {
		if !slices.ContainsFunc(exps, func(ex reprobench.Experiment) bool { return ex.Sync.NoiseGuard && ex.Sync.Method.Windowed() }) {
			perr = fmt.Errorf("%w: --noise-guard-seed without an experiment that uses the noise guard (--noise-guard on and a windowed method)", errUsage)
		} else if me == 0 {
			if opt.NoiseSources, perr = readNoiseSources(o.noiseGuardSeed); perr != nil {
				perr = fmt.Errorf("--noise-guard-seed: %w", perr)
			}
		}
	}
	var cerr error
	if clk == nil {
		clk, cerr = clockByName(o.clock, o.tscHz)
		// vcluster: a node's drift (clocksync.NodeSkewEnv, set only on a
		// virtual cluster's skewed nodes) for every clock read of this
		// rank; a skewed clock has no C-readable source, so such a rank
		// drives its critical path from Go (mpi.ObserveGo).
		// docs/clusters.md, "What C code sees", says why.
		if cerr == nil {
			clk, _, cerr = clocksync.NodeSkew(clk)
		}
	}
	if err := launch.Agree(c, errors.Join(perr, cerr)); err != nil {
		return err
	}
	if me == 0 {
		if note := eventTickNote(exps, mpi.BuildFlavor, os.Getenv); note != "" {
			fmt.Fprintln(stderr, "reprobench run: note:", note)
		}
	}
	opt.Flags = map[string]string{}
	fs.VisitAll(func(f *flag.Flag) {
		if _, removed := renamedRunFlags[f.Name]; !removed {
			opt.Flags[f.Name] = f.Value.String()
		}
	})
	opt.Flags["seed"] = strconv.FormatUint(o.seed, 10)
	opt.Flags["run-id"] = o.runID
	opt.Note = func(msg string) { fmt.Fprintln(stderr, "reprobench run:", msg) }
	opt.Progress = func(done, total int) { fmt.Fprintf(stderr, "reprobench run: experiment %d/%d done\n", done, total) }
	opt.BeforeMeasure = func() error { return launchTestHold(o.mpirun, me) } // kill tests only (launch_hooks.go)
	opt.Clock = clk
	res, err := reprobench.Run(c, exps, opt)
	if err != nil || res == nil {
		return err
	}
	fmt.Fprintf(stdout, "%s: %d experiments, %d rows\n", res.Files.CSV, len(res.Summaries), res.Rows)
	return nil
}
