package main

import (
	"fmt"
	"os"
	"time"

	"github.com/reprobench/reprobench/clocksync"
	"github.com/reprobench/reprobench/engine"
	"github.com/reprobench/reprobench/mpi"
	"github.com/reprobench/reprobench/pipeline"
	"github.com/reprobench/reprobench/rawdata"
	"github.com/reprobench/reprobench/timing"
	"github.com/reprobench/reprobench/window"
)

// Output says where rank 0 writes raw data (package rawdata's format, what
// "reprobench analyze", "compare" and "plot" read).
type Output struct {
	Dir, RunID string
	Mpirun     int
}

// HaloCall is the call column of the halo exchange's rows.
const HaloCall = "halo_exchange"

// WriteRaw writes the halo exchange's observations of res (rank 0's
// Result of Bench on np ranks) as raw data: one row per observation, with
// the factor columns of the configuration, so that the user's own code is
// analyzed like the built-in calls.
func WriteRaw(out Output, cfg Config, np int, res *Result) error {
	ex := rawdata.Experiment{Exp: 0, Factors: rawdata.Factors{ProcSync: cfg.Method.String(), RuntimeType: "local", Cache: "warm", ClockSync: res.Sync}}
	if cfg.Method.Windowed() {
		ex.Factors.Window = cfg.Window
	}
	w, err := rawdata.Create(rawdata.Options{Dir: out.Dir, RunID: out.RunID, Mpirun: out.Mpirun, Experiments: []rawdata.Experiment{ex}})
	if err != nil {
		return err
	}
	row := rawdata.Row{Exp: 0, Call: HaloCall, MsizeBytes: cfg.Bytes, Count: cfg.Bytes / 8, Datatype: "float64", Np: np}
	for i, rt := range res.RuntimesS {
		row.Rep, row.RuntimeS, row.ErrorCode = i, rt, int(res.Codes[i])
		if err := w.Row(&row); err != nil {
			_ = w.Abort(&rawdata.Metadata{RunID: out.RunID, Mpirun: out.Mpirun, Np: np}, err)
			return err
		}
	}
	return w.Close(&rawdata.Metadata{RunID: out.RunID, Mpirun: out.Mpirun, Np: np, Args: os.Args, ClockSyncSpec: res.Sync, ErrorCodes: rawdata.ErrorCodes})
}

// RunCall measures a built-in MPI call with package engine — the
// experiment "reprobench run --calls CALL --sizes BYTES --proc-sync METHOD
// --clock-sync SYNC" runs — and rank 0 writes the raw data through package
// rawdata, so analyze puts these rows in the same group as that command's.
// cfg.Sync may be "auto" (hca3 for windowed methods, else none), as in run.
// It returns the number of rows written on rank 0.
func RunCall(c mpi.Comm, clk timing.Clock, call mpi.Call, cfg Config, out Output) (int, error) {
	exps := []engine.Experiment{{Call: call, MsizeBytes: cfg.Bytes, Type: mpi.Float64, Nrep: cfg.N, Warmup: cfg.Warmup,
		Sync: window.Config{Method: cfg.Method, Window: cfg.Window}}}
	spec, err := pipeline.ResolveClockSync(exps, cfg.Sync)
	if err != nil {
		return 0, err
	}
	if err := exps[0].Check(c.Size()); err != nil {
		return 0, err
	}
	eng := &engine.Engine{Comm: c, Clock: clk}
	meta := &rawdata.Metadata{RunID: out.RunID, Mpirun: out.Mpirun, Np: c.Size(), Args: os.Args, ClockSyncSpec: spec,
		ErrorCodes: rawdata.ErrorCodes, StartUTC: time.Now().UTC()}
	if spec != "none" {
		alg, err := clocksync.Parse(spec)
		if err != nil {
			return 0, err
		}
		g := clocksync.NewGlobalClock(clk)
		eng.Global = g
		eng.Resync = func(*engine.Experiment) error {
			res, err := alg.Sync(c, g)
			if c.Rank() == 0 && err == nil {
				meta.ClockSyncs = append(meta.ClockSyncs, rawdata.ClockSync{Result: rawdata.MarshalRecord(res)})
			}
			return err
		}
	}
	var w *rawdata.Writer
	var sink engine.Sink
	if c.Rank() == 0 {
		// An error here leaves the other ranks in the engine's first
		// collective: a real program aborts (reprobench run calls
		// MPI_Abort); main exits, which ends the job too.
		if w, err = rawdata.Create(rawdata.Options{Dir: out.Dir, RunID: out.RunID, Mpirun: out.Mpirun, Experiments: engine.Declare(exps)}); err != nil {
			return 0, err
		}
		sink = w
	}
	sums, err := eng.Run(exps, sink)
	if c.Rank() != 0 {
		return 0, err
	}
	meta.Experiments, meta.EndUTC = sums, time.Now().UTC()
	meta.DurationS = meta.EndUTC.Sub(meta.StartUTC).Seconds()
	if err != nil {
		_ = w.Abort(meta, err)
		return 0, fmt.Errorf("custom: %w", err)
	}
	return w.Rows(), w.Close(meta)
}
