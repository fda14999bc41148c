package reprobench

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
