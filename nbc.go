package reprobench

import (
	"fmt"
	"math"
	"strconv"

	"github.com/reprobench/reprobench/completion"
	"github.com/reprobench/reprobench/internal/order"
	"github.com/reprobench/reprobench/mpi"
	"github.com/reprobench/reprobench/rawdata"
	"github.com/reprobench/reprobench/timing"
	"github.com/reprobench/reprobench/window"
)

// The overlap measurement of a non-blocking collective (mpi/nbc.go has the
// phases of one observation).
//
// An experiment with Overlap set runs, per observation, a pure phase and
// an overlapped phase with the compute kernel between post and wait. Its
// runtime_s is the completion time of the overlapped phase under the
// experiment's runtime type (the total), and its rows carry, per call and
// averaged over ranks as OSU prints them, pure_s, compute_s, total_s and
// overlap_frac = max(0, 1 − (total − compute)/pure) computed from those
// averages (rawdata.OverlapColumns).
//
// Before the warm-up, the engine sizes the kernel (calibrateKernel) unless
// KernelIters gives its iteration count: each rank scales the count by the
// ratio of its median pure time per call to its median kernel time per
// call, overlapRounds rounds of overlapObs observations each, so that the
// kernel lasts about as long as the communication, as OSU and NBCBench do.
// An observation of the probe is one call per phase after a barrier.
// The calibration goes to the sidecar (rawdata.OverlapCalibration).
//
// Runtime osu instead runs the kernel osu_iallreduce runs
// (mpi.Observation.TimedKernel): passes of OSU's matrix kernel until their
// timed sum reaches the rank's mean pure time per call of the same
// observation, so that pure, compute, total and overlap are the numbers
// OSU prints. Nothing is calibrated; the sidecar says so (TimeTargeted).
// TestEvery is then OSU's number of MPI_Test probes, and KernelIters is
// refused.
//
// Process synchronization: barrier, double_barrier and dissemination wait
// the same way before each of the two phases. The windowed methods and
// round-time give one start time per observation and are refused, as is
// the runtime type imb (IMB-NBC defines overlap by another formula).

const (
	overlapRounds    = 3
	overlapObs       = 11
	overlapStartIter = 1000
	// kernelDescription says what one iteration of the compute kernel does.
	kernelDescription = "x = x*0.999999999 + 1e-9 on a double (one dependent multiply-add), C loop in rbmpi_nbc.h"
	// osuKernelDescription says what the time-targeted kernel of runtime
	// osu does.
	osuKernelDescription = "OSU's do_compute_cpu: passes of x[i] = x[i] + a[i][j]*a[j][i] + y[j] over a 25x25 float matrix " +
		"until the passes' timed sum reaches the rank's mean pure time per call of the same observation; " +
		"test_every = OSU's -t probes (rbmpi_nbc.h)"
)

// Overlap is the overlap measurement of a non-blocking collective, the
// nbc family's parameters (Experiment.Overlap): the call is timed alone
// (pure), then with a CPU kernel between its start and its wait (total),
// as OSU's non-blocking benchmarks do.
type Overlap struct {
	// TestEvery > 0 calls MPI_Test every TestEvery kernel iterations
	// (OSU's -t); 0 never tests.
	TestEvery int64
	// KernelIters > 0 fixes the kernel's iteration count; 0 calibrates
	// it to the call's pure time.
	KernelIters int64
}

// NBCMode returns the raw data's nbc_mode of ex: "" for an experiment
// that is not the overlap measurement, "overlap", or "overlap_test<k>".
func (ex *Experiment) NBCMode() string {
	if ex.Overlap == nil {
		return ""
	}
	if ex.Overlap.TestEvery > 0 {
		return "overlap_test" + strconv.FormatInt(ex.Overlap.TestEvery, 10)
	}
	return "overlap"
}

