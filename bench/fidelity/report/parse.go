package main

import (
	"bufio"
	"encoding/csv"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/reprobench/reprobench/analysis"
)

// A kind says how one run's output file becomes the run's value (seconds,
// or MB/s for bandwidths). Kinds are written by run.sh in runs.csv:
//
//	median         a CSV with one observation per row (reprobench's raw data,
//	               fidelity.c's runtime_s): the median of runtime_s
//	p99            the same file: the type-7 99th percentile (informative)
//	col:NAME       a reprobench CSV: the median of column NAME (pure_s, total_s, …);
//	               col:NAME*100 gives a fraction in percent (overlap_frac)
//	nearest:P      a CSV with runtime_s: OSU's P-th percentile, the
//	               nearest-rank definition of osu_util_mpi.c's -z
//	               (analysis.QuantileNearestRank)
//	bw:BYTES:W     a reprobench CSV of bw (runtime_s = seconds per window of W
//	               messages of BYTES): the median bandwidth in MB/s (10^6 B/s), as osu_bw prints it
//	osu:COLUMN     the OSU micro-benchmarks' table: the value in the column whose
//	               header starts with COLUMN, in the row of the cell's size
//	               (µs → s; MB/s and % stay as printed)
//	imb:COLUMN     IMB-MPI1's table: the column COLUMN (t_avg[usec], t[usec])
//	               of the last row for the cell's size, µs → s
//	reprompi       ReproMPI mpibenchmark's per-observation lines: the median
//	               of runtime_sec
func value(kind, file string, bytes int) (float64, error) {
	name, arg, _ := strings.Cut(kind, ":")
	switch name {
	case "median", "p99":
		v, err := csvColumn(file, "runtime_s")
		if err != nil {
			return 0, err
		}
		slices.Sort(v)
		if name == "p99" {
			return analysis.Quantile(0.99, v), nil
		}
		return analysis.Median(v), nil
	case "col":
		col, scale := arg, 1.0
		if c, ok := strings.CutSuffix(arg, "*100"); ok { // a fraction printed as percent
			col, scale = c, 100
		}
		v, err := csvColumn(file, col)
		if err != nil {
			return 0, err
		}
		slices.Sort(v)
		return scale * analysis.Median(v), nil
	case "nearest":
		p, err := strconv.ParseFloat(arg, 64)
		if err != nil || p <= 0 || p > 100 {
			return 0, fmt.Errorf("kind %q: want nearest:P with P in (0, 100]", kind)
		}
		v, err := csvColumn(file, "runtime_s")
		if err != nil {
			return 0, err
		}
		slices.Sort(v)
		return analysis.QuantileNearestRank(p/100, v), nil
	case "bw":
		var b, w int
		if _, err := fmt.Sscanf(arg, "%d:%d", &b, &w); err != nil || b < 1 || w < 1 {
			return 0, fmt.Errorf("kind %q: want bw:BYTES:WINDOW", kind)
		}
		v, err := csvColumn(file, "runtime_s")
		if err != nil {
			return 0, err
		}
		slices.Sort(v)
		return float64(b) * float64(w) / analysis.Median(v) / 1e6, nil
	case "osu":
		return osuValue(file, arg, bytes)
	case "imb":
		return imbValue(file, arg, bytes)
	case "reprompi":
		return reprompiValue(file)
	}
	return 0, fmt.Errorf("unknown kind %q", kind)
}

// csvColumn returns the values of one column of a CSV file with a header.
func csvColumn(file, col string) ([]float64, error) {
	f, err := os.Open(file)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	r := csv.NewReader(bufio.NewReader(f))
	r.ReuseRecord = true
	head, err := r.Read()
	if err != nil {
		return nil, fmt.Errorf("%s: %v", file, err)
	}
	j := slices.Index(head, col)
	if j < 0 {
		return nil, fmt.Errorf("%s: no column %s (have %s)", file, col, strings.Join(head, ","))
	}
	var v []float64
	for {
		rec, err := r.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %v", file, err)
		}
		x, err := strconv.ParseFloat(rec[j], 64)
		if err != nil {
			return nil, fmt.Errorf("%s: %s %q: %v", file, col, rec[j], err)
		}
		v = append(v, x)
	}
	if len(v) == 0 {
		return nil, fmt.Errorf("%s: no rows", file)
	}
	return v, nil
}

