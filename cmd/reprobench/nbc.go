package main

import (
	"flag"
	"fmt"

	"github.com/reprobench/reprobench"
)

// nbcOptions are the flags of the overlap measurement of the non-blocking
// collectives.
type nbcOptions struct {
	overlap     bool
	testEvery   int64
	kernelIters int64
}

func nbcFlags(fs *flag.FlagSet, o *nbcOptions) {
	fs.BoolVar(&o.overlap, "nbc-overlap", false, "measure the run's non-blocking collectives by their overlap, as OSU and NBCBench publish it, instead of their latency: a pure phase, then a compute kernel of that length between post and wait; needs a barrier method; columns in docs/data-format.md")
	fs.Int64Var(&o.testEvery, "nbc-test-every", 0, "with --nbc-overlap: call MPI_Test every k kernel iterations (0: never); with --runtime osu, OSU's -t k: the kernel in k parts, MPI_Test after each")
	fs.Int64Var(&o.kernelIters, "nbc-kernel-iters", 0, "with --nbc-overlap: kernel iterations per call (0: calibrate per experiment and rank to the pure time; the calibration is in the sidecar); --runtime osu refuses it: it runs OSU's kernel, timed passes until they add up to the observation's own pure time per call, as osu_iallreduce")
}

// apply gives the overlap settings to the non-blocking experiments of the
// run (blocking calls of the same run are measured as usual) and checks
// them; the overlap flags without --nbc-overlap, or --nbc-overlap without
// a non-blocking call, are errors.
func (o *nbcOptions) apply(exps []reprobench.Experiment, np int) error {
	if !o.overlap {
		if o.testEvery != 0 || o.kernelIters != 0 {
			return fmt.Errorf("%w: --nbc-test-every and --nbc-kernel-iters need --nbc-overlap", errUsage)
		}
		return nil
	}
	if o.testEvery < 0 || o.kernelIters < 0 {
		return fmt.Errorf("%w: --nbc-test-every %d and --nbc-kernel-iters %d must not be negative", errUsage, o.testEvery, o.kernelIters)
	}
	n := 0
	for i := range exps {
		ex := &exps[i]
		if !ex.Call.NonBlocking() {
			continue
		}
		n++
		ex.Overlap = &reprobench.Overlap{TestEvery: o.testEvery, KernelIters: o.kernelIters}
		if err := ex.Check(np); err != nil {
			return fmt.Errorf("%w: --nbc-overlap: experiment %d: %v", errUsage, ex.Exp, err)
		}
	}
	if n == 0 && len(exps) > 0 {
		return fmt.Errorf("%w: --nbc-overlap: the run has no non-blocking collective (MPI_Ibarrier, MPI_Iallreduce, …)", errUsage)
	}
	return nil
}
