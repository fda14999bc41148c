package main

import (
	"os"

	"github.com/reprobench/reprobench"
	"github.com/reprobench/reprobench/factor"
	"github.com/reprobench/reprobench/mpi"
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
	ex := rawdata.Experiment{Exp: 0, Factors: factor.Values{}.WithText(factor.ProcSync, cfg.Method.String()).WithText(factor.RuntimeType, "local").WithText(factor.Cache, "warm").WithText(factor.ClockSync, res.Sync)}
	if cfg.Method.Windowed() {
		ex.Factors.Set(factor.Window, int64(cfg.Window))
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

// RunCall measures a built-in MPI call with package reprobench — the
// experiment "reprobench run --calls CALL --sizes BYTES --proc-sync METHOD
// --clock-sync SYNC" runs — and rank 0 writes the raw data through package
// rawdata (reprobench.Run: clock sync, metadata, engine, files), so analyze
// puts these rows in the same group as that command's. cfg.Sync may be
// "auto" (hca3 for windowed methods, else none), as in run. It returns the
// number of rows written on rank 0.
func RunCall(c mpi.Comm, clk timing.Clock, call mpi.Call, cfg Config, out Output) (int, error) {
	exps := []reprobench.Experiment{{Call: call, MsizeBytes: cfg.Bytes, Type: mpi.Float64, Nrep: cfg.N, Warmup: cfg.Warmup,
		Sync: window.Config{Method: cfg.Method, Window: cfg.Window}}}
	// An error on one rank may leave the others in a collective: a real
	// program aborts (reprobench run calls MPI_Abort); main exits, which
	// ends the job too.
	opt := reprobench.Options{Clock: clk, Dir: out.Dir, RunID: out.RunID, Mpirun: out.Mpirun}
	if cfg.Sync != "auto" { // auto: Options' default
		opt.ClockSync = cfg.Sync
	}
	res, err := reprobench.Run(c, exps, opt)
	if err != nil || res == nil {
		return 0, err
	}
	return res.Rows, nil
}
