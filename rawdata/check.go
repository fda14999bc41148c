package rawdata

import (
	"fmt"
	"math"
	"strings"

	"github.com/reprobench/reprobench/factor"
)

// CheckCall accepts a call name for the call column: not empty, without
// commas, quotes, line breaks or other control characters (the CSV is
// unquoted: "a,b" would add a field to the row), and without leading or
// trailing spaces. Built-in calls are named as mpi.Call.String; a user's
// operation may take any other such name ("halo_exchange").
func CheckCall(name string) error {
	if err := checkCall(name); err != nil {
		return fmt.Errorf("rawdata: %w", err)
	}
	return nil
}

func checkCall(name string) error {
	if name == "" {
		return fmt.Errorf("call: empty name")
	}
	if strings.TrimSpace(name) != name {
		return fmt.Errorf("call %q: leading or trailing space", name)
	}
	if err := checkCell(name); err != nil {
		return fmt.Errorf("call %q: %v", name, err)
	}
	return nil
}

// checkCell refuses what an unquoted CSV cell cannot hold.
func checkCell(v string) error {
	for _, r := range v {
		switch {
		case r == ',' || r == '"':
			return fmt.Errorf("must not contain commas or quotes (the CSV is unquoted)")
		case r < ' ' || r == 0x7f:
			return fmt.Errorf("must not contain line breaks or control characters")
		}
	}
	return nil
}

// checkFactors refuses factor levels that would break the unquoted CSV,
// naming the column (the clock sync spec's commas are written as ';').
func checkFactors(f factor.Values) error {
	for _, r := range factor.Table() {
		if v := factorCell(f, r.ID); checkCell(v) != nil {
			return fmt.Errorf("%s %q: %v", r.Name, v, checkCell(v))
		}
	}
	return nil
}

// checkRow refuses what the reader (package analysis) refuses, naming the
// field: a bad call name, a negative message size, count or repetition, an
// np below 1, a datatype not among Datatypes, a negative errorcode; and
// a valid observation (errorcode 0) whose runtime_s is NaN, infinite or
// negative, which the reader would count as bad and skip.
func checkRow(r *Row) error {
	switch {
	case r.ErrorCode == 0 && (math.IsNaN(r.RuntimeS) || math.IsInf(r.RuntimeS, 0) || r.RuntimeS < 0):
		return fmt.Errorf("runtime_s %g of a valid observation (errorcode 0): want a finite duration ≥ 0 (mark an observation that has none with an errorcode)", r.RuntimeS)
	case r.Rep < 0:
		return fmt.Errorf("rep %d is negative", r.Rep)
	case r.MsizeBytes < 0:
		return fmt.Errorf("msize_bytes %d is negative", r.MsizeBytes)
	case r.Count < 0:
		return fmt.Errorf("count %d is negative", r.Count)
	case r.Np < 1:
		return fmt.Errorf("np %d is below 1", r.Np)
	case r.ErrorCode < 0:
		return fmt.Errorf("errorcode %d is negative (it holds the bits of ErrorCodes)", r.ErrorCode)
	}
	if err := checkDatatype(r.Datatype); err != nil {
		return err
	}
	return checkCall(r.Call)
}

// checkRankRow is checkRow for a per-rank row: the rank must be in [0, np).
func checkRankRow(r *RankRow) error {
	switch {
	case r.Rep < 0:
		return fmt.Errorf("rep %d is negative", r.Rep)
	case r.MsizeBytes < 0:
		return fmt.Errorf("msize_bytes %d is negative", r.MsizeBytes)
	case r.Np < 1:
		return fmt.Errorf("np %d is below 1", r.Np)
	case r.Rank < 0 || r.Rank >= r.Np:
		return fmt.Errorf("rank %d is outside [0, np=%d)", r.Rank, r.Np)
	case r.ErrorCode < 0:
		return fmt.Errorf("errorcode %d is negative (it holds the bits of ErrorCodes)", r.ErrorCode)
	}
	return checkCall(r.Call)
}

