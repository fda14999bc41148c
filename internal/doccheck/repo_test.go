package doccheck

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// repoRoot is the repository's root, seen from this package's directory.
var repoRoot = filepath.Join("..", "..")

// maxREADMELines is issue 33's bound: the README is a front page, the
// reference lives in docs/.
const maxREADMELines = 300

// repoMarkdown lists README.md and every Markdown file under docs/,
// examples/ and bench/, slash-separated and relative to the root.
func repoMarkdown(t *testing.T) []string {
	t.Helper()
	files := []string{"README.md"}
	for _, dir := range []string{"docs", "examples", "bench"} {
		err := filepath.WalkDir(filepath.Join(repoRoot, dir), func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() && (d.Name() == "testdata" || d.Name() == "out") {
				return filepath.SkipDir
			}
			if !d.IsDir() && strings.HasSuffix(d.Name(), ".md") {
				rel, err := filepath.Rel(repoRoot, p)
				if err != nil {
					return err
				}
				files = append(files, filepath.ToSlash(rel))
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	return files
}

// TestRepositoryDocs fails on every relative link of the repository's
// Markdown that names a missing file or a missing #anchor.
func TestRepositoryDocs(t *testing.T) {
	files := repoMarkdown(t)
	if len(files) < 10 {
		t.Fatalf("found only %d Markdown files: %q", len(files), files)
	}
	probs, err := Check(repoRoot, files)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range probs {
		t.Error(p)
	}
}

func TestREADMEIsAFrontPage(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(repoRoot, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	if n := bytes.Count(b, []byte("\n")); n > maxREADMELines {
		t.Errorf("README.md has %d lines, more than %d: move reference material to docs/", n, maxREADMELines)
	}
}

var (
	numberRe  = regexp.MustCompile(`\d+(?:[.,]\d+)*`)
	measureRe = regexp.MustCompile(`\]\(docs/measured\.md#([^)]+)\)`)
)

// TestMeasuredSummaryMatches keeps the README's short table of measurements
// equal to docs/measured.md, the one page that holds them: every number in
// a row of the README's "What we measured" must appear in the section of
// docs/measured.md that the row links to. A measurement updated on one page
// only fails here.
func TestMeasuredSummaryMatches(t *testing.T) {
	readme, err := os.ReadFile(filepath.Join(repoRoot, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	measured, err := os.ReadFile(filepath.Join(repoRoot, "docs", "measured.md"))
	if err != nil {
		t.Fatal(err)
	}
	sections := sectionsBySlug(measured)
	_, table, ok := strings.Cut(string(readme), "\n## What we measured\n")
	if !ok {
		t.Fatal(`README.md has no section "## What we measured"`)
	}
	table, _, _ = strings.Cut(table, "\n## ")
	rows := 0
	for _, row := range strings.Split(table, "\n") {
		m := measureRe.FindStringSubmatch(row)
		if !strings.HasPrefix(row, "|") || m == nil {
			continue
		}
		rows++
		sec, ok := sections[m[1]]
		if !ok {
			t.Errorf("README row links to docs/measured.md#%s, which has no such section: %s", m[1], row)
			continue
		}
		text := measureRe.ReplaceAllString(row, "]")
		for _, n := range numberRe.FindAllString(text, -1) {
			if !strings.Contains(sec, n) {
				t.Errorf("README's %q is not in docs/measured.md#%s: %s", n, m[1], row)
			}
		}
	}
	if rows < 5 {
		t.Errorf("README's \"What we measured\" has %d rows linking to docs/measured.md, want at least 5", rows)
	}
}

// sectionsBySlug returns the text under each heading of md, up to the next
// heading of the same or a higher level, keyed by the heading's anchor.
func sectionsBySlug(md []byte) map[string]string {
	hs, _, _ := Parse(md)
	lines := strings.Split(string(md), "\n")
	out := map[string]string{}
	var s Slugger
	for i, h := range hs {
		end := len(lines)
		for _, g := range hs[i+1:] {
			if g.Level <= h.Level {
				end = g.Line - 1
				break
			}
		}
		out[s.Slug(h.Text)] = strings.Join(lines[h.Line-1:end], "\n")
	}
	return out
}
