package reprobench

import (
	"github.com/reprobench/reprobench/cache"
	"github.com/reprobench/reprobench/completion"
	"github.com/reprobench/reprobench/mpi"
	"github.com/reprobench/reprobench/window"
)

// The defaults of an Experiment that the README's numbers were measured
// with; "reprobench run" takes its flags' defaults from DefaultExperiment.
const (
	// DefaultNrep is the number of recorded observations per experiment.
	DefaultNrep = 1000
	// DefaultWarmup is the number of unrecorded observations before each
	// experiment, under the same process synchronization: at 32 KiB the
	// observations 10–99 after MPI_Init were 13–16 % slower than later
	// ones (docs/measured.md).
	DefaultWarmup = 100
	// DefaultLoopReps is the number of calls per observation of the loop
	// runtime types (completion.Type.Loops).
	DefaultLoopReps = 100
	// DefaultCacheSlots is the number of buffer copies of the cycle and
	// random cache modes.
	DefaultCacheSlots = 16
)

// The process synchronizations of the defaults.
const (
	// DefaultMethod is the process synchronization of the library's named
	// defaults and of "reprobench run" without flags: the fixed window
	// (window.Fixed), every observation started at one instant of the
	// synchronized global clock. Barrier-synchronized timing measures the
	// barrier's exit skew too, and that skew differs between MPI libraries
	// and grows with the number of ranks (Hunold & Carpen-Amarie 2016, §4.6,
	// Fig. 10 and 11); windows are the paper's recommendation for accurate
	// timings (§4.7). When the clock synchronization states no bound, a
	// windowed experiment falls back to the tool's own dissemination barrier
	// (window.Dissemination), the same code under every library (§4.6: "an
	// MPI benchmark should provide its own MPI_Barrier implementation for
	// fairly comparing two MPI libraries"). docs/windows.md gives the
	// measurements behind the choice.
	DefaultMethod = window.Fixed

	// FallbackMethod is the process synchronization that takes a windowed
	// default's place where no clock synchronization states a bound: the
	// tool's own dissemination barrier (window.Dissemination), the same code
	// under every MPI library, so that a comparison of two libraries does not
	// compare their MPI_Barrier implementations (Hunold & Carpen-Amarie 2016,
	// §4.6).
	FallbackMethod = window.Dissemination
)

// DefaultMethodFor returns the process synchronization an experiment
// takes when none is chosen: DefaultMethod, except where one start per
// observation cannot serve. The tools' loops (rt.Loops(): OSU's, IMB's and
// the plain loop time many calls after one synchronization) and the
// overlap measurement of non-blocking collectives (overlap: it waits
// before each of its two phases) take window.Barrier, the MPI_Barrier that
// OSU and IMB call, so that their numbers stay the tools' own. Without
// clock synchronization (clocks false: a clock sync of none) a window has
// no common time to start at, and FallbackMethod serves.
func DefaultMethodFor(rt completion.Type, overlap, clocks bool) window.Method {
	switch {
	case rt.Loops() || overlap:
		return window.Barrier
	case !clocks:
		return FallbackMethod
	}
	return DefaultMethod
}

// defaultRuntime returns the completion time that an experiment under
// process synchronization method m records by default: the global
// completion time (latest end minus earliest start on the synchronized
// global clock) for the windowed methods, whose ranks start together in
// global time (Hunold & Carpen-Amarie 2016, §3.2.2), and the local one
// (the maximum over ranks of end − start, each on its own clock) for the
// barrier methods, which have no common start to measure from.
func defaultRuntime(m window.Method) completion.Type {
	if m.Windowed() {
		return completion.Global
	}
	return completion.Local
}

// DefaultExperiment returns the experiment that "reprobench run" runs
// without flags when m is DefaultMethod, and under process synchronization
// method m otherwise: an 8-byte
// MPI_Allreduce of float64 (sum) from root 0, DefaultNrep observations
// after DefaultWarmup, the completion time of m (global for the windowed methods, local for the barriers), warm caches,
// and window's defaults written out (window.Config.WithDefaults: a 100 µs
// window, batches of 100, a late tolerance of 1 µs). Exp, Seed, Labels and
// ClockSync are left to the caller (Run numbers experiments,
// derives their seeds and resolves the clock synchronization). Change the
// call, size and levels on the returned value.
func DefaultExperiment(m window.Method) Experiment {
	d := window.Config{Method: m}.WithDefaults()
	return Experiment{Call: mpi.CallAllreduce, MsizeBytes: 8, Type: mpi.Float64, Op: mpi.Sum,
		Nrep: DefaultNrep, Warmup: DefaultWarmup, Runtime: defaultRuntime(m),
		LoopReps: DefaultLoopReps, Cache: cache.Warm, CacheSlots: DefaultCacheSlots,
		// The fields a user sets; the ones window derives from them
		// (StartDelay, MaxWindow) stay zero so that they follow Window.
		Sync: window.Config{Method: m, Window: d.Window, Batch: d.Batch, LateTolerance: d.LateTolerance,
			AdaptOn: d.AdaptOn, MaxRepeats: d.MaxRepeats, RoundFactor: d.RoundFactor, Budget: d.Budget}}
}
