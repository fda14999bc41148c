package rawdata

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/reprobench/reprobench/factor"
)

// FormatVersion is the version of the raw-data format this package writes,
// as MAJOR.MINOR. It is recorded in every sidecar (Metadata.FormatVersion)
// and covers the CSV files the sidecar names, whose header stays a plain CSV
// header so that R's and pandas' default readers take them.
//
// A minor version adds columns, sidecar fields or error codes that older
// readers may ignore; a major version changes the meaning of something
// that exists. Readers accept every version up to their own major version
// (sidecars written before versioning have none and read as 0.0) and
// refuse a newer major version with an error naming both versions.
// docs/data-format.md lists the versions and what each changed. It is
// 1.6, or the newest version that added a column of package factor's
// table (factor.Factor.Since), whichever is newer: adding an optional
// factor column bumps it with its row.
var FormatVersion = newestVersion("1.6")

// newestVersion returns the newest of base and the factor table's Since.
func newestVersion(base string) string {
	v := base
	for _, f := range factor.Table() {
		if f.Since == "" {
			continue
		}
		a, b, _ := parseVersion(v)
		c, d, err := parseVersion(f.Since)
		if err != nil {
			panic(fmt.Sprintf("rawdata: factor %s: %v", f.Name, err))
		}
		if c > a || (c == a && d > b) {
			v = f.Since
		}
	}
	return v
}

// ErrFormatVersion is wrapped by the error for a file written in a major
// version newer than this reader's.
var ErrFormatVersion = errors.New("raw-data format version too new")

// parseVersion splits MAJOR.MINOR; "" is the unversioned 0.0.
func parseVersion(v string) (major, minor int, err error) {
	if v == "" {
		return 0, 0, nil
	}
	a, b, ok := strings.Cut(v, ".")
	if !ok {
		return 0, 0, fmt.Errorf("rawdata: format version %q is not MAJOR.MINOR", v)
	}
	if major, err = strconv.Atoi(a); err != nil || major < 0 {
		return 0, 0, fmt.Errorf("rawdata: format version %q is not MAJOR.MINOR", v)
	}
	if minor, err = strconv.Atoi(b); err != nil || minor < 0 {
		return 0, 0, fmt.Errorf("rawdata: format version %q is not MAJOR.MINOR", v)
	}
	return major, minor, nil
}

// CheckFormatVersion returns nil if this package reads files of version v
// ("" for files written before versioning), and otherwise an error that
// names v and FormatVersion (wrapping ErrFormatVersion for a newer major
// version).
func CheckFormatVersion(v string) error {
	major, _, err := parseVersion(v)
	if err != nil {
		return err
	}
	own, _, _ := parseVersion(FormatVersion)
	if major > own {
		return fmt.Errorf("%w: the file is format %s, this reader knows %s and older: read it with a newer reprobench", ErrFormatVersion, v, FormatVersion)
	}
	return nil
}

// SidecarFor returns the path of the sidecar that describes a raw CSV
// (BASE.csv) or per-rank CSV (BASE.ranks.csv): BASE.json. ok is false for
// a path of neither form.
func SidecarFor(csvPath string) (path string, ok bool) {
	for _, suf := range []string{".ranks.csv", ".csv"} {
		if base, found := strings.CutSuffix(csvPath, suf); found {
			return base + ".json", true
		}
	}
	return "", false
}

// CheckCSVVersion checks the format version of the sidecar beside a raw or
// per-rank CSV file. A CSV without a sidecar (copied alone, or a partial
// mpirun's) is accepted: there is nothing to check. The error names the
// sidecar.
func CheckCSVVersion(csvPath string) error {
	side, ok := SidecarFor(csvPath)
	if !ok {
		return nil
	}
	b, err := os.ReadFile(side)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	var v struct {
		FormatVersion string `json:"format_version"`
	}
	if err := json.Unmarshal(b, &v); err != nil {
		return fmt.Errorf("rawdata: %s: %w", side, err)
	}
	if err := CheckFormatVersion(v.FormatVersion); err != nil {
		return fmt.Errorf("rawdata: %s (sidecar of %s): %w", side, csvPath, err)
	}
	return nil
}