// osuValue reads the OSU micro-benchmarks' output: comment lines start with
// '#', the last of them before the data is the header ("# Size  Avg
// Latency(us)  P50 Tail Lat(us) …"), columns are separated by two or more
// spaces, data rows start with the message size.
func osuValue(file, col string, bytes int) (float64, error) {
	b, err := os.ReadFile(file)
	if err != nil {
		return 0, err
	}
	var head []string
	found := math.NaN()
	for _, line := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(line, "# Size") {
			head = splitWide(strings.TrimPrefix(line, "# "))
			continue
		}
		f := strings.Fields(line)
		if len(f) < 2 || strings.HasPrefix(line, "#") || head == nil {
			continue
		}
		size, err := strconv.Atoi(f[0])
		if err != nil || size != bytes {
			continue
		}
		j := slices.IndexFunc(head, func(h string) bool { return strings.HasPrefix(h, col) })
		if j < 0 || j >= len(f) {
			return 0, fmt.Errorf("%s: no column %q in %q", file, col, head)
		}
		v, err := strconv.ParseFloat(f[j], 64)
		if err != nil {
			return 0, fmt.Errorf("%s: %q: %v", file, f[j], err)
		}
		if strings.Contains(head[j], "(us)") {
			v *= 1e-6
		}
		found = v
	}
	if math.IsNaN(found) {
		return 0, fmt.Errorf("%s: no OSU row for %d bytes", file, bytes)
	}
	return found, nil
}

// splitWide splits a header at runs of two or more spaces.
func splitWide(s string) []string {
	var out []string
	for _, p := range strings.Split(s, "  ") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// imbValue reads IMB-MPI1's output: a header line "#bytes #repetitions
// t_min[usec] …" and data rows; the last row for the size wins.
func imbValue(file, col string, bytes int) (float64, error) {
	b, err := os.ReadFile(file)
	if err != nil {
		return 0, err
	}
	var head []string
	found := math.NaN()
	for _, line := range strings.Split(string(b), "\n") {
		f := strings.Fields(line)
		if len(f) > 0 && f[0] == "#bytes" {
			head = f
			continue
		}
		if head == nil || len(f) != len(head) {
			continue
		}
		size, err := strconv.Atoi(f[0])
		if err != nil || size != bytes {
			continue
		}
		j := slices.Index(head, col)
		if j < 0 {
			continue // another benchmark's table
		}
		v, err := strconv.ParseFloat(f[j], 64)
		if err != nil {
			return 0, fmt.Errorf("%s: %q: %v", file, f[j], err)
		}
		found = v * 1e-6
	}
	if math.IsNaN(found) {
		return 0, fmt.Errorf("%s: no IMB row for %d bytes with a column %s", file, bytes, col)
	}
	return found, nil
}

// reprompiValue reads mpibenchmark's per-observation output (without
// --summary): a header line naming the columns, among them runtime_sec,
// then one line per observation; lines starting with '#' are comments.
func reprompiValue(file string) (float64, error) {
	b, err := os.ReadFile(file)
	if err != nil {
		return 0, err
	}
	j := -1
	var v []float64
	for _, line := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Fields(line)
		if len(f) == 0 {
			continue
		}
		if k := slices.Index(f, "runtime_sec"); k >= 0 {
			j = k
			continue
		}
		if j < 0 || j >= len(f) {
			continue
		}
		x, err := strconv.ParseFloat(f[j], 64)
		if err != nil {
			continue
		}
		v = append(v, x)
	}
	if len(v) == 0 {
		return 0, fmt.Errorf("%s: no ReproMPI observations (runtime_sec)", file)
	}
	slices.Sort(v)
	return analysis.Median(v), nil
}
