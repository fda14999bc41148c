package campaign

import "syscall"

// sysProcAttr puts a mpirun in a process group of its own and has the
// kernel send it SIGKILL when the thread that started it exits (the
// launcher died): Pdeathsig is Linux-only.
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}
