package reprobench_test

import (
	"flag"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

var updateQuickStart = flag.Bool("update-quickstart", false, "rewrite the quick start's code blocks in the Markdown files from examples/quickstart")

// quickStartFiles are the quick start's four programs (the first one's
// test is the third).
var quickStartFiles = []string{"examples/quickstart/ring/main.go", "examples/quickstart/kernel/main.go", "examples/quickstart/ring/main_test.go",
	"examples/quickstart/regions/main.go"}

// quickStartRE matches a quick-start block: the marker naming the file, then
// a Go code block.
var quickStartRE = regexp.MustCompile("(?s)<!-- quickstart: ([^ ]+) -->\n```go\n(.*?)```\n")

// TestQuickStart keeps the README's "Use it as a library" (wherever the
// Markdown files put it: README.md or docs/) equal to the programs of
// examples/quickstart, which their own tests build and run, so the quick
// start cannot go stale; and it requires every such program to be shown.
// go test -run TestQuickStart -update-quickstart rewrites the blocks.
func TestQuickStart(t *testing.T) {
	var docs []string
	_ = filepath.WalkDir("docs", func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".md") {
			docs = append(docs, p)
		}
		return nil
	})
	shown := map[string]bool{}
	for _, doc := range append([]string{"README.md"}, docs...) {
		b, err := os.ReadFile(doc)
		if err != nil {
			t.Fatal(err)
		}
		text := string(b)
		changed := false
		text = quickStartRE.ReplaceAllStringFunc(text, func(block string) string {
			m := quickStartRE.FindStringSubmatch(block)
			src, err := os.ReadFile(m[1])
			if err != nil {
				t.Errorf("%s: quick start names %s: %v", doc, m[1], err)
				return block
			}
			shown[m[1]] = true
			if string(src) == m[2] {
				return block
			}
			if !*updateQuickStart {
				t.Errorf("%s: the block of %s differs from the file; run go test -run TestQuickStart -update-quickstart .", doc, m[1])
				return block
			}
			changed = true
			return "<!-- quickstart: " + m[1] + " -->\n```go\n" + string(src) + "```\n"
		})
		if changed {
			if err := os.WriteFile(doc, []byte(text), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	for _, f := range quickStartFiles {
		if !shown[f] {
			t.Errorf("%s is not shown in the quick start (README.md or docs/)", f)
		}
	}
}
