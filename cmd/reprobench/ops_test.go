package main

import (
	"bytes"
	"encoding/csv"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/reprobench/reprobench/mpi"
)

// runOut runs the CLI with args and returns its standard output and
// error together; -h is no failure.
func runOut(t *testing.T, args ...string) string {
	t.Helper()
	var out, errb bytes.Buffer
	if err := run(&out, &errb, args); err != nil && err != flag.ErrHelp {
		t.Fatalf("%v: %v\n%s", args, err, errb.String())
	}
	return out.String() + errb.String()
}

// opsTextProblems compares the text listing of "reprobench ops" with the
// table: one group per family, each under a line with its description,
// and in it every row of that family, once, with its name and doc and a
// detail line naming its buffer rule, datatypes, C entry, model and check.
func opsTextProblems(out string, ops []*mpi.Op) []string {
	var p []string
	bad := func(format string, args ...any) { p = append(p, fmt.Sprintf(format, args...)) }
	lines := strings.Split(out, "\n")
	groups := map[string]int{}
	fam := ""
	seen := map[string]int{}
	for i, l := range lines {
		if f, doc, ok := strings.Cut(l, ": "); ok && !strings.HasPrefix(l, " ") && !strings.Contains(f, " ") {
			fam = f
			groups[f]++
			if strings.TrimSpace(doc) == "" {
				bad("family %s has no description", f)
			}
			continue
		}
		name, doc, ok := strings.Cut(strings.TrimPrefix(l, "  "), " — ")
		if !ok || strings.HasPrefix(l, "   ") {
			continue
		}
		op := findOp(ops, name)
		if op == nil {
			bad("%q is listed but is no row of the table", name)
			continue
		}
		seen[name]++
		if doc != op.Doc {
			bad("%s: doc %q, the row says %q", name, doc, op.Doc)
		}
		if fam != op.Family.String() {
			bad("%s is listed under %s, its row's family is %v", name, fam, op.Family)
		}
		if i+1 >= len(lines) {
			bad("%s has no detail line", name)
			continue
		}
		detail := lines[i+1]
		check := "result checked"
		if op.Result == nil {
			check = "no result to check"
		}
		for _, want := range []string{"buffers " + op.Buffers.Doc + ";", typesDoc(op.Types), "C " + op.C, "sim " + op.Sim.String(), check} {
			if !strings.Contains(detail, want) {
				bad("%s: detail %q lacks %q", name, strings.TrimSpace(detail), want)
			}
		}
		if strings.Contains(detail, "bound to its buffers") != op.Bound {
			bad("%s: detail %q, but the row's Bound is %v", name, strings.TrimSpace(detail), op.Bound)
		}
		if op.Params != 0 && !strings.Contains(detail, "takes "+op.Params.String()+";") {
			bad("%s: detail %q lacks its parameters %v", name, strings.TrimSpace(detail), op.Params)
		}
	}
	for _, op := range ops {
		if seen[op.Name] != 1 {
			bad("%s is listed %d times, want once", op.Name, seen[op.Name])
		}
		if groups[op.Family.String()] != 1 {
			bad("family %v has %d groups, want one", op.Family, groups[op.Family.String()])
		}
	}
	return p
}

func findOp(ops []*mpi.Op, name string) *mpi.Op {
	for _, op := range ops {
		if op.Name == name {
			return op
		}
	}
	return nil
}

