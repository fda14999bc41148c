package main

import (
	"bytes"
	"testing"
)

// TestTrace traces the test module (testdata/mod): Run in a.go calls
// w.Check (w.go), helper (b.go), which calls again (a.go), then writes
// through an interface (rule 2). The file sequence is a.go w.go b.go a.go
// w.go: two returns. after, walked after the last row, is cut (rule 4).
func TestTrace(t *testing.T) {
	var out bytes.Buffer
	if err := run(&out, []string{"-C", "testdata/mod", "-entry", "a.Run", "-to", "w.Writer.Row", "-data", ""}); err != nil {
		t.Fatal(err)
	}
	want := "a.Run\ta/a.go\nw.Check\tw/w.go\na.helper\ta/b.go\na.again\ta/a.go\nw.Writer.Row\tw/w.go\nreturns 2\n"
	if got := out.String(); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	out.Reset()
	if err := run(&out, []string{"-C", "testdata/mod", "-entry", "a.Run", "-to", "w.Writer.Row", "-paths", "-data", ""}); err != nil {
		t.Fatal(err)
	}
	want = "a.Run\ta/a.go\nw.Writer.Row\tw/w.go\nreturns 0\n"
	if got := out.String(); got != want {
		t.Errorf("-paths: got\n%s\nwant\n%s", got, want)
	}
}

// TestTraceData checks rule 6 on RunData (c.go): the whole preorder
// returns three times; the functions that carry a.Data or w.Writer return
// none, the entry and the target kept; a data type that no function of the
// trace carries is an error.
func TestTraceData(t *testing.T) {
	var out bytes.Buffer
	args := []string{"-C", "testdata/mod", "-entry", "a.RunData", "-to", "w.Writer.Row"}
	if err := run(&out, append(args, "-data", "")); err != nil {
		t.Fatal(err)
	}
	want := "a.RunData\ta/c.go\na.newData\ta/d.go\nw.Check\tw/w.go\na.plain\ta/c.go\na.fill\ta/d.go\nw.Writer.Row\tw/w.go\nreturns 3\n"
	if got := out.String(); got != want {
		t.Errorf("whole preorder: got\n%s\nwant\n%s", got, want)
	}
	out.Reset()
	if err := run(&out, append(args, "-data", "a.Data,w.Writer")); err != nil {
		t.Fatal(err)
	}
	want = "a.RunData\ta/c.go\na.newData\ta/d.go\na.fill\ta/d.go\nw.Writer.Row\tw/w.go\nreturns 0\n"
	if got := out.String(); got != want {
		t.Errorf("data path: got\n%s\nwant\n%s", got, want)
	}
	if err := run(&out, append(args, "-data", "a.Nothing")); err == nil {
		t.Error("a data type carried by no function: no error")
	}
}

func TestReturns(t *testing.T) {
	for _, c := range []struct {
		files []string
		want  int
	}{
		{nil, 0},
		{[]string{"a", "a", "a"}, 0},
		{[]string{"a", "b", "a"}, 1},
		{[]string{"a", "b", "a", "b", "c", "a"}, 3},
	} {
		var tr []Step
		for _, f := range c.files {
			tr = append(tr, Step{File: f})
		}
		if got := Returns(tr); got != c.want {
			t.Errorf("Returns(%v) = %d, want %d", c.files, got, c.want)
		}
	}
}
