package rawdata

import (
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/reprobench/reprobench/factor"
)

// Columns are the fixed leading columns of a raw file, in order.
var Columns = []string{"run_id", "mpirun", "exp", "call", "msize_bytes", "count", "datatype", "np", "rep", "runtime_s", "errorcode"}

// FactorColumns follow Columns in a raw file: the levels of the
// experiment's factors (named as in design files), the rows of package
// factor's table that are not optional (factor.Columns). Without them,
// observations taken under different methods would fall into one group.
// The optional rows (factor.OptionalColumns) follow them only in a file
// where some experiment sets one to a level other than its default (an
// absent column means the default level).
//
// skew (vcoll) is the v-collectives' skew, empty for other calls;
// noise_guard is "on" when the noise guard placed the window
// starts away from predicted periodic noise, else "off".
//
// bw_window and rma_sync (p2p) are the bandwidth calls' window (messages
// per window) and the one-sided calls' synchronization; empty for the
// other calls.
var FactorColumns = factor.Columns()

// CovariateColumns are recorded covariates: values that describe how an
// observation was taken but that analysis does not group by unless asked
// (analysis.Dataset.GroupBy; analyze --by). A raw file has them after
// FactorColumns only when some experiment records one
// (Experiment.Covariates); an absent column and an empty cell mean the
// covariate was not in use.
//
// prehistory_msgs is the number of empty one-way messages each even rank
// sent to the rank after it before this experiment's measured
// observations (engine.Prehistory); empty without a prehistory.
var CovariateColumns = []string{CovariatePrehistory}

// CovariatePrehistory is the column of the prehistory design factor's
// count (CovariateColumns).
const CovariatePrehistory = "prehistory_msgs"

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

// RegionColumns end the raw file when a run has experiments of
// application regions (Experiment.Region, package region): per-row values,
// never labels, so that the iteration is a column rather than one group
// per iteration. iter is the iteration the application stamped on the
// occurrence (−1: none); start_s the earliest global start over the ranks;
// global_runtime_s the latest global end minus the earliest global start;
// entry_spread_s the latest minus the earliest global start; nranks the
// ranks that recorded the occurrence. Rows of other experiments leave them
// empty. See package region for runtime_s of a region row.
var RegionColumns = []string{"iter", "start_s", "global_runtime_s", "entry_spread_s", "nranks"}

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
	"0":  "valid",
	"1":  "started late (after its window's start plus the late tolerance on some rank)",
	"2":  "window expired (ended after the next window's start on some rank)",
	"3":  "started late and window expired",
	"4":  "discarded: its batch was repeated with a larger window (NBCBench policy); 5, 6, 7 combine 4 with 1, 2, 3",
	"8":  "wrong result: the result check (run --check) found the receive buffer different from the operation's expected result on some rank; 9-15 combine 8 with 1-7",
	"16": "incomplete region occurrence (package region): some rank did not record it (its buffer was full, or it never entered the region)",
}

var labelKeyRE = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9_]*$`)

// isColumn reports whether name is a column of the raw or per-rank format,
// which a label key must not shadow.
func isColumn(name string) bool {
	return slices.Contains(Columns, name) || factor.Lookup(name) != nil || slices.Contains(RankColumns, name) ||
		slices.Contains(CovariateColumns, name) ||
		slices.Contains(OverlapColumns, name) || // nbc
		slices.Contains(RegionColumns, name)
}

// CheckLabelKey accepts label keys of letters, digits and '_', starting
// with a letter, that are not a column name.
func CheckLabelKey(k string) error {
	if !labelKeyRE.MatchString(k) {
		return fmt.Errorf("rawdata: label key %q: want letters, digits and _, starting with a letter", k)
	}
	if isColumn(k) {
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

// checkDatatype accepts the names of Datatypes.
func checkDatatype(d string) error {
	if !slices.Contains(Datatypes, d) {
		return fmt.Errorf("datatype %q is not one of %s (MPI names such as MPI_DOUBLE are never written)", d, strings.Join(Datatypes, ", "))
	}
	return nil
}

// ErrExists is returned (wrapped) by Create when an output file or a
// .partial file of the same name exists.
var ErrExists = errors.New("rawdata: file exists")
