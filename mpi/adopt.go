//go:build cgo && !nompi

package mpi

/*
#include <stdint.h>
#include "rbmpi.h"

// rb_adopt_dup duplicates the communicator whose handle h carries (the
// handle's bits: a pointer under Open MPI, an int under MPICH) and
// installs MPI_ERRORS_RETURN on the duplicate only. It records the calling
// thread as the one that owns MPI (rb_main).
static int rb_adopt_dup(uintptr_t h, MPI_Comm *out) {
	rb_main = pthread_self();
	int err = MPI_Comm_dup((MPI_Comm)h, out);
	if (err != MPI_SUCCESS) return err;
	return MPI_Comm_set_errhandler(*out, MPI_ERRORS_RETURN);
}
*/
import "C"

// Adopt lets a program whose MPI was initialized by its own code (a C or
// Fortran program that links reprobench as a library and called MPI_Init)
// use this package. handle is a communicator handle's bits converted to
// uintptr_t in C ((uintptr_t)comm: a pointer under Open MPI, an int under
// MPICH). Adopt duplicates it (MPI_Comm_dup, collective over it),
// installs MPI_ERRORS_RETURN on the duplicate only, and returns the
// duplicate, which the caller frees with Comm.Free before the program
// calls MPI_Finalize. It makes World return
// MPI_COMM_WORLD (with its error handler unchanged) when Init was not
// called, and records the calling thread as the one that owns MPI: every
// later call of this package must come from it (a call from C into Go
// runs on the C caller's thread; a Go caller calls runtime.LockOSThread
// first). MPI must be initialized and not finalized.
func Adopt(handle uintptr) (Comm, error) {
	if ok, err := Initialized(); err != nil || !ok {
		return nil, errf("MPI_Initialized", "Adopt needs an initialized MPI: call MPI_Init first")
	}
	if done, _ := finalized(); done {
		return nil, errf("MPI_Finalized", "Adopt after MPI_Finalize")
	}
	if err := checkOpsHeader(); err != nil {
		return nil, err
	}
	var h C.MPI_Comm
	if err := check("MPI_Comm_dup", C.rb_adopt_dup(C.uintptr_t(handle), &h)); err != nil {
		return nil, err
	}
	if world == nil {
		w, err := newComm(C.rb_comm_world(), true)
		if err != nil {
			return nil, err
		}
		world = w
	}
	return newComm(h, false)
}
