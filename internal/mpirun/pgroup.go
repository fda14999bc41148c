package mpirun

import (
	"os/exec"
	"syscall"
	"time"
)

// setProcessGroup starts cmd in a process group of its own and makes its
// cancellation kill the whole group, so that a hung launcher does not leave
// ranks behind.
func setProcessGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 5 * time.Second
}
