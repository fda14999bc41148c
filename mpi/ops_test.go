package mpi

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/reprobench/reprobench/factor"
)

var updateOpsHeader = flag.Bool("update-ops-header", false, "rewrite rbmpi_ops.h from the operation table")

// opsHeader renders rbmpi_ops.h, the operation table as C sees it.
func opsHeader() []byte {
	var b bytes.Buffer
	b.WriteString(`// Code generated from the operation table of mpi/ops.go; DO NOT EDIT.
// Regenerate with: go test -tags nompi ./mpi -run TestOpsHeader -update-ops-header
//
// RB_OPS(X) is the table as C sees it, one X(ID, ENTRY, PHASED) per
// operation in the order of mpi.Call: ID its call number's name
// (mpi.Op.CEnum), ENTRY its C entry (mpi.Op.C), PHASED 1 when the entry
// takes a phase (mpi.Op.Phased). rb_call and rb_prepare (rbmpi.h) expand
// it into their switches. Included by rbmpi_types.h; includes nothing.
#ifndef RBMPI_OPS_H
#define RBMPI_OPS_H

#define RB_OPS(X) \
`)
	for i := range ops {
		op := &ops[i]
		phased := 0
		if op.Phased {
			phased = 1
		}
		sep := " \\"
		if i == len(ops)-1 {
			sep = ""
		}
		fmt.Fprintf(&b, "\tX(%s, %s, %d)%s\n", op.CEnum(), op.C, phased, sep)
	}
	fmt.Fprintf(&b, `
// The call numbers, mpi.Call's.
enum {
#define RB_OPS_ENUM(id, entry, phased) id,
	RB_OPS(RB_OPS_ENUM)
#undef RB_OPS_ENUM
	RB_NUM_CALLS
};

// The slots of rb_args.params: the factor table's rows in the order of
// factor.ID (factor.Factor.CName).
enum {
%s	RB_NUM_FACTORS
};

// RB_OPS_HASH is mpi.OpsHash() of the tables this file was written from;
// the binding refuses to start when the Go table says otherwise.
#define RB_OPS_HASH 0x%08xu

#endif
`, factorEnum(), opsHash())
	return b.Bytes()
}

// factorEnum lists the factor table's C slots, one per line.
func factorEnum() string {
	var b strings.Builder
	for _, f := range factor.Table() {
		fmt.Fprintf(&b, "\t%s,\n", f.CName())
	}
	return b.String()
}

