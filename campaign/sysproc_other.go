//go:build !linux

package campaign

import "syscall"

// sysProcAttr puts a mpirun in a process group of its own. Without Linux's
// Pdeathsig a mpirun outlives a launcher killed by SIGKILL; a resume finds
// and kills it (killStale reads /proc, so only where /proc exists).
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true}
}
