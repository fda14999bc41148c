package reprobench

import (
	"time"

	"github.com/reprobench/reprobench/cache"
	"github.com/reprobench/reprobench/factor"
	"github.com/reprobench/reprobench/mpi"
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

	// The family's part: fn for a user's function (Experiment.Func); obs for a
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