// threadLevels are the MPI thread levels by their short names (MPI's names
// are "MPI_THREAD_" and the name in capitals).
var threadLevels = []string{"single", "funneled", "serialized", "multiple"}

// canonThreadLevel accepts a thread level in either spelling ("single",
// "MPI_THREAD_SINGLE", any case), "" or "unknown" (package mpi's name for
// a provided level MPI does not name), and returns it in the spelling of
// the field: MPI's name when mpiName, else the short one.
func canonThreadLevel(field, v string, mpiName bool) (string, error) {
	if v == "" || v == "unknown" { // unknown: a level MPI_Init_thread returned that MPI does not name
		return v, nil
	}
	short := strings.ToLower(strings.TrimPrefix(strings.ToUpper(v), "MPI_THREAD_"))
	for _, l := range threadLevels {
		if short == l {
			if mpiName {
				return "MPI_THREAD_" + strings.ToUpper(l), nil
			}
			return l, nil
		}
	}
	return "", fmt.Errorf("rawdata: metadata %s %q is not a thread level (single, funneled, serialized, multiple, or MPI's MPI_THREAD_… names)", field, v)
}

// complete checks meta against the writer and fills what the writer
// knows: the run id and mpirun (refusing others), the error code table,
// np when every row had the same, and the thread levels in their
// canonical spellings (mpi_thread_level "single", the requested and
// provided levels "MPI_THREAD_SINGLE"; either spelling is accepted).
func (s *Writer) complete(meta *Metadata) error {
	if meta.RunID == "" {
		meta.RunID = s.runID
	} else if meta.RunID != s.runID {
		return fmt.Errorf("rawdata: metadata run_id %q differs from the writer's %q", meta.RunID, s.runID)
	}
	if meta.Mpirun == 0 {
		meta.Mpirun = s.mpirun
	} else if meta.Mpirun != s.mpirun {
		return fmt.Errorf("rawdata: metadata mpirun %d differs from the writer's %d", meta.Mpirun, s.mpirun)
	}
	if meta.Np == 0 && s.np > 0 {
		meta.Np = s.np
	} else if meta.Np < 0 {
		return fmt.Errorf("rawdata: metadata np %d is negative", meta.Np)
	}
	if meta.ErrorCodes == nil {
		meta.ErrorCodes = ErrorCodes
	}
	var err error
	if meta.MPIThread, err = canonThreadLevel("mpi_thread_level", meta.MPIThread, false); err != nil {
		return err
	}
	if meta.MPIThreadRequested, err = canonThreadLevel("mpi_thread_requested", meta.MPIThreadRequested, true); err != nil {
		return err
	}
	if meta.MPIThreadProvided, err = canonThreadLevel("mpi_thread_provided", meta.MPIThreadProvided, true); err != nil {
		return err
	}
	return nil
}

// repSet holds the repetitions written for one experiment (and rank): a
// bitset while they are dense, as the engine writes them (0, 1, 2, …), a
// map for the rest.
type repSet struct {
	bits   []uint64
	sparse map[int]struct{}
	n      int
}

// add records rep and reports whether it was new.
func (s *repSet) add(rep int) bool {
	w := rep / 64
	if w < len(s.bits) && s.bits[w]&(1<<(rep%64)) != 0 {
		return false
	}
	if _, dup := s.sparse[rep]; dup {
		return false
	}
	s.n++
	switch {
	case w < len(s.bits):
	case rep < 4096+8*s.n: // dense enough for a bitset
		s.bits = append(s.bits, make([]uint64, w+1-len(s.bits))...)
	default:
		if s.sparse == nil {
			s.sparse = map[int]struct{}{}
		}
		s.sparse[rep] = struct{}{}
		return true
	}
	s.bits[w] |= 1 << (rep % 64)
	return true
}
