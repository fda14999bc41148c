//go:build linux

package main

import (
	"os"
	"time"

	"golang.org/x/sys/unix"
)

// drainStderr waits, at most max, until whoever reads this process's stderr
// pipe (mpirun's or hydra's output forwarder) has read everything written
// to it. MPI_Abort tears the job down at once, and a forwarder killed with
// bytes still in the pipe loses them: once in CI, MPICH's job exited with
// status 3 but without the message saying why. Not a pipe (a terminal, a
// file): nothing to wait for.
func drainStderr(max time.Duration) {
	fd := int(os.Stderr.Fd())
	for deadline := time.Now().Add(max); time.Now().Before(deadline); time.Sleep(time.Millisecond) {
		if n, err := unix.IoctlGetInt(fd, unix.TIOCINQ); err != nil || n == 0 {
			return
		}
	}
}
