package main

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"go/build"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/reprobench/reprobench/tables"
)

var updateAnalysis = flag.Bool("update-analysis", false, "rewrite testdata/analysis/*.golden")

// anGolden runs the CLI with args and compares stdout with the golden file.
func anGolden(t *testing.T, golden string, args ...string) string {
	t.Helper()
	var out, errb bytes.Buffer
	if err := run(&out, &errb, args); err != nil {
		t.Fatalf("reprobench %s: %v\nstderr: %s", strings.Join(args, " "), err, errb.String())
	}
	path := filepath.Join("testdata", "analysis", golden)
	if *updateAnalysis {
		if err := os.WriteFile(path, out.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update-analysis to create it)", err)
	}
	if got := out.String(); got != string(want) {
		t.Errorf("reprobench %s: output differs from %s\n--- got\n%s\n--- want\n%s", strings.Join(args, " "), path, got, want)
	}
	return out.String()
}

const (
	anA       = "testdata/analysis/a.csv"
	anB       = "testdata/analysis/b.csv"
	anPerRank = "testdata/analysis/perrank.csv"
)

func TestAnalyzeGolden(t *testing.T) {
	text := anGolden(t, "analyze.txt", "analyze", anA, anPerRank)
	for _, want := range []string{"MPI_Allreduce/msize=8/np=4/MPI_INT/mpi_lib=libA", "µs", "95% CI", "can ranks be pooled"} {
		if !strings.Contains(text, want) {
			t.Errorf("text output lacks %q", want)
		}
	}
	anGolden(t, "analyze.csv", "analyze", "--format", "csv", anA)
	js := anGolden(t, "analyze.json", "analyze", "--format", "json", anA, anPerRank)
	var parsed struct {
		Groups []struct {
			N              int       `json:"n"`
			NMpiruns       int       `json:"n_mpiruns"`
			MedianS        float64   `json:"median_s"`
			MedianCIS      []float64 `json:"median_ci_s"`
			MpirunMedians  []float64 `json:"mpirun_medians_s"`
			OutliersRemove int       `json:"outliers_removed"`
		} `json:"groups"`
	}
	if err := json.Unmarshal([]byte(js), &parsed); err != nil {
		t.Fatal(err)
	}
	if len(parsed.Groups) != 8 {
		t.Fatalf("%d groups in JSON, want 8", len(parsed.Groups))
	}
	for _, g := range parsed.Groups {
		if g.NMpiruns != 6 || len(g.MpirunMedians) != 6 || !(g.MedianCIS[0] <= g.MedianS && g.MedianS <= g.MedianCIS[1]) {
			t.Errorf("bad group %+v", g)
		}
	}
	bs := anGolden(t, "analyze.benchstat", "analyze", "--format", "benchstat", anA)
	if n := strings.Count(bs, "ns/op"); n != 8*6 {
		t.Errorf("benchstat output has %d lines, want 48 (one per mpirun median)", n)
	}
}

func TestAnalyzeErrors(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.csv")
	os.WriteFile(bad, []byte("run_id,mpirun,call\nx,0,MPI_Bcast\n"), 0o644)
	empty := filepath.Join(dir, "empty.csv")
	os.WriteFile(empty, []byte(""), 0o644)
	for _, c := range []struct {
		args  []string
		want  string
		usage bool
	}{
		{[]string{"analyze"}, "no input files", true},
		{[]string{"analyze", "--format", "xml", anA}, "unknown --format", true},
		{[]string{"analyze", "--level", "1.5", anA}, "--level", true},
		{[]string{"analyze", bad}, "missing column(s) exp", false},
		{[]string{"analyze", empty}, "empty file", false},
		{[]string{"analyze", filepath.Join(dir, "nope.csv")}, "no such file", false},
		{[]string{"compare", anA}, "want A-FILES... -- B-FILES...", true},
		{[]string{"compare", "--alternative", "bigger", anA, "--", anB}, "unknown alternative", true},
		{[]string{"compare", "--by", "nolabel", anA}, "no group has label", false},
		{[]string{"compare", "--paired", anA, "--", anB}, "--paired needs --by", true},
		{[]string{"plot", "--kind", "pie", "-o", filepath.Join(dir, "x.png"), anA}, "unknown --kind", true},
		{[]string{"plot", anA}, "-o FILE is required", true},
	} {
		var out, errb bytes.Buffer
		err := run(&out, &errb, c.args)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: err = %v, want %q", c.args, err, c.want)
			continue
		}
		if errors.Is(err, errUsage) != c.usage {
			t.Errorf("%v: usage error = %v, want %v", c.args, errors.Is(err, errUsage), c.usage)
		}
	}
}

