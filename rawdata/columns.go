package rawdata

import (
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
)

// Columns are the fixed leading columns of a raw file, in order.
var Columns = []string{"run_id", "mpirun", "exp", "call", "msize_bytes", "count", "datatype", "np", "rep", "runtime_s", "errorcode"}

// FactorColumns follow Columns in a raw file: the levels of the
// experiment's method factors (named as in design files). Without them,
// observations taken under different methods would fall into one group.
//
// skew (vcoll) is the v-collectives' skew, empty for other calls;
// noise_guard (issue 15) is "on" when the noise guard placed the window
// starts away from predicted periodic noise, else "off".
//
// bw_window and rma_sync (p2p) are the bandwidth calls' window (messages
// per window) and the one-sided calls' synchronization; empty for the
// other calls.
var FactorColumns = []string{"procsync", "window_s", "runtime_type", "cache", "clocksync", "skew", "noise_guard",
	"bw_window", "rma_sync"}

// nbc: OverlapColumns end the raw file when a run has experiments of the
// overlap measurement of a non-blocking collective (Experiment.NBCMode);
// rows of other experiments leave them empty. nbc_mode ("overlap", or
// "overlap_test<k>" with MPI_Test every k kernel iterations) is a label
// (it enters the group key); OverlapValueColumns are values, per call,
// averaged over ranks, as OSU prints them (docs/data-format.md).
var OverlapColumns = []string{"nbc_mode", "pure_s", "compute_s", "total_s", "overlap_frac"}

// OverlapValueColumns are the numeric columns of OverlapColumns, which
// readers must not take for labels.
var OverlapValueColumns = OverlapColumns[1:]

// RankColumns are the columns of a per-rank file, in order.
var RankColumns = []string{"run_id", "mpirun", "exp", "call", "msize_bytes", "np", "rep", "rank",
	"local_start_s", "local_end_s", "global_start_s", "global_end_s", "errorcode"}

// Datatypes are the names the datatype column uses (the lower-case names
// of package mpi's Datatype.ShortName; MPI names such as MPI_DOUBLE are
// never written).
var Datatypes = []string{"byte", "int32", "int64", "float32", "float64"}

// ErrorCodeWrongResult is the errorcode bit of an observation whose
// result the check (run --check) found wrong on some rank; the row's
// runtime is still recorded.
const ErrorCodeWrongResult = 8

// ErrorCodes documents the bits of the errorcode column; the sidecar
// repeats this table. The bits are computed on every rank and reduced
// across ranks by bitwise OR.
var ErrorCodes = map[string]string{
	"0": "valid",
	"1": "started late (after its window's start plus the late tolerance on some rank)",
	"2": "window expired (ended after the next window's start on some rank)",
	"3": "started late and window expired",
	"4": "discarded: its batch was repeated with a larger window (NBCBench policy); 5, 6, 7 combine 4 with 1, 2, 3",
	"8": "wrong result: the result check (run --check) found the receive buffer different from the operation's expected result on some rank; 9-15 combine 8 with 1-7",
}

var labelKeyRE = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9_]*$`)

// IsColumn reports whether name is a column of the raw or per-rank format,
// which a label key must not shadow.
func IsColumn(name string) bool {
	return slices.Contains(Columns, name) || slices.Contains(FactorColumns, name) || slices.Contains(RankColumns, name) ||
		slices.Contains(OverlapColumns, name) // nbc
}

// CheckLabelKey accepts label keys of letters, digits and '_', starting
// with a letter, that are not a column name.
func CheckLabelKey(k string) error {
	if !labelKeyRE.MatchString(k) {
		return fmt.Errorf("rawdata: label key %q: want letters, digits and _, starting with a letter", k)
	}
	if IsColumn(k) {
		return fmt.Errorf("rawdata: label key %q collides with a column of the raw data", k)
	}
	return nil
}

// CheckLabel checks a label: the key with CheckLabelKey, and a value
// without commas, quotes or line breaks (the CSV is unquoted).
func CheckLabel(k, v string) error {
	if err := CheckLabelKey(k); err != nil {
		return err
	}
	if strings.ContainsAny(v, ",\"\n\r") {
		return fmt.Errorf("rawdata: label %s: value %q must not contain commas, quotes or line breaks", k, v)
	}
	return nil
}

// CheckRunID accepts run ids made of letters, digits, '_', '-' and '.' (so
// they are safe in file names, globs and unquoted CSV), not starting with
// '.' or '-'. It refuses "a,b", `q"x` and "../x".
func CheckRunID(id string) error {
	if id == "" || id[0] == '.' || id[0] == '-' {
		return fmt.Errorf("rawdata: run id %q: must not be empty or start with '.' or '-'", id)
	}
	for _, r := range id {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '-' || r == '.') {
			return fmt.Errorf("rawdata: run id %q: only letters, digits, '_', '-' and '.' are allowed", id)
		}
	}
	return nil
}

// CheckDatatype accepts the names of Datatypes.
func CheckDatatype(d string) error {
	if err := checkDatatype(d); err != nil {
		return fmt.Errorf("rawdata: %w", err)
	}
	return nil
}

func checkDatatype(d string) error {
	if !slices.Contains(Datatypes, d) {
		return fmt.Errorf("datatype %q is not one of %s (MPI names such as MPI_DOUBLE are never written)", d, strings.Join(Datatypes, ", "))
	}
	return nil
}

// ErrExists is returned (wrapped) by Create when an output file or a
// .partial file of the same name exists.
var ErrExists = errors.New("rawdata: file exists")
