package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/reprobench/reprobench/clocksync"
)

// Test hook of the launcher's kill tests (campaign/integration_test.go):
// they must kill a run that is certainly still running, however fast the
// machine, so no sleep may decide whether the run is over.
//
// When the environment variable RB_TEST_HOLD_MPIRUN equals the run's
// --mpirun, every rank, once its output .partial files exist and just before
// it measures, writes its pid to RB_TEST_HOLD_DIR/mpirunNNN-rankR.pid and
// then waits until it is killed. The variables come from the launcher's
// environment, so a resume without them runs the mpirun normally.
const (
	testHoldMpirunEnv = "RB_TEST_HOLD_MPIRUN"
	testHoldDirEnv    = "RB_TEST_HOLD_DIR"
)

// testHoldMax bounds the wait, so that a test that dies before it kills a
// held run does not leave ranks behind for ever. It is far beyond any
// test's own timeout: the tests kill the run long before.
const testHoldMax = 10 * time.Minute

// launchTestHold holds rank me of mpirun i if RB_TEST_HOLD_MPIRUN asks for
// it; it returns an error when the hold expires unkilled (a test bug).
func launchTestHold(i, me int) error {
	v := os.Getenv(testHoldMpirunEnv)
	if v == "" {
		return nil
	}
	if n, err := strconv.Atoi(v); err != nil || n != i {
		return nil
	}
	dir := os.Getenv(testHoldDirEnv)
	if dir == "" {
		return fmt.Errorf("%s=%s set without %s", testHoldMpirunEnv, v, testHoldDirEnv)
	}
	path := filepath.Join(dir, fmt.Sprintf("mpirun%03d-rank%d.pid", i, me))
	if err := os.WriteFile(path+".tmp", fmt.Appendf(nil, "%d\n", os.Getpid()), 0o644); err != nil {
		return err
	}
	if err := os.Rename(path+".tmp", path); err != nil {
		return err
	}
	time.Sleep(testHoldMax)
	return fmt.Errorf("test hold of mpirun %d expired after %v without a kill", i, testHoldMax)
}

// checkAllMpiruns as runOptions.mpirun makes buildExperiments take the
// experiments of every mpirun of a design (run --check-np only; --mpirun
// itself must be ≥ 0).
const checkAllMpiruns = -1

// runCheckFlags is "reprobench run --check-np NP": it validates the run's
// flags and design for NP processes as every rank would, without MPI and
// without measuring, so that launch can refuse bad run flags before it
// starts any mpirun (instead of every mpirun failing with the same usage
// error). With a design, the experiments of every mpirun are
// checked. The clock is checked by name only: the launcher's host need not
// be where the ranks run.
func runCheckFlags(o *runOptions, np int) error {
	// runOptions.check, which ran before, has checked the clock's name.
	if s := o.clockSync; s != "auto" && s != "none" {
		if _, err := clocksync.ParseSpec(s); err != nil {
			return fmt.Errorf("%w: --clock-sync: %v", errUsage, err)
		}
	}
	oc := *o
	if oc.designFile != "" {
		oc.mpirun = checkAllMpiruns
	}
	// buildExperiments checks every experiment, its clock-sync spec included.
	exps, err := buildExperiments(&oc, np)
	if err != nil {
		return err
	}
	if len(exps) == 0 {
		return fmt.Errorf("%w: no experiments", errUsage)
	}
	return nil
}