// TestAnalyzeInvalidBadColumns checks that the text output reports rows with
// a nonzero errorcode (invalid) and rows with errorcode 0 but an unusable
// runtime_s (bad) in separate columns, as CSV and JSON do.
func TestAnalyzeInvalidBadColumns(t *testing.T) {
	dir := t.TempDir()
	f := filepath.Join(dir, "ib.csv")
	rows := "run_id,mpirun,exp,call,msize_bytes,count,datatype,np,rep,runtime_s,errorcode\n"
	for i, rt := range []string{"1e-6", "1.1e-6", "1.2e-6", "0.9e-6", "1e-6", "NaN", "-1e-6", "1e-6", "1e-6", "1e-6"} {
		code := "0"
		if i >= 7 { // three invalid rows
			code = "1"
		}
		rows += "r,0,0,MPI_Bcast,8,1,MPI_BYTE,2," + strconv.Itoa(i) + "," + rt + "," + code + "\n"
	}
	if err := os.WriteFile(f, []byte(rows), 0o644); err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	if err := run(&out, &errb, []string{"analyze", "--columns", "n,invalid,bad,median", f}); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(out.String(), "\n")
	for len(lines) > 2 && !strings.HasPrefix(lines[0], "group") {
		lines = lines[1:]
	}
	head, row := strings.Fields(lines[0]), strings.Fields(lines[1])
	col := func(name string) string {
		for i, h := range head {
			if h == name {
				return row[i]
			}
		}
		t.Fatalf("no column %q in %q", name, lines[0])
		return ""
	}
	if got := col("invalid"); got != "3" {
		t.Errorf("invalid = %s, want 3", got)
	}
	if got := col("bad"); got != "2" {
		t.Errorf("bad = %s, want 2", got)
	}
	if got := col("n"); got != "5" {
		t.Errorf("n = %s, want 5", got)
	}
}

