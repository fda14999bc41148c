package mpi

import "fmt"

// Non-blocking collectives.
//
// A non-blocking call (MPI_Ibarrier … MPI_Iscan) is observed like any call:
// one execution is the post (MPI_Iallreduce, …) followed at once by
// MPI_Wait, its latency; the buffers, root, datatype and reduction are
// those of its blocking twin (Call.Blocking), and so is the result.
//
// With Observation.Overlap set, an observation measures the overlap of
// communication and computation as the OSU micro-benchmarks
// (osu_iallreduce, …) and NBCBench define it:
//
//	[wait as o.Sync says]
//	pure phase:       Reps × (post; wait)              → o.Pure
//	[wait as o.Sync says, again]
//	Start
//	overlapped phase: Reps × (post; kernel; wait)      → End − Start (the total)
//	End
//
// where the kernel runs KernelIters iterations of a dependent
// floating-point chain and, with TestEvery = k > 0, calls MPI_Test on the
// request after every k iterations; o.Compute is the time spent in the
// kernel without those MPI_Test calls (OSU subtracts its test time the same
// way). With TimeEach (OSU's loop) every post…wait of both phases is timed
// on its own and followed by MPI_Barrier, the sums of those times being
// Pure, Compute and End − Start. The overlap of the observation is then
//
//	overlap = max(0, 1 − (total − compute) / pure)
//
// (Overlap): 1 when the whole communication hid behind the kernel, 0 when
// none did. The engine calibrates KernelIters once per experiment so that
// the kernel lasts about as long as the pure phase (see package reprobench).
//
// With TimedKernel (the engine sets it for runtime osu) the kernel is the
// one osu_iallreduce runs instead, so that the numbers are OSU's: passes
// of OSU's kernel (x[i] = x[i] + a[i][j]·a[j][i] + y[j] over a 25 × 25
// float matrix) until the sum of the passes' own times reaches this rank's
// mean pure time per call of the same observation (Pure / Reps). The time
// between passes is not counted, so the kernel overshoots its target by up
// to one pass and the clock reads, as OSU's does. TestEvery = P > 0 is
// then OSU's -t P: P times (compute for target/P; MPI_Test).
//
// Only C runs these calls: the Go path (ObserveGo, used for clocks C cannot
// read) refuses them, since its timestamps would not bracket one C call.
// The overlap measurement needs a barrier-type wait (SyncNone, SyncBarrier,
// SyncDoubleBarrier, SyncDissemination): a deadline gives one start time
// per observation and the observation has two phases to start.

// Blocking returns the blocking twin of a non-blocking call
// (CallIallreduce → CallAllreduce) and true, or c and false for a call that
// is not non-blocking (the row's Twin, for the rows of FamilyNBC).
func (c Call) Blocking() (Call, bool) {
	if !c.Valid() || ops[c].Family != FamilyNBC {
		return c, false
	}
	return ops[c].Twin.Call, true
}

// NonBlocking reports whether c is a non-blocking collective.
func (c Call) NonBlocking() bool {
	_, ok := c.Blocking()
	return ok
}

// NonBlockingCalls returns the non-blocking collectives in a fixed order.
func NonBlockingCalls() []Call {
	var out []Call
	for _, c := range Calls() {
		if c.NonBlocking() {
			out = append(out, c)
		}
	}
	return out
}

// Overlap returns the overlap of an observation of the overlap
// measurement, max(0, 1 − (total − compute)/pure), from its three times
// (any unit, the same for all three), or NaN when pure is not positive.
func Overlap(pure, compute, total float64) float64 {
	if !(pure > 0) {
		return nan()
	}
	return max(0, 1-(total-compute)/pure)
}

func nan() float64 {
	var z float64
	return z / z
}

// validateNBC checks the overlap fields of o.
func (o *Observation) validateNBC() error {
	if !o.Overlap {
		return nil
	}
	if !o.Call.NonBlocking() {
		return fmt.Errorf("mpi: the overlap measurement needs a non-blocking collective, not %v", o.Call)
	}
	if o.KernelIters < 0 || o.TestEvery < 0 {
		return fmt.Errorf("mpi: negative kernel iterations %d or MPI_Test interval %d", o.KernelIters, o.TestEvery)
	}
	if o.TimedKernel && o.KernelIters > 0 {
		return fmt.Errorf("mpi: the time-targeted kernel (TimedKernel) aims at the pure time; it takes no iteration count (KernelIters %d)", o.KernelIters)
	}
	if o.Sync == SyncDeadline {
		return fmt.Errorf("mpi: the overlap measurement of %v has two phases, each started after the synchronization; "+
			"a deadline (windowed or round-time process synchronization) starts only one: use barrier, double_barrier or dissemination", o.Call)
	}
	return nil
}

// errNoGoPath is the refusal of the Go path for non-blocking calls.
func errNoGoPath(o *Observation) error {
	return &Error{Func: o.Call.String(), Code: -1, Msg: "non-blocking collectives and the overlap measurement run only in C, " +
		"in one call per observation; the clock given cannot be read from C (use monotonic, tsc, tsc_fenced or mpi_wtime)"}
}
