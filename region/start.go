package region

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/reprobench/reprobench/clocksync"
	"github.com/reprobench/reprobench/mpi"
	"github.com/reprobench/reprobench/rawdata"
	"github.com/reprobench/reprobench/timing"
)

// Start is the one call that sets up the common case, after mpi.Init: a
// recorder on c with the default clock (timing.NewDefault), the clocks
// synchronized at the start and at Stop with the library's default
// (clocksync.Default), writing into dir the raw data of run id
// DefaultRunID (the program's name) with per-rank rows, and each rank
// spilling its records to its own file as it goes (Options.Spill), so that
// a run that dies leaves them for Recover. Stop is the
// one call before mpi.Finalize. It is collective and fails on every rank
// when rank 0 cannot write into dir (StartWith).
func Start(c mpi.Comm, dir string) (*Recorder, error) {
	alg, err := clocksync.Default().New()
	if err != nil {
		return nil, fmt.Errorf("region: %w", err)
	}
	return StartWith(c, timing.NewDefault(), Options{Sync: alg, Spill: true},
		Output{Dir: dir, RunID: DefaultRunID(), PerRank: true})
}

// StartWith creates the recorder as New does and checks out at once,
// before anything is recorded: rank 0 creates out.Dir if needed, checks
// that it can write there and that none of the files Close would write
// exists (rawdata.Check; with opt.Spill, nor the spill directory), and
// every rank gets the same answer (collective). The recorder keeps out for
// Stop. With an empty out.Dir nothing is checked, and Stop writes
// nothing (it returns the rows on rank 0).
func StartWith(c mpi.Comm, clk timing.Clock, opt Options, out Output) (*Recorder, error) {
	if opt.Disabled {
		return New(c, clk, opt)
	}
	if c == nil {
		return nil, fmt.Errorf("region: StartWith needs a communicator")
	}
	var msg string
	if c.Rank() == 0 && out.Dir != "" {
		if err := checkOutput(out, opt.Spill); err != nil {
			msg = err.Error()
		}
	}
	if err := bcastString(c, &msg); err != nil {
		return nil, fmt.Errorf("region: checking the output: %w", err)
	}
	if msg != "" {
		if c.Rank() != 0 {
			msg = "rank 0: " + msg
		}
		return nil, errors.New(msg)
	}
	r, err := New(c, clk, opt)
	if err != nil {
		return nil, err
	}
	r.out = &out
	if opt.Spill && out.Dir != "" {
		if err := r.startSpill(out); err != nil {
			return nil, err
		}
	}
	return r, nil
}

// DefaultRunID is the run id Start uses: the program's file name, with
// what a run id cannot hold replaced by '_' ("regions" when nothing is
// left).
func DefaultRunID() string {
	name := strings.TrimSuffix(filepath.Base(os.Args[0]), ".exe")
	b := []byte(name)
	for i, ch := range b {
		if !(ch >= 'a' && ch <= 'z' || ch >= 'A' && ch <= 'Z' || ch >= '0' && ch <= '9' || ch == '_' || ch == '-' || ch == '.') {
			b[i] = '_'
		}
	}
	id := strings.TrimLeft(string(b), ".-")
	if rawdata.CheckRunID(id) != nil {
		return "regions"
	}
	return id
}

// checkOutput is StartWith's check on rank 0.
func checkOutput(out Output, spill bool) error {
	if _, err := rawdata.Check(&rawdata.Options{Dir: out.Dir, RunID: out.RunID, Mpirun: out.Mpirun, PerRank: out.PerRank, Labels: out.Labels}); err != nil {
		return fmt.Errorf("region: %w", err)
	}
	if d := spillDir(out.Dir, out.RunID, out.Mpirun); spill && exists(d) {
		return fmt.Errorf("region: %s exists, left by a run that did not complete: read it with region.Recover (reprobench recover), or move it away", d)
	}
	if err := os.MkdirAll(out.Dir, 0o755); err != nil {
		return fmt.Errorf("region: %w", err)
	}
	f, err := os.CreateTemp(out.Dir, ".region-check-*")
	if err != nil {
		return fmt.Errorf("region: cannot write into %s: %w", out.Dir, err)
	}
	name := f.Name()
	return errors.Join(f.Close(), os.Remove(name))
}

// bcastString broadcasts rank 0's *s to every rank (collective).
func bcastString(c mpi.Comm, s *string) error {
	n := []int64{int64(len(*s))}
	if err := c.Bcast(mpi.Bytes(n), 1, mpi.Int64, 0); err != nil {
		return err
	}
	if n[0] == 0 {
		*s = ""
		return nil
	}
	b := make([]byte, n[0])
	copy(b, *s)
	if err := c.Bcast(b, int(n[0]), mpi.Byte, 0); err != nil {
		return err
	}
	*s = string(b)
	return nil
}

// Stop ends a recording made by Start or StartWith (collective): Close
// with the output given there; rank 0 writes the files and prints the
// one-line account. It returns what Close returns; a nil or disabled
// recorder returns an empty Result.
func (r *Recorder) Stop() (*Result, error) {
	if r == nil || r.off {
		return &Result{}, nil
	}
	if r.out == nil {
		return nil, fmt.Errorf("region: Stop on a recorder made by New: call Close with its Output")
	}
	return r.Close(*r.out)
}

func exists(p string) bool {
	_, err := os.Lstat(p)
	return err == nil
}
