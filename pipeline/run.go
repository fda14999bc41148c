package pipeline

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"time"

	"github.com/reprobench/reprobench/clocksync"
	"github.com/reprobench/reprobench/design"
	"github.com/reprobench/reprobench/engine"
	"github.com/reprobench/reprobench/mpi"
	"github.com/reprobench/reprobench/rawdata"
	"github.com/reprobench/reprobench/timing"
)

// CollectMetadata gathers, collectively, what "reprobench run" records in
// the sidecar about a run besides its experiments, and returns it on every
// rank (complete on rank 0; the other ranks have no processor names,
// clock measurement or environment):
//
//   - the start time, the program's arguments and np; the error code
//     table; the flags of the program's flag.CommandLine with the values
//     they had, once it is parsed;
//   - rank 0's clock: its timing.Measurement (resolution, read overhead)
//     and, for a TSC, its frequency and the processor's TSC facts;
//   - the MPI library's version and the thread levels requested, granted
//     and provided, when c is the real binding (MPI initialized); for a
//     simulated clock (a timing.Sleeper, package mpitest) the library is
//     "simulated";
//   - every rank's processor name and rank 0's design.Environment.
//
// What belongs to the run — run id, mpirun, seed, clock synchronizations,
// experiments, end time — the caller adds (Run does); rawdata.Writer.Close
// fills the run id, mpirun and np it knows.
func CollectMetadata(c mpi.Comm, clk timing.Clock) (*rawdata.Metadata, error) {
	if c == nil || clk == nil {
		return nil, errors.New("pipeline: CollectMetadata needs a communicator and a clock")
	}
	meta := &rawdata.Metadata{StartUTC: time.Now().UTC(), Args: os.Args, Np: c.Size(), ErrorCodes: rawdata.ErrorCodes}
	if flag.Parsed() {
		meta.Flags = map[string]string{}
		flag.VisitAll(func(f *flag.Flag) { meta.Flags[f.Name] = f.Value.String() })
	}
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
	var err error
	if meta.ProcessorNames, err = ProcessorNames(c); err != nil {
		return nil, err
	}
	if c.Rank() == 0 {
		env := design.CollectEnvironment()
		meta.Environment = rawdata.MarshalRecord(&env)
	}
	return meta, nil
}

// Output says where Run writes the raw data of one mpirun.
type Output struct {
	Dir    string // created if missing
	RunID  string // rawdata.CheckRunID
	Mpirun int    // index of this mpirun in its campaign
	// PerRank adds the per-rank file (every rank's timestamps).
	PerRank bool
	// Labels are added to every row (rawdata.CheckLabel).
	Labels map[string]string
	// ClockSync is the clock synchronization of the experiments whose
	// ClockSync is empty: a clocksync spec, "none", or "auto" (the
	// default when empty): hca3 when an experiment needs a global clock
	// (a windowed method or the global runtime type), else none.
	ClockSync string
	// Getenv is the environment CheckLaunch reads for the size the
	// launcher declared (nil: os.Getenv).
	Getenv func(string) string
	// Simulation, when not nil, marks the raw data as simulated: the
	// sidecar's simulation record (rawdata.Metadata.Simulation), set by
	// Simulate to its model.
	Simulation json.RawMessage
}

// Result is what Run wrote, on rank 0.
type Result struct {
	Files     rawdata.Names     // the final paths
	Rows      int               // raw rows written
	Metadata  *rawdata.Metadata // the sidecar's content
	Summaries []engine.Summary  // per experiment
}

// Run runs exps collectively on c and writes their raw data and sidecar on
// rank 0, as "reprobench run" does: it refuses a communicator of another
// size than its launcher declared (CheckLaunch: a wrong launcher or srun
// PMI plugin starts singletons that would each write a result of np 1),
// checks the output and the experiments on every rank (all ranks fail together, with the same
// error), resolves the clock synchronization (out.ClockSync), gathers the
// metadata (CollectMetadata), synchronizes the clocks before each
// experiment that needs it (recording each result), runs the engine, and
// closes the files with the complete sidecar — or, on failure, leaves them
// as .partial files with the error in the sidecar. exps is not modified.
//
// The experiments may be built-in calls or a user's functions
// (engine.Experiment.Func). Rank 0 returns the Result, the other ranks nil.
// An error after the ranks have agreed on the setup is a *RankError: the
// other ranks may be waiting for this one in a collective, so the program
// should end the job (mpi.Abort) rather than return.
func Run(c mpi.Comm, clk timing.Clock, exps []engine.Experiment, out Output) (*Result, error) {
	if c == nil || clk == nil {
		return nil, errors.New("pipeline: Run needs a communicator and a clock")
	}
	getenv := out.Getenv
	if getenv == nil {
		getenv = os.Getenv
	}
	if err := CheckLaunch(c, getenv); err != nil {
		return nil, err
	}
	me := c.Rank()
	exps = append([]engine.Experiment(nil), exps...)
	var setup error
	if me == 0 {
		_, setup = rawdata.Check(&rawdata.Options{Dir: out.Dir, RunID: out.RunID, Mpirun: out.Mpirun, PerRank: out.PerRank,
			Labels: out.Labels, Experiments: engine.Declare(exps)})
	}
	if len(exps) == 0 {
		setup = errors.Join(setup, errors.New("pipeline: Run: no experiments"))
	}
	for i := range exps {
		if err := exps[i].Check(c.Size()); err != nil {
			setup = errors.Join(setup, fmt.Errorf("experiment %d: %w", exps[i].Exp, err))
		}
	}
	spec := out.ClockSync
	if spec == "" {
		spec = "auto"
	}
	spec, err := ResolveClockSync(exps, spec)
	if err := Agree(c, errors.Join(setup, err)); err != nil {
		return nil, err
	}
	fail := func(err error) error { return &RankError{Rank: me, Err: err} }
	meta, err := CollectMetadata(c, clk)
	if err != nil {
		return nil, fail(err)
	}
	meta.RunID, meta.Mpirun, meta.Labels, meta.ClockSyncSpec = out.RunID, out.Mpirun, out.Labels, spec
	meta.Simulation = out.Simulation
	eng := &engine.Engine{Comm: c, Clock: clk, PerRank: out.PerRank}
	if NeedsSync(exps) {
		g := clocksync.NewGlobalClock(clk)
		eng.Global = g
		if eng.Resync, err = NewResync(c, g, ResyncOptions{Record: func(ex *engine.Experiment, res *clocksync.Result, reason string) {
			if me == 0 {
				meta.ClockSyncs = append(meta.ClockSyncs, rawdata.ClockSync{BeforeExp: ex.Exp, Result: rawdata.MarshalRecord(res), Reason: reason})
			}
		}}); err != nil {
			return nil, fail(err)
		}
	}
	var w *rawdata.Writer
	var sink engine.Sink
	if me == 0 {
		if w, err = rawdata.Create(rawdata.Options{Dir: out.Dir, RunID: out.RunID, Mpirun: out.Mpirun, PerRank: out.PerRank,
			Labels: out.Labels, Experiments: engine.Declare(exps)}); err != nil {
			return nil, fail(err)
		}
		sink = w
	}
	sums, rerr := eng.Run(exps, sink)
	if me != 0 {
		if rerr != nil {
			return nil, fail(rerr)
		}
		return nil, nil
	}
	meta.Experiments, meta.EndUTC = sums, time.Now().UTC()
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
