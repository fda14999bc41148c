package launch

import (
	"errors"
	"fmt"

	"github.com/reprobench/reprobench/campaign"
	"github.com/reprobench/reprobench/mpi"
)

// RankError is an error of one rank that the other ranks do not know
// about: they may wait for it in a collective, so a program should end the
// job (mpi.Abort) instead of returning from MPI normally.
type RankError struct {
	Rank int   // the rank that failed
	Err  error // its error
}

// Error returns "rank R: cause".
func (f *RankError) Error() string { return fmt.Sprintf("rank %d: %v", f.Rank, f.Err) }

// Unwrap returns the cause.
func (f *RankError) Unwrap() error { return f.Err }

// bcastString broadcasts s from rank root (collective).
func bcastString(c mpi.Comm, s string, root int) (string, error) {
	n := []int64{int64(len(s))}
	if err := mpi.Bcast(c, n, root); err != nil {
		return "", err
	}
	b := make([]byte, n[0])
	copy(b, s)
	if err := mpi.Bcast(c, b, root); err != nil {
		return "", err
	}
	return string(b), nil
}

// Agree is collective: every rank passes its own error (or nil), and every
// rank returns an error when any rank had one — its own, or the message of
// the lowest failing rank — so that all ranks stop together. A failure of
// the agreement itself is a *RankError.
func Agree(c mpi.Comm, err error) error {
	bad := []int64{int64(c.Size())}
	if err != nil {
		bad[0] = int64(c.Rank())
	}
	low := []int64{0}
	if e := mpi.Allreduce(c, bad, low, mpi.Min); e != nil {
		return &RankError{c.Rank(), e}
	}
	if low[0] == int64(c.Size()) {
		return nil
	}
	var msg string
	if err != nil {
		msg = err.Error()
	}
	m, e := bcastString(c, msg, int(low[0]))
	if e != nil {
		return &RankError{c.Rank(), e}
	}
	if err != nil && c.Rank() == int(low[0]) {
		return err
	}
	if low[0] == 0 {
		return errors.New(m)
	}
	return fmt.Errorf("rank %d: %s", low[0], m)
}

// CheckLaunch is collective: it refuses a communicator whose size is not
// the one its launcher declared (campaign.CheckSize with this build's MPI
// library, mpi.BuildFlavor): a launcher or srun PMI plugin that does not
// connect the ranks starts singletons, each of which would measure alone
// and write a result of np 1. Every rank checks its own
// environment (getenv, e.g. os.Getenv) and the ranks agree (Agree), so
// that all of them stop before anything is written. A program that writes
// measurements calls it right after mpi.Init.
func CheckLaunch(c mpi.Comm, getenv func(string) string) error {
	// mpi.NodeSize, not SplitShared: a communicator created here would
	// slow the measurements that follow on Open MPI.
	nodeNp, err := mpi.NodeSize(c)
	if err != nil {
		return &RankError{c.Rank(), err}
	}
	return Agree(c, campaign.CheckSize(c.Size(), nodeNp, mpi.BuildFlavor, getenv))
}

// LaunchNote returns, for a process that srun started with a PMI plugin
// this build's MPI library cannot use, a note naming the right one
// (campaign.SrunPluginNote), and "" otherwise. Print it before mpi.Init:
// there Debian's Open MPI ends such a process with its own message, before
// CheckLaunch could say what to do.
func LaunchNote(getenv func(string) string) string {
	return campaign.SrunPluginNote(mpi.BuildFlavor, getenv)
}
