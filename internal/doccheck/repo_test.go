package doccheck

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"
)

// repoRoot is the repository's root, seen from this package's directory.
var repoRoot = filepath.Join("..", "..")

// maxREADMELines bounds the README: it is a front page, the reference
// lives in docs/.
const maxREADMELines = 250

// maxMeasuredRow bounds a row of the README's "What we measured", in
// characters: one line per claim, the link carries the detail.
const maxMeasuredRow = 160

// maxMeasuredLines bounds docs/measured.md: one section per README claim,
// the run outputs in the archive it names.
const maxMeasuredLines = 400

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
	m, err := os.ReadFile(filepath.Join(repoRoot, "docs", "measured.md"))
	if err != nil {
		t.Fatal(err)
	}
	if n := bytes.Count(m, []byte("\n")); n > maxMeasuredLines {
		t.Errorf("docs/measured.md has %d lines, more than %d: keep one section per claim, history in docs/history or commits", n, maxMeasuredLines)
	}
}

var (
	numberRe  = regexp.MustCompile(`\d+(?:[.,]\d+)*`)
	measureRe = regexp.MustCompile(`\]\(docs/measured\.md#([^)]+)\)`)
	// refUseRe and measuredDefRe: a reference-style link [text][name] and its
	// definition [name]: docs/measured.md#anchor.
	refUseRe      = regexp.MustCompile(`\]\[([^\]]+)\]`)
	measuredDefRe = regexp.MustCompile(`(?m)^\[([^\]]+)\]:\s*docs/measured\.md#(\S+)\s*$`)
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
	refs := map[string]string{}
	for _, d := range measuredDefRe.FindAllStringSubmatch(table, -1) {
		refs[d[1]] = d[2]
	}
	rows := 0
	for _, row := range strings.Split(table, "\n") {
		if !strings.HasPrefix(row, "|") {
			continue
		}
		if n := utf8.RuneCountInString(row); n > maxMeasuredRow {
			t.Errorf("README's measured row has %d characters, over %d: %s", n, maxMeasuredRow, row)
		}
		var anchor string
		if m := measureRe.FindStringSubmatch(row); m != nil {
			anchor = m[1]
		} else if m := refUseRe.FindStringSubmatch(row); m != nil {
			if anchor = refs[m[1]]; anchor == "" {
				t.Errorf("README row uses [%s], which names no docs/measured.md section: %s", m[1], row)
				continue
			}
		} else {
			continue
		}
		rows++
		sec, ok := sections[anchor]
		if !ok {
			t.Errorf("README row links to docs/measured.md#%s, which has no such section: %s", anchor, row)
			continue
		}
		text := refUseRe.ReplaceAllString(measureRe.ReplaceAllString(row, "]"), "]")
		for _, n := range numberRe.FindAllString(text, -1) {
			if !strings.Contains(sec, n) {
				t.Errorf("README's %q is not in docs/measured.md#%s: %s", n, anchor, row)
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