// anSplitByLabel writes the rows of a raw CSV file whose last column (the
// label mpi_lib in a.csv) equals value to dir/value.csv.
func anSplitByLabel(t *testing.T, file, dir, value string) string {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	out := []string{lines[0]}
	for _, l := range lines[1:] {
		if strings.HasSuffix(l, ","+value) {
			out = append(out, l)
		}
	}
	path := filepath.Join(dir, value+".csv")
	if err := os.WriteFile(path, []byte(strings.Join(out, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

var (
	// Go benchmark format (golang.org/design/14313-benchmark-format):
	// configuration lines "key: value" with a lower-case key without
	// spaces or upper case, and result lines "BenchmarkNAME iters value unit".
	benchConfigRE = regexp.MustCompile(`^[a-z][^\sA-Z:]*: `)
	benchResultRE = regexp.MustCompile(`^Benchmark(\S+)\t1\t([0-9.e+]+) ns/op$`)
	benchProcsRE  = regexp.MustCompile(`-[0-9]+$`)
)

// anCheckBenchFormat checks every line of a --format benchstat output and
// returns the distinct benchmark names.
func anCheckBenchFormat(t *testing.T, out string) []string {
	t.Helper()
	var names []string
	for _, l := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
		switch {
		case strings.HasPrefix(l, "#"), benchConfigRE.MatchString(l):
		case benchResultRE.MatchString(l):
			name := benchResultRE.FindStringSubmatch(l)[1]
			if benchProcsRE.MatchString(name) {
				t.Errorf("name %q ends like a GOMAXPROCS suffix", name)
			}
			for _, part := range strings.Split(name, "/")[1:] {
				if !strings.Contains(part, "=") {
					t.Errorf("name %q: part %q is not key=value", name, part)
				}
			}
			if !slices.Contains(names, name) {
				names = append(names, name)
			}
		default:
			t.Errorf("line is neither configuration nor a benchmark result: %q", l)
		}
	}
	return names
}

// TestAnalyzeBenchstatFormat pins the Go benchmark format: a label that
// has one value in the whole output is left out of the names, so outputs
// for libA and libB name the same benchmarks and benchstat pairs them;
// labels that vary stay in the names (benchstat -col /mpi_lib).
func TestAnalyzeBenchstatFormat(t *testing.T) {
	dir := t.TempDir()
	libA := anSplitByLabel(t, anA, dir, "libA")
	libB := anSplitByLabel(t, anA, dir, "libB")
	outA := anGolden(t, "analyze_libA.benchstat", "analyze", "--format", "benchstat", libA)
	var outB, errb bytes.Buffer
	if err := run(&outB, &errb, []string{"analyze", "--format", "benchstat", libB}); err != nil {
		t.Fatal(err)
	}
	namesA, namesB := anCheckBenchFormat(t, outA), anCheckBenchFormat(t, outB.String())
	if len(namesA) != 4 || !slices.Equal(namesA, namesB) {
		t.Errorf("libA and libB name different benchmarks:\n%q\n%q", namesA, namesB)
	}
	if !strings.Contains(outA, "# labels: mpi_lib=libA") || strings.Contains(outA, "mpi_lib=libA\t") {
		t.Errorf("the constant label should be on a # labels line, not in the names:\n%s", outA)
	}
	both, err := os.ReadFile(filepath.Join("testdata", "analysis", "analyze.benchstat"))
	if err != nil {
		t.Fatal(err)
	}
	names := anCheckBenchFormat(t, string(both))
	if len(names) != 8 || !strings.Contains(names[0], "/mpi_lib=libA/np=4") {
		t.Errorf("with both libraries the label must stay in the names: %q", names)
	}
}

// TestAnalyzeBenchstatTool feeds two outputs to the real benchstat
// (go install golang.org/x/perf/cmd/benchstat@latest) when it is installed.
func TestAnalyzeBenchstatTool(t *testing.T) {
	bs, err := exec.LookPath("benchstat")
	if err != nil {
		bs = filepath.Join(build.Default.GOPATH, "bin", "benchstat")
		if _, err := os.Stat(bs); err != nil {
			t.Skip("benchstat not installed")
		}
	}
	dir := t.TempDir()
	var files []string
	for _, lib := range []string{"libA", "libB"} {
		var out, errb bytes.Buffer
		if err := run(&out, &errb, []string{"analyze", "--format", "benchstat", anSplitByLabel(t, anA, dir, lib)}); err != nil {
			t.Fatal(err)
		}
		f := filepath.Join(dir, lib+".txt")
		if err := os.WriteFile(f, out.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		files = append(files, lib+"="+f)
	}
	out, err := exec.Command(bs, files...).CombinedOutput()
	if err != nil {
		t.Fatalf("benchstat: %v\n%s", err, out)
	}
	// compare --by mpi_lib on a.csv: every group p = 0.002 with 6+6 mpiruns.
	if n := strings.Count(string(out), "(p=0.002 n=6)"); n != 4 || strings.Contains(string(out), "differs") {
		t.Errorf("benchstat did not pair the 4 groups of libA and libB (%d paired):\n%s", n, out)
	}
}

// TestAnalyzeCommonLabels: labels that every group shares are printed once
// above the table and left out of the group names; the others stay.
func TestAnalyzeCommonLabels(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "r.csv")
	var b strings.Builder
	b.WriteString("run_id,mpirun,exp,call,msize_bytes,count,datatype,np,rep,runtime_s,errorcode,procsync,cache,lib\n")
	for i := range 40 {
		ps := []string{"barrier", "window"}[i%2]
		fmt.Fprintf(&b, "r,%d,%d,MPI_Bcast,8,1,float64,2,%d,%g,0,%s,warm,x\n", i%4, i%2, i, 1e-6+float64(i%7)*1e-8, ps)
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	if err := run(&out, &errb, []string{"analyze", path}); err != nil {
		t.Fatalf("%v\n%s", err, errb.String())
	}
	got := out.String()
	if !strings.Contains(got, "every group: cache=warm lib=x\n") {
		t.Errorf("no line of common labels:\n%s", got)
	}
	for _, want := range []string{"MPI_Bcast/msize=8/np=2/float64/procsync=barrier ", "MPI_Bcast/msize=8/np=2/float64/procsync=window "} {
		if !strings.Contains(got, want) {
			t.Errorf("missing group %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "/cache=warm") {
		t.Errorf("a common label is repeated in the group names:\n%s", got)
	}
}

// TestAnalyzeTextFits120: the default text table of the test data (group
// names of 50 characters) fits 120 columns; --wide adds every column.
func TestAnalyzeTextFits120(t *testing.T) {
	for _, args := range [][]string{{"analyze", anA, anB}, {"compare", "--by", "mpi_lib", anA}} {
		var out, errb bytes.Buffer
		if err := run(&out, &errb, args); err != nil {
			t.Fatal(err)
		}
		for _, l := range strings.Split(out.String(), "\n") {
			if n := utf8.RuneCountInString(l); n > 120 {
				t.Errorf("%v: line of %d characters:\n%s", args, n, l)
			}
		}
	}
	var out, errb bytes.Buffer
	if err := run(&out, &errb, []string{"analyze", "--wide", anA}); err != nil {
		t.Fatal(err)
	}
	for _, h := range []string{"pooled", "pooled 95% CI", "mean 95% CI", "outliers", "invalid", "bad", "normal(p)", "p99"} {
		if !strings.Contains(out.String(), h) {
			t.Errorf("--wide has no column %q", h)
		}
	}
	if err := run(&out, &errb, []string{"analyze", "--columns", "n,nonsense", anA}); err == nil || !strings.Contains(err.Error(), "pooled_median") {
		t.Errorf("unknown --columns: %v", err)
	}
}

// TestHelpExplainsColumns: help analyze and help compare explain every
// column of their text tables, the two medians among them.
func TestHelpExplainsColumns(t *testing.T) {
	var out, errb bytes.Buffer
	run(&out, &errb, []string{"help", "analyze"})
	help := errb.String() + out.String()
	for _, c := range tables.Columns() {
		if !strings.Contains(help, "  "+c.Name+" ") {
			t.Errorf("help analyze does not explain column %s", c.Name)
		}
	}
	flat := strings.Join(strings.Fields(help), " ")
	for _, w := range []string{"median of the per-mpirun medians", "pooled", "errorcode ≠ 0", "Tukey", "Shapiro-Wilk", "normal(p)"} {
		if !strings.Contains(flat, w) {
			t.Errorf("help analyze does not mention %q", w)
		}
	}
	out.Reset()
	errb.Reset()
	run(&out, &errb, []string{"help", "compare"})
	help = errb.String() + out.String()
	for _, w := range []string{"median A/B", "B/A", "Hodges-Lehmann", "shift B−A", "sig", "name the two", "--paired=auto", "test"} {
		if !strings.Contains(help, w) {
			t.Errorf("help compare does not mention %q", w)
		}
	}
}

// TestAnalyzeWideSaysFiltered: --wide shows mean and max, and a line above
// the table says which observations they describe: those Tukey's filter
// kept, with its k, or every valid one with --tukey 0. The numbers agree:
// with the filter, max is below the largest valid observation of a group
// whose outliers were removed.
func TestAnalyzeWideSaysFiltered(t *testing.T) {
	for _, tc := range []struct {
		args []string
		note string
	}{
		{[]string{"analyze", "--wide", anA}, "mean, mean 95% CI, min, p99, max: of the observations Tukey's filter kept (k = 1.5 per mpirun"},
		{[]string{"analyze", "--wide", "--tukey", "0", anA}, "mean, mean 95% CI, min, p99, max: of every valid observation (--tukey 0"},
		{[]string{"analyze", "--columns", "n,max", anA}, "max: of the observations Tukey's filter kept"},
	} {
		var out, errb bytes.Buffer
		if err := run(&out, &errb, tc.args); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(out.String(), tc.note) {
			t.Errorf("%v: no line %q above the table:\n%s", tc.args, tc.note, out.String())
		}
	}
	var out, errb bytes.Buffer
	if err := run(&out, &errb, []string{"analyze", anA}); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(out.String(), "Tukey's filter kept") {
		t.Errorf("default columns show none of min, mean, p99, max, yet the note is there:\n%s", out.String())
	}
	maxOf := func(args ...string) float64 {
		var out, errb bytes.Buffer
		if err := run(&out, &errb, append([]string{"analyze", "--format", "csv"}, args...)); err != nil {
			t.Fatal(err)
		}
		recs, err := csv.NewReader(&out).ReadAll()
		if err != nil {
			t.Fatal(err)
		}
		col := slices.Index(recs[0], "max_s")
		v, err := strconv.ParseFloat(recs[1][col], 64)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	if kept, all := maxOf(anA), maxOf("--tukey", "0", anA); !(kept < all) {
		t.Errorf("max_s %g with the filter, %g without: want the filtered max below", kept, all)
	}
}