// TestOpsHeader keeps rbmpi_ops.h equal to what the table says.
func TestOpsHeader(t *testing.T) {
	got := opsHeader()
	if *updateOpsHeader {
		if err := os.WriteFile("rbmpi_ops.h", got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile("rbmpi_ops.h")
	if err != nil {
		t.Fatalf("%v (write it with -update-ops-header)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("rbmpi_ops.h is out of date with mpi/ops.go; regenerate with\n  go test -tags nompi ./mpi -run TestOpsHeader -update-ops-header")
	}
}

var includeRE = regexp.MustCompile(`(?m)^\s*#\s*include\s+"([^"]+)"`)

// headerProblems checks the include graph of the C headers in dir: no
// circle, and the shape rbmpi_types.h documents — rbmpi_ops.h includes
// nothing, rbmpi_types.h only rbmpi_ops.h, no header but rbmpi.h includes
// rbmpi.h, every family header includes rbmpi_types.h itself (so that it
// compiles on its own; TestCHeadersCompile, under cgo, compiles each), and
// rbmpi.h reaches every header.
func headerProblems(dir string) ([]string, error) {
	files, err := filepath.Glob(filepath.Join(dir, "*.h"))
	if err != nil || len(files) == 0 {
		return nil, fmt.Errorf("no headers in %s: %v", dir, err)
	}
	var p []string
	bad := func(format string, args ...any) { p = append(p, fmt.Sprintf(format, args...)) }
	inc := map[string][]string{}
	for i, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		files[i] = filepath.Base(f)
		for _, m := range includeRE.FindAllSubmatch(b, -1) {
			inc[files[i]] = append(inc[files[i]], string(m[1]))
		}
	}
	if cyc := headerCycle(inc); cyc != nil {
		bad("the C headers include each other in a circle: %s", strings.Join(cyc, " → "))
	}
	if len(inc["rbmpi_ops.h"]) != 0 {
		bad("rbmpi_ops.h includes %v; it must include nothing", inc["rbmpi_ops.h"])
	}
	if got := inc["rbmpi_types.h"]; len(got) != 1 || got[0] != "rbmpi_ops.h" {
		bad("rbmpi_types.h includes %v; want only rbmpi_ops.h", got)
	}
	for _, f := range files {
		if f == "rbmpi.h" {
			continue
		}
		for _, h := range inc[f] {
			if h == "rbmpi.h" {
				bad("%s includes rbmpi.h: only Go files include it", f)
			}
		}
		if strings.HasPrefix(f, "rbmpi_") && f != "rbmpi_ops.h" && f != "rbmpi_types.h" && !contains(inc[f], "rbmpi_types.h") {
			bad("%s does not include rbmpi_types.h, whose types it uses", f)
		}
	}
	// Every header is reached from rbmpi.h, which the Go files include.
	seen := map[string]bool{}
	var walk func(string)
	walk = func(f string) {
		if seen[f] {
			return
		}
		seen[f] = true
		for _, h := range inc[f] {
			walk(h)
		}
	}
	walk("rbmpi.h")
	for _, f := range files {
		if !seen[f] {
			bad("%s is not included from rbmpi.h", f)
		}
	}
	return p, nil
}

// TestCHeaders checks the include graph of the binding's C headers
// (headerProblems): no circle, and the tree rbmpi_types.h documents.
func TestCHeaders(t *testing.T) {
	p, err := headerProblems(".")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range p {
		t.Error(e)
	}
}

// TestCHeadersCanFail copies the headers, puts back an include cycle
// (the family headers taking rb_args from rbmpi.h, which includes
// them) and other breaks of the tree, and expects headerProblems to name
// each.
func TestCHeadersCanFail(t *testing.T) {
	files, err := filepath.Glob("*.h")
	if err != nil || len(files) == 0 {
		t.Fatalf("no headers: %v", err)
	}
	for _, tc := range []struct {
		what, file, from, to, want string
	}{
		{"the old circle", "rbmpi_coll.h", `#include "rbmpi_types.h"`, `#include "rbmpi.h"`,
			"circle: rbmpi.h → rbmpi_coll.h → rbmpi.h"},
		{"a circle through the types", "rbmpi_types.h", `#include "rbmpi_ops.h"`, "#include \"rbmpi_ops.h\"\n  #  include \"rbmpi_sync.h\"",
			"circle"},
		{"a family header leaning on another's include", "rbmpi_vcoll.h", `#include "rbmpi_types.h"`, "",
			"rbmpi_vcoll.h does not include rbmpi_types.h"},
		{"a header nobody includes", "rbmpi.h", `#include "rbmpi_p2p.h"`, "",
			"rbmpi_p2p.h is not included from rbmpi.h"},
	} {
		dir := t.TempDir()
		for _, f := range files {
			b, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			if f == tc.file {
				if !bytes.Contains(b, []byte(tc.from)) {
					t.Fatalf("%s: %s has no %q", tc.what, f, tc.from)
				}
				b = bytes.Replace(b, []byte(tc.from), []byte(tc.to), 1)
			}
			if err := os.WriteFile(filepath.Join(dir, f), b, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		p, err := headerProblems(dir)
		if err != nil {
			t.Fatal(err)
		}
		if got := strings.Join(p, "; "); !strings.Contains(got, tc.want) {
			t.Errorf("%s: problems %q, want %q", tc.what, got, tc.want)
		}
	}
}

func contains(s []string, x string) bool {
	for _, v := range s {
		if v == x {
			return true
		}
	}
	return false
}

// headerCycle returns a circle of the include graph, or nil.
func headerCycle(inc map[string][]string) []string {
	const (
		white = iota
		grey
		black
	)
	color := map[string]int{}
	var path []string
	var visit func(string) []string
	visit = func(f string) []string {
		color[f] = grey
		path = append(path, f)
		for _, h := range inc[f] {
			switch color[h] {
			case grey:
				i := len(path) - 1
				for path[i] != h {
					i--
				}
				return append(append([]string(nil), path[i:]...), h)
			case white:
				if c := visit(h); c != nil {
					return c
				}
			}
		}
		path = path[:len(path)-1]
		color[f] = black
		return nil
	}
	names := make([]string, 0, len(inc))
	for f := range inc {
		names = append(names, f)
	}
	sort.Strings(names)
	for _, f := range names {
		if color[f] == white {
			if c := visit(f); c != nil {
				return c
			}
		}
	}
	return nil
}

// TestHeaderCycleFinds makes sure the circle check can fail.
func TestHeaderCycleFinds(t *testing.T) {
	got := headerCycle(map[string][]string{"a.h": {"b.h"}, "b.h": {"c.h"}, "c.h": {"a.h"}})
	if strings.Join(got, " ") != "a.h b.h c.h a.h" {
		t.Errorf("circle a→b→c→a found as %v", got)
	}
	if c := headerCycle(map[string][]string{"a.h": {"b.h", "c.h"}, "b.h": {"c.h"}}); c != nil {
		t.Errorf("a diamond is no circle, found %v", c)
	}
}

// cEntry is a C function of a binding header: where it is defined and
// the parameters it takes.
type cEntry struct {
	header string
	params []string
}

var cFuncRE = regexp.MustCompile(`(?m)^static\s+(?:inline\s+)?int\s+(\w+)\(([^)]*)\)\s*\{`)

// cEntries reads the functions defined in the C headers of dir.
func cEntries(t *testing.T, dir string) map[string]cEntry {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*.h"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no headers in %s: %v", dir, err)
	}
	out := map[string]cEntry{}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range cFuncRE.FindAllSubmatch(b, -1) {
			var ps []string
			for _, p := range strings.Split(string(m[2]), ",") {
				ps = append(ps, strings.Join(strings.Fields(p), " "))
			}
			out[string(m[1])] = cEntry{filepath.Base(f), ps}
		}
	}
	return out
}

// The parameters of a C entry (Op.C): an unphased one reads its arguments,
// a phased one keeps in them what its prepare phase made.
var (
	entryParams       = []string{"const rb_args *a", "void *s", "void *r", "int rank", "MPI_Comm c"}
	phasedEntryParams = []string{"rb_args *a", "void *s", "void *r", "int rank", "MPI_Comm c", "int phase"}
)

// rowProblems lists what a row lacks or gets wrong on its own: a name, a
// valid family, a doc line, a buffer-size rule, datatypes, a C entry
// defined in its family's header with the signature its phasing says, a
// simulator model, a Go path where the model runs it, and a twin where
// the model or family needs one. (Whether a row has a correctness check
// is TestOpsTable's list of the rows without one.)
func rowProblems(op *Op, entries map[string]cEntry) []string {
	var p []string
	bad := func(format string, args ...any) { p = append(p, fmt.Sprintf(format, args...)) }
	if op.Name == "" || strings.TrimSpace(op.Name) != op.Name || strings.ContainsAny(op.Name, " ,") {
		bad("name %q: want a non-empty name without spaces or commas (--calls splits on commas)", op.Name)
	}
	if op.Family < 0 || op.Family >= numFamilies {
		bad("family %v", op.Family)
	}
	if op.Doc == "" {
		bad("no Doc")
	}
	if op.Buffers.Size == nil || op.Buffers.Doc == "" {
		bad("no buffer-size rule (Buffers.Size and Buffers.Doc)")
	} else if s, r := op.Buffers.Size(3, 8, 4, 2); s < 0 || r < 0 {
		bad("buffer-size rule gives %d, %d bytes", s, r)
	}
	if len(op.Types) == 0 {
		bad("no datatypes")
	}
	for _, d := range op.Types {
		if !d.Valid() {
			bad("datatype %v", d)
		}
	}
	if op.MinRanks < 1 {
		bad("MinRanks %d", op.MinRanks)
	}
	if op.C == "" {
		bad("no C entry")
	} else if e, ok := entries[op.C]; !ok {
		bad("C entry %s is defined in no header", op.C)
	} else {
		if want := "rbmpi_" + op.Family.String() + ".h"; e.header != want {
			bad("C entry %s is in %s, not its family's %s", op.C, e.header, want)
		}
		want := entryParams
		if op.Phased {
			want = phasedEntryParams
		}
		if strings.Join(e.params, ", ") != strings.Join(want, ", ") {
			bad("C entry %s(%s); a row with Phased %v needs (%s)", op.C, strings.Join(e.params, ", "), op.Phased, strings.Join(want, ", "))
		}
	}
	if op.Bound && !op.Phased {
		bad("Bound without Phased: only a prepare phase can bind buffers")
	}
	if op.Sim < 0 || op.Sim >= numModels {
		bad("model %v", op.Sim)
	}
	if op.Sim == ModelReference && op.Go == nil {
		bad("ModelReference runs Op.Go, which is nil")
	}
	if (op.Family == FamilyNBC || op.Sim == ModelTwin || op.Sim == ModelPersistent) && op.Twin == nil {
		bad("the rows of FamilyNBC, ModelTwin and ModelPersistent need a twin")
	}
	if op.Takes(ParamOp) {
		for _, d := range op.Types {
			if CheckReduce(d, Sum) != nil {
				bad("reduces but lists %v", d)
			}
		}
	}
	if tw := op.Twin; tw != nil {
		// in_place is the coll family's alone: a twin may take it.
		if tw.Twin != nil || op.Buffers.Doc != tw.Buffers.Doc || op.Params&^ParamOverlap != tw.Params&^ParamInPlace ||
			len(op.Types) != len(tw.Types) || (op.Result == nil) != (tw.Result == nil) {
			bad("differs from its twin %v (a twin with a twin, or other buffers, params, types or result)", tw.Name)
		}
	}
	return p
}

// TestOpsTable checks every row on its own (rowProblems) and what the
// rows must agree on: unique names and C constants, ParseCall, and which
// rows have no correctness check, and why.
func TestOpsTable(t *testing.T) {
	entries := cEntries(t, ".")
	names, enums := map[string]Call{}, map[string]Call{}
	for _, op := range Ops() {
		if op.Call.Op() != op || op.Call.String() != op.Name {
			t.Errorf("row %d: Call %v, Name %q", op.Call, op.Call, op.Name)
		}
		for _, e := range rowProblems(op, entries) {
			t.Errorf("%v: %s", op.Name, e)
		}
		for _, n := range []string{strings.ToLower(op.Name), strings.ToLower(strings.TrimPrefix(op.Name, "MPI_"))} {
			if c, dup := names[n]; dup && c != op.Call {
				t.Errorf("%v and %v both parse as %q", c, op.Call, n)
			}
			names[n] = op.Call
		}
		if c, dup := enums[op.CEnum()]; dup {
			t.Errorf("%v and %v share the C constant %s", c, op.Call, op.CEnum())
		}
		enums[op.CEnum()] = op.Call
		if got, err := ParseCall(op.Name); err != nil || got != op.Call {
			t.Errorf("ParseCall(%q) = %v, %v", op.Name, got, err)
		}
	}
	// The rows without a result in the receive buffer, and why: a row
	// added without one must say so here.
	noResult := map[Call]string{CallBarrier: "no data", CallIbarrier: "no data",
		CallPut: "writes the target's window (p2pcheck reads it)", CallAccumulate: "writes the target's window (p2pcheck reads it)"}
	for _, op := range Ops() {
		if _, ok := noResult[op.Call]; (op.Result == nil) != ok {
			t.Errorf("%v: Result nil is %v, but the list of rows without one says %v", op.Name, op.Result == nil, ok)
		}
	}
}

// TestOpsTableCanFail breaks one field at a time of a copy of a phased
// row with a twin (MPI_Allreduce_init) and of a plain one (MPI_Bcast),
// and expects rowProblems to name each break; the rows as they are have
// no problem.
func TestOpsTableCanFail(t *testing.T) {
	entries := cEntries(t, ".")
	for _, call := range []Call{CallAllreduceInit, CallBcast} {
		if p := rowProblems(call.Op(), entries); len(p) != 0 {
			t.Fatalf("%v as it is: %v", call, p)
		}
		for _, tc := range []struct {
			what   string
			mutate func(*Op)
			want   string
		}{
			{"no name", func(o *Op) { o.Name = "" }, "name"},
			{"a comma in the name", func(o *Op) { o.Name = "MPI_A,B" }, "name"},
			{"no family", func(o *Op) { o.Family = numFamilies }, "family"},
			{"no doc", func(o *Op) { o.Doc = "" }, "Doc"},
			{"no buffer rule", func(o *Op) { o.Buffers = Buffers{} }, "buffer-size rule"},
			{"no rule's doc", func(o *Op) { o.Buffers.Doc = "" }, "buffer-size rule"},
			{"no types", func(o *Op) { o.Types = nil }, "no datatypes"},
			{"an invalid type", func(o *Op) { o.Types = []Datatype{Datatype(99)} }, "datatype"},
			{"no C entry", func(o *Op) { o.C = "" }, "no C entry"},
			{"an undefined C entry", func(o *Op) { o.C = "rb_no_such_call" }, "defined in no header"},
			{"an entry of another family", func(o *Op) { o.C = "rb_vcoll_call" }, "not its family's"},
			{"the wrong phasing", func(o *Op) { o.Phased = !o.Phased }, "needs ("},
			{"bound without a prepare phase", func(o *Op) { o.Bound, o.Phased = true, false }, "Bound without Phased"},
			{"no model", func(o *Op) { o.Sim = numModels }, "model"},
			{"a reference model without Go", func(o *Op) { o.Sim, o.Go = ModelReference, nil }, "Op.Go"},
			{"no ranks", func(o *Op) { o.MinRanks = 0 }, "MinRanks"},
		} {
			o := *call.Op()
			tc.mutate(&o)
			if got := strings.Join(rowProblems(&o, entries), "; "); !strings.Contains(got, tc.want) {
				t.Errorf("%v with %s: problems %q, want one about %q", call, tc.what, got, tc.want)
			}
		}
	}
	o := *CallAllreduceInit.Op()
	o.Twin = nil
	if got := strings.Join(rowProblems(&o, entries), "; "); !strings.Contains(got, "need a twin") {
		t.Errorf("a persistent row without its twin: %q", got)
	}
	o = *CallAllreduce.Op()
	o.Types = allTypes
	if got := strings.Join(rowProblems(&o, entries), "; "); !strings.Contains(got, "reduces but lists") {
		t.Errorf("a reduction taking bytes: %q", got)
	}
}

// TestBufferSizesTable pins the rules against values computed by hand.
func TestBufferSizesTable(t *testing.T) {
	for _, tc := range []struct {
		call             Call
		count, p, skew   int
		wantSend, wantRv int
	}{
		{CallBarrier, 4, 3, 1, 0, 0},
		{CallAllreduce, 4, 3, 1, 32, 32},
		{CallGather, 4, 3, 1, 32, 96},
		{CallScatter, 4, 3, 1, 96, 32},
		{CallAlltoall, 4, 3, 1, 96, 96},
		{CallReduceScatterBlock, 4, 3, 1, 96, 32},
		{CallIallgather, 4, 3, 1, 32, 96},
		{CallReduceScatterBlockAllgather, 4, 3, 1, 48, 48}, // ⌈4/3⌉ = 2 elements × 3 ranks
		{CallGatherBcast, 4, 3, 1, 32, 96},
		{CallReducePlusScatter, 4, 3, 1, 96, 96},
		{CallAllgatherv, 4, 3, 5, 160, 224}, // k·n = 5·32, (p−1+k)·n = 7·32
		{CallAlltoallv, 4, 3, 5, 480, 224},
		{CallScatterv, 4, 3, 5, 224, 160},
		{CallNeighborAlltoall, 4, 3, 5, 128, 128}, // no skew: 4·n
		{CallBW, 4, 3, 1, 32, 32},
	} {
		s, r := SkewedBufferSizes(tc.call, tc.count, Float64, tc.p, tc.skew)
		if s != tc.wantSend || r != tc.wantRv {
			t.Errorf("%v count %d p %d skew %d: %d, %d bytes, want %d, %d", tc.call, tc.count, tc.p, tc.skew, s, r, tc.wantSend, tc.wantRv)
		}
	}
}
