//go:build rbcorrupt && cgo && !nompi

package mpi

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
)

// This file is compiled only with the build tag rbcorrupt: a test build
// of the binding that corrupts results on purpose, so that a test can show
// under real MPI that the result check (run --check,
// engine.Experiment.VerifyResults) catches a wrong result. Never ship a
// binary built with it.

// corruptBuilt marks the test build (corrupt_off.go is the normal one).
const corruptBuilt = true

// The hook, armed by CorruptEnvName ("CALL:RANK"): after every Observe and
// ObserveBatch of CALL that ran in C, rank RANK of the communicator flips
// bit 4 of the first byte of the receive buffer the last observation used,
// as mpitest.Config.CorruptResult does: the result the observations left
// is then wrong, and nothing else changes. A malformed value makes the
// process exit with status 2 at its first observation.

var corruptCfg = sync.OnceValue(func() (c struct {
	armed bool
	call  Call
	rank  int
}) {
	v := os.Getenv(CorruptEnvName)
	if v == "" {
		return c
	}
	name, r, ok := strings.Cut(v, ":")
	call, err := ParseCall(name)
	rank, err2 := strconv.Atoi(r)
	if !ok || err != nil || err2 != nil || rank < 0 {
		fmt.Fprintf(os.Stderr, "mpi: %s=%q: want CALL:RANK, e.g. MPI_Allreduce:1\n", CorruptEnvName, v)
		os.Exit(2)
	}
	fmt.Fprintf(os.Stderr, "mpi: test build (tag rbcorrupt): rank %d corrupts every result of %v\n", rank, call)
	c.armed, c.call, c.rank = true, call, rank
	return c
})

// corruptResult flips bit 4 of recv's first byte at offset off when the
// hook is armed for o.Call and rank.
func corruptResult(rank int, o *Observation, off int64) {
	c := corruptCfg()
	if !c.armed || o.Call != c.call || rank != c.rank || off < 0 || off >= int64(len(o.Recv)) {
		return
	}
	o.Recv[off] ^= 0x10
}
