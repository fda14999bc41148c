// Package slurmtest starts a one-node Slurm cluster for tests:
// munged, slurmctld and slurmd, with their configuration, state, logs and
// sockets in a temporary directory, through scripts/slurm-up.sh, and stops
// it by pid through scripts/slurm-down.sh when the test ends, whatever
// happens: a watcher stops it too if the test binary dies.
//
// Where Slurm is not installed or cannot start (not root, no munge), Start
// skips the test, unless RB_REQUIRE_SLURM=1 (make test and CI set it), which
// makes that a failure.
package slurmtest
