package main

import (
	"bytes"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"testing"
)

var updateCLIDoc = flag.Bool("update-cli-doc", false, "rewrite docs/cli.md from the commands' help")

// cliReference renders every command's help as the Markdown of docs/cli.md.
func cliReference(t *testing.T) []byte {
	t.Helper()
	var b bytes.Buffer
	b.WriteString("# reprobench command-line reference\n\n")
	b.WriteString("Generated from the binary's own help (`go test ./cmd/reprobench -run TestCLIReference -update-cli-doc`);\n")
	b.WriteString("a test fails when this file and the flags disagree. Durations take Go syntax (`100us`, `2s`);\n")
	b.WriteString("every quantity states its unit.\n\n")
	var top bytes.Buffer
	usage(&top)
	fmt.Fprintf(&b, "```\n%s```\n", top.String())
	names := make([]string, 0, len(commands))
	for n := range commands {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		var out, errb bytes.Buffer
		if err := run(&out, &errb, []string{n, "-h"}); err != nil && err != flag.ErrHelp {
			t.Fatalf("%s -h: %v", n, err)
		}
		fmt.Fprintf(&b, "\n## reprobench %s\n\n```\n%s%s```\n", n, out.String(), errb.String())
	}
	// The operations: the operation table as "reprobench ops" prints it.
	var ops bytes.Buffer
	if err := run(&ops, io.Discard, []string{"ops"}); err != nil {
		t.Fatalf("ops: %v", err)
	}
	fmt.Fprintf(&b, "\n## Operations\n\nThe output of `reprobench ops`, written from the operation table of package mpi (mpi/ops.go).\n\n```\n%s```\n", ops.String())
	return b.Bytes()
}

// TestCLIReference keeps docs/cli.md equal to the commands' help output.
func TestCLIReference(t *testing.T) {
	got := cliReference(t)
	path := filepath.Join("..", "..", "docs", "cli.md")
	if *updateCLIDoc {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (generate it with -update-cli-doc)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("docs/cli.md is out of date with the commands' flags; regenerate with\n  go test ./cmd/reprobench -run TestCLIReference -update-cli-doc")
	}
}
