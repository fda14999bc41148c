package main

import (
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"
)

// rawColumns are the fixed columns of reprobench's raw CSV; any other
// column is a label.
var rawColumns = []string{"run_id", "mpirun", "exp", "call", "msize_bytes", "count", "datatype", "np", "rep", "runtime_s", "errorcode"}

// obs is one raw observation.
type obs struct {
	runID   string
	mpirun  int
	exp     int
	key     string // call/msize=…/np=…/datatype[/label=value…]
	runtime float64
	code    int
}

// unit names the mpirun (and optionally the experiment) an observation
// came from.
func (o obs) unit(byExp bool) string {
	if byExp {
		return fmt.Sprintf("%s/mpirun%03d/exp%03d", o.runID, o.mpirun, o.exp)
	}
	return fmt.Sprintf("%s/mpirun%03d", o.runID, o.mpirun)
}

// readRaw reads the observations of one raw CSV file (every row, valid or
// not).
func readRaw(path string) ([]obs, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	r := csv.NewReader(f)
	r.ReuseRecord = true
	head, err := r.Read()
	if err != nil {
		return nil, fmt.Errorf("%s: header: %w", path, err)
	}
	idx := map[string]int{}
	var labels []string
	for i, h := range head {
		idx[h] = i
		if !slices.Contains(rawColumns, h) {
			labels = append(labels, h)
		}
	}
	for _, c := range rawColumns {
		if _, ok := idx[c]; !ok {
			return nil, fmt.Errorf("%s: no column %s", path, c)
		}
	}
	slices.Sort(labels)
	var out []obs
	var sb strings.Builder
	for line := 2; ; line++ {
		rec, err := r.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		var o obs
		var e1, e2, e3, e4 error
		o.runID = rec[idx["run_id"]]
		o.mpirun, e1 = strconv.Atoi(rec[idx["mpirun"]])
		o.exp, e2 = strconv.Atoi(rec[idx["exp"]])
		o.runtime, e3 = strconv.ParseFloat(rec[idx["runtime_s"]], 64)
		o.code, e4 = strconv.Atoi(rec[idx["errorcode"]])
		if err := errors.Join(e1, e2, e3, e4); err != nil {
			return nil, fmt.Errorf("%s:%d: %w", path, line, err)
		}
		sb.Reset()
		fmt.Fprintf(&sb, "%s/msize=%s/np=%s/%s", rec[idx["call"]], rec[idx["msize_bytes"]], rec[idx["np"]], rec[idx["datatype"]])
		for _, l := range labels {
			fmt.Fprintf(&sb, "/%s=%s", l, rec[idx[l]])
		}
		o.key = sb.String()
		out = append(out, o)
	}
	return out, nil
}

// readAll reads several raw files.
func readAll(paths []string) ([]obs, error) {
	var all []obs
	for _, p := range paths {
		o, err := readRaw(p)
		if err != nil {
			return nil, err
		}
		all = append(all, o...)
	}
	return all, nil
}

// writeJSON writes v indented to path.
func writeJSON(path string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(b, '\n'), 0o644)
}

// writeCSV writes a header and rows to path.
func writeCSV(path string, head []string, rows [][]string) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := csv.NewWriter(f)
	if err := w.Write(head); err != nil {
		f.Close()
		return err
	}
	if err := w.WriteAll(rows); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// g formats a float for CSV output.
func g(x float64) string { return strconv.FormatFloat(x, 'g', 6, 64) }
