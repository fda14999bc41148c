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

// RB_OPS_HASH is mpi.OpsHash() of the table this file was written from;
// the binding refuses to start when the Go table says otherwise.
#define RB_OPS_HASH 0x%08xu

#endif
`, OpsHash())
	return b.Bytes()
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

// TestCHeaders checks the include graph of the binding's C headers: no
// circle, and the shape rbmpi_types.h documents — rbmpi_ops.h includes
// nothing, rbmpi_types.h only rbmpi_ops.h, no header but rbmpi.h includes
// rbmpi.h, and every family header includes rbmpi_types.h itself (so that
// it compiles on its own; TestCHeadersCompile, under cgo, compiles each).
func TestCHeaders(t *testing.T) {
	files, err := filepath.Glob("*.h")
	if err != nil || len(files) == 0 {
		t.Fatalf("no headers: %v", err)
	}
	inc := map[string][]string{}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range includeRE.FindAllSubmatch(b, -1) {
			inc[f] = append(inc[f], string(m[1]))
		}
	}
	if cyc := headerCycle(inc); cyc != nil {
		t.Errorf("the C headers include each other in a circle: %s", strings.Join(cyc, " → "))
	}
	if len(inc["rbmpi_ops.h"]) != 0 {
		t.Errorf("rbmpi_ops.h includes %v; it must include nothing", inc["rbmpi_ops.h"])
	}
	if got := inc["rbmpi_types.h"]; len(got) != 1 || got[0] != "rbmpi_ops.h" {
		t.Errorf("rbmpi_types.h includes %v; want only rbmpi_ops.h", got)
	}
	for _, f := range files {
		if f == "rbmpi.h" {
			continue
		}
		for _, h := range inc[f] {
			if h == "rbmpi.h" {
				t.Errorf("%s includes rbmpi.h: only Go files include it", f)
			}
		}
		if strings.HasPrefix(f, "rbmpi_") && f != "rbmpi_ops.h" && f != "rbmpi_types.h" && !contains(inc[f], "rbmpi_types.h") {
			t.Errorf("%s does not include rbmpi_types.h, whose types it uses", f)
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
			t.Errorf("%s is not included from rbmpi.h", f)
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

// TestOpsTable checks what the rows must agree on: unique names and C
// constants, a C entry and a model for every row, the twins of the
// non-blocking rows, and the Go path wherever C is not the only way.
func TestOpsTable(t *testing.T) {
	names, enums := map[string]Call{}, map[string]Call{}
	for _, op := range Ops() {
		if op.Call.Op() != op || op.Call.String() != op.Name {
			t.Errorf("row %d: Call %v, Name %q", op.Call, op.Call, op.Name)
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
		if op.Doc == "" || op.C == "" || op.Buffers.Size == nil || op.Buffers.Doc == "" || len(op.Types) == 0 {
			t.Errorf("%v: a row needs Doc, C, Buffers and Types", op.Name)
		}
		if op.Sim < 0 || op.Sim >= numModels {
			t.Errorf("%v: model %v", op.Name, op.Sim)
		}
		if op.Sim == ModelReference && op.Go == nil {
			t.Errorf("%v: ModelReference runs Op.Go, which is nil", op.Name)
		}
		if op.Takes(ParamOp) {
			for _, d := range op.Types {
				if CheckReduce(d, Sum) != nil {
					t.Errorf("%v reduces but lists %v", op.Name, d)
				}
			}
		}
		if (op.Family == FamilyNBC || op.Sim == ModelTwin) && op.Twin == nil {
			t.Errorf("%v: the rows of FamilyNBC and of ModelTwin need a twin", op.Name)
		}
		if tw := op.Twin; tw != nil {
			if tw.Twin != nil || op.Buffers.Doc != tw.Buffers.Doc || op.Params&^ParamOverlap != tw.Params ||
				len(op.Types) != len(tw.Types) || (op.Result == nil) != (tw.Result == nil) {
				t.Errorf("%v differs from its twin %v (a twin with a twin, or other buffers, params, types or result)", op.Name, tw.Name)
			}
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
