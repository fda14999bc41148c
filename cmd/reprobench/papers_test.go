package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/reprobench/reprobench"
	"github.com/reprobench/reprobench/window"
)

// departuresDoc is the page whose departure table TestPapersDepartures reads.
var departuresDoc = filepath.Join("..", "..", "docs", "papers.md")

// departureSpanRE matches a code span `name=value` in the table's column
// "ours": a default the code must have.
var departureSpanRE = regexp.MustCompile("`([a-z][a-z-]*)=([^`]+)`")

// departureTable returns the rows of the table under "## Where the code
// departs from the papers" in doc, each split into its four cells.
func departureTable(t *testing.T, doc string) [][]string {
	t.Helper()
	_, sec, ok := strings.Cut(doc, "\n## Where the code departs from the papers\n")
	if !ok {
		t.Fatalf("%s: no section \"Where the code departs from the papers\"", departuresDoc)
	}
	if i := strings.Index(sec, "\n## "); i >= 0 {
		sec = sec[:i]
	}
	var rows [][]string
	header := false
	for _, line := range strings.Split(sec, "\n") {
		if !strings.HasPrefix(line, "|") {
			continue
		}
		cells := strings.Split(strings.Trim(strings.TrimSpace(line), "|"), "|")
		for i := range cells {
			cells[i] = strings.TrimSpace(cells[i])
		}
		switch {
		case !header:
			if want := []string{"what", "the paper's value", "ours", "why"}; strings.Join(cells, "|") != strings.Join(want, "|") {
				t.Fatalf("%s: the departure table's header is %q, want %q", departuresDoc, cells, want)
			}
			header = true
		case strings.Trim(strings.Join(cells, ""), "-:") == "":
			// the delimiter row
		case len(cells) != 4:
			t.Fatalf("%s: row %q has %d cells, want 4 (no | inside a cell)", departuresDoc, line, len(cells))
		default:
			rows = append(rows, cells)
		}
	}
	return rows
}

// departureDefaults returns, for each name of a `name=value` span of the
// table's column "ours", the values the code gives that default, each with
// where it comes from: every source must equal the table's value. The CLI's
// flags are read from runFlags, the flag set "reprobench run" parses, so a
// default that only the command line holds (the clock, the process
// synchronization) is read where it is set.
func departureDefaults(t *testing.T) map[string][][2]string {
	t.Helper()
	fs, _ := runFlags(io.Discard)
	flagDefault := func(name string) [2]string {
		f := fs.Lookup(name)
		if f == nil {
			t.Fatalf("reprobench run has no flag --%s", name)
		}
		return [2]string{"reprobench run --" + name, f.DefValue}
	}
	d := window.Config{}.WithDefaults()
	// A default written "D+window" or "K×window" follows the window: check
	// it at a second window too, so that a constant that stopped following
	// the window does not pass by accident at the default one.
	const otherWindow = 7 * time.Millisecond
	o := window.Config{Window: otherWindow}.WithDefaults()
	plusWindow := func(v, w time.Duration) string { return fmt.Sprintf("%v+window", v-w) }
	timesWindow := func(v, w time.Duration) string {
		if v%w != 0 {
			return v.String()
		}
		return fmt.Sprintf("%d×window", v/w)
	}
	return map[string][][2]string{
		"late-tolerance": {{"window.Config{}.WithDefaults().LateTolerance", d.LateTolerance.String()}, flagDefault("late-tolerance")},
		"start-delay": {{"window.Config{}.WithDefaults().StartDelay", plusWindow(d.StartDelay, d.Window)},
			{"window.Config{Window: 7ms}.WithDefaults().StartDelay", plusWindow(o.StartDelay, otherWindow)}},
		"invalid-fraction": {{"window.Config{}.WithDefaults().InvalidFraction", strconv.FormatFloat(d.InvalidFraction, 'g', -1, 64)}},
		"batch":            {{"window.Config{}.WithDefaults().Batch", strconv.Itoa(d.Batch)}, flagDefault("window-batch")},
		"max-window": {{"window.Config{}.WithDefaults().MaxWindow", timesWindow(d.MaxWindow, d.Window)},
			{"window.Config{Window: 7ms}.WithDefaults().MaxWindow", timesWindow(o.MaxWindow, otherWindow)}},
		"cache-slots": {{"reprobench.DefaultCacheSlots", strconv.Itoa(reprobench.DefaultCacheSlots)},
			{"reprobench.DefaultExperiment(window.Barrier).CacheSlots", strconv.Itoa(reprobench.DefaultExperiment(window.Barrier).CacheSlots)},
			flagDefault("cache-slots")},
		// The default clock and process synchronization are the command
		// line's: one accessor each, the flag's default.
		"clock":     {flagDefault("clock")},
		"proc-sync": {flagDefault("proc-sync")},
	}
}

// TestPapersDepartures keeps docs/papers.md's departure table and the code's
// defaults in agreement: every `name=value` span of the column "ours" names a
// default below and states its value, and every default below is stated
// exactly once. A change to either the table or a default fails here until
// both agree. Every row cites its source in the column "the paper's value".
func TestPapersDepartures(t *testing.T) {
	b, err := os.ReadFile(departuresDoc)
	if err != nil {
		t.Fatal(err)
	}
	rows := departureTable(t, string(b))
	if len(rows) < 15 {
		t.Fatalf("%s: %d departure rows, want every departure (at least 15)", departuresDoc, len(rows))
	}
	defaults := departureDefaults(t)
	seen := map[string]int{}
	cite := regexp.MustCompile(`\b(19|20)[0-9]{2}\b`)
	for _, r := range rows {
		what, paper, ours := r[0], r[1], r[2]
		if what == "" || paper == "" || ours == "" || r[3] == "" {
			t.Errorf("%s: row %q has an empty cell", departuresDoc, what)
		}
		if !cite.MatchString(paper) {
			t.Errorf("%s: row %q: the paper's value %q cites no paper (authors and year)", departuresDoc, what, paper)
		}
		for _, m := range departureSpanRE.FindAllStringSubmatch(ours, -1) {
			name, value := m[1], m[2]
			srcs, ok := defaults[name]
			if !ok {
				t.Errorf("%s: row %q: `%s=…` names no default this test knows (%s)", departuresDoc, what, name, strings.Join(sortedKeys(defaults), ", "))
				continue
			}
			seen[name]++
			for _, s := range srcs {
				if s[1] != value {
					t.Errorf("%s: row %q says `%s=%s`, but %s is %s", departuresDoc, what, name, value, s[0], s[1])
				}
			}
		}
	}
	for _, name := range sortedKeys(defaults) {
		if seen[name] != 1 {
			t.Errorf("%s: `%s=…` appears %d times in the column \"ours\", want once", departuresDoc, name, seen[name])
		}
	}
}

// sortedKeys returns m's keys in order.
func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