// checkOverlap refuses what the overlap measurement cannot do.
func (ex *Experiment) checkOverlap() error {
	ov := ex.Overlap
	if ov == nil {
		return nil
	}
	if !ex.Call.NonBlocking() {
		return fmt.Errorf("the overlap measurement needs a non-blocking collective (MPI_Iallreduce, …), not %v", ex.Call)
	}
	switch ex.Sync.Method {
	case window.Barrier, window.DoubleBarrier, window.Dissemination:
	default:
		return fmt.Errorf("the overlap measurement of %v waits before each of its two phases; process synchronization %v gives one start time per observation: use barrier, double_barrier or dissemination", ex.Call, ex.Sync.Method)
	}
	if ex.Runtime == completion.IMB {
		return fmt.Errorf("the overlap measurement follows OSU's definition; runtime type imb (IMB-NBC defines overlap by another formula) is not supported: use local, global, loop or osu")
	}
	if ov.TestEvery < 0 || ov.KernelIters < 0 {
		return fmt.Errorf("negative MPI_Test interval %d or kernel iterations %d", ov.TestEvery, ov.KernelIters)
	}
	if ex.Runtime == completion.OSU && ov.KernelIters > 0 {
		return fmt.Errorf("runtime type osu runs OSU's time-targeted kernel, aimed at each observation's pure time; "+
			"a fixed kernel iteration count (%d) applies to local, global and loop", ov.KernelIters)
	}
	return nil
}

// calibrateKernel sets o.KernelIters for this rank (see the comment at the
// top of the file) and returns the calibration on rank 0.
func calibrateKernel(c mpi.Comm, clk timing.Clock, o *mpi.Observation, ex *Experiment) (*rawdata.OverlapCalibration, error) {
	if ex.Runtime == completion.OSU {
		o.TimedKernel, o.KernelIters = true, 0
		if c.Rank() != 0 {
			return nil, nil
		}
		return &rawdata.OverlapCalibration{Kernel: osuKernelDescription, TestEvery: ex.Overlap.TestEvery, TimeTargeted: true}, nil
	}
	cal := &rawdata.OverlapCalibration{Kernel: kernelDescription, TestEvery: ex.Overlap.TestEvery, Given: ex.Overlap.KernelIters > 0}
	k := ex.Overlap.KernelIters
	var target, kernel float64
	if k <= 0 {
		k = overlapStartIter
		cal.Rounds, cal.Observations = overlapRounds, overlapObs
		probe := *o
		probe.Offsets, probe.Flush = nil, nil
		probe.Overlap, probe.Reps, probe.TimeEach, probe.Sync = true, 1, false, mpi.SyncBarrier
		cal.ProbeReps = probe.Reps
		pure, comp := make([]float64, overlapObs), make([]float64, overlapObs)
		for range overlapRounds {
			probe.KernelIters = k
			for i := range overlapObs {
				if err := c.Observe(&probe, clk); err != nil {
					return nil, fmt.Errorf("calibrating the compute kernel: %w", err)
				}
				n := float64(probe.Reps)
				pure[i], comp[i] = clk.Freq().Seconds(probe.Pure)/n, clk.Freq().Seconds(probe.Compute)/n
			}
			target, kernel = order.Median(pure), order.Median(comp)
			if kernel > 0 && target > 0 {
				// At most ×1000 per round, so that one noisy round cannot
				// make the next one last seconds.
				f := math.Min(target/kernel, 1000)
				k = max(1, int64(math.Round(float64(k)*f)))
			}
		}
	}
	o.KernelIters = k
	mine := []float64{float64(k), target, kernel}
	var all []float64
	if c.Rank() == 0 {
		all = make([]float64, 3*c.Size())
	}
	if err := mpi.Gather(c, mine, all, 0); err != nil {
		return nil, err
	}
	if c.Rank() != 0 {
		return nil, nil
	}
	for r := range c.Size() {
		cal.KernelIters = append(cal.KernelIters, int64(all[3*r]))
		cal.TargetPureS = append(cal.TargetPureS, all[3*r+1])
		cal.KernelS = append(cal.KernelS, all[3*r+2])
	}
	return cal, nil
}
