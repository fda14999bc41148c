package main

import (
	"bytes"
	"flag"
	"sort"
	"strings"
	"testing"
)

// maxFlagHelp bounds one flag's help text, in characters: the help names
// what the flag does, its unit and its default; the rest belongs in docs/
// (docs/cli.md links each command's page) or in "reprobench ops".
const maxFlagHelp = 300

// flagHelps parses flag.PrintDefaults output into each flag's help text.
func flagHelps(help string) map[string]string {
	out := map[string]string{}
	var name string
	for _, line := range strings.Split(help, "\n") {
		switch {
		case strings.HasPrefix(line, "  -"):
			name = strings.Fields(line)[0]
			out[name] = ""
		case strings.HasPrefix(line, "    \t") && name != "":
			if out[name] != "" {
				out[name] += " "
			}
			out[name] += strings.TrimSpace(line)
		default:
			name = ""
		}
	}
	return out
}

// TestFlagHelpIsShort bounds the help of every flag of every command.
func TestFlagHelpIsShort(t *testing.T) {
	names := make([]string, 0, len(commands))
	for n := range commands {
		names = append(names, n)
	}
	sort.Strings(names)
	total := 0
	for _, n := range names {
		var out, errb bytes.Buffer
		if err := run(&out, &errb, []string{n, "-h"}); err != nil && err != flag.ErrHelp {
			t.Fatalf("%s -h: %v", n, err)
		}
		for f, h := range flagHelps(out.String() + errb.String()) {
			total++
			// The operation list is generated from the operation table.
			h, _, _ = strings.Cut(h, "): MPI_")
			if len(h) > maxFlagHelp {
				t.Errorf("reprobench %s %s: help of %d characters, over %d: move the detail to docs/ and point there\n%s", n, f, len(h), maxFlagHelp, h)
			}
		}
	}
	if total < 100 {
		t.Errorf("parsed %d flags' help, want the whole CLI (over 100)", total)
	}
}