// TestOpsFromTable: "reprobench ops" (text and csv), the operations list
// of docs/cli.md, and the help of run's --calls, --skew, --bw-window and
// --rma-sync all say what the operation table says, row for row.
func TestOpsFromTable(t *testing.T) {
	ops := mpi.Ops()
	text := runOut(t, "ops")
	for _, e := range opsTextProblems(text, ops) {
		t.Errorf("reprobench ops: %s", e)
	}

	// docs/cli.md's operations list is that output (TestCLIReference keeps
	// the whole file equal to the help; here, the section itself).
	doc, err := os.ReadFile(filepath.Join("..", "..", "docs", "cli.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, sec, ok := strings.Cut(string(doc), "\n## Operations\n")
	if !ok {
		t.Fatal("docs/cli.md has no ## Operations section")
	}
	if !strings.Contains(sec, "```\n"+text+"```\n") {
		t.Errorf("docs/cli.md's ## Operations is not the output of reprobench ops; regenerate with\n  go test ./cmd/reprobench -run TestCLIReference -update-cli-doc")
	}

	recs, err := csv.NewReader(strings.NewReader(runOut(t, "ops", "--format", "csv"))).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 1+len(ops) {
		t.Fatalf("ops --format csv: %d records, want a header and %d rows", len(recs), len(ops))
	}
	for i, op := range ops {
		want := []string{op.Name, op.Family.String(), op.Doc, op.Params.String(), op.Buffers.Doc, typeNames(op.Types),
			strconv.Itoa(op.MinRanks), twinName(op), op.C, strconv.FormatBool(op.Phased), strconv.FormatBool(op.Bound), strconv.FormatBool(op.Go != nil),
			op.Sim.String(), strconv.FormatBool(op.Result != nil)}
		if got := recs[1+i]; strings.Join(got, "|") != strings.Join(want, "|") {
			t.Errorf("csv row %d: %q, want %q", i+1, got, want)
		}
	}

	help := runOut(t, "run", "-h")
	names := make([]string, len(ops))
	for i, op := range ops {
		names[i] = op.Name
	}
	for flagName, want := range map[string]string{
		"calls":     "needs): " + strings.Join(names, ", ") + " (default",
		"skew":      mpi.CallNames(mpi.CallsTaking(mpi.ParamSkew)),
		"bw-window": "for " + mpi.CallNames(mpi.CallsTaking(mpi.ParamBWWindow)) + ";",
		"rma-sync":  "for " + mpi.CallNames(mpi.CallsTaking(mpi.ParamRMASync)) + ";",
	} {
		_, after, ok := strings.Cut(help, "\n  -"+flagName+" ")
		if !ok {
			t.Errorf("run -h has no --%s", flagName)
			continue
		}
		usage, _, _ := strings.Cut(after, "\n  -")
		if !strings.Contains(strings.Join(strings.Fields(usage), " "), want) {
			t.Errorf("run -h --%s: %q, want the table's %q", flagName, usage, want)
		}
	}
}

// TestOpsTextCanFail: a listing that drops a row, lists one twice, splits
// a family, or misstates a row's C entry fails opsTextProblems.
func TestOpsTextCanFail(t *testing.T) {
	ops := mpi.Ops()
	text := runOut(t, "ops")
	if p := opsTextProblems(text, ops); len(p) != 0 {
		t.Fatalf("the listing as it is: %v", p)
	}
	last := ops[len(ops)-1]
	line := "  " + last.Name + " — " + last.Doc + "\n"
	i := strings.Index(text, line)
	if i < 0 {
		t.Fatalf("no line %q", line)
	}
	detailEnd := i + len(line) + strings.Index(text[i+len(line):], "\n") + 1
	row := text[i:detailEnd]
	for _, tc := range []struct{ what, out, want string }{
		{"a row dropped", text[:i] + text[detailEnd:], "listed 0 times"},
		{"a row twice", text + row, "listed 2 times"},
		{"a family split", text + "\n" + last.Family.String() + ": again\n" + row, "groups, want one"},
		{"a wrong C entry", strings.Replace(text, "C "+last.C+" ", "C rb_other ", 1), "lacks \"C " + last.C},
		{"a wrong doc", strings.Replace(text, last.Doc, "something else", 1), "doc \"something else\""},
	} {
		if got := strings.Join(opsTextProblems(tc.out, ops), "; "); !strings.Contains(got, tc.want) {
			t.Errorf("%s: problems %q, want %q", tc.what, got, tc.want)
		}
	}
}
