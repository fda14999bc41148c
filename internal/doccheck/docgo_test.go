package doccheck

import (
	"bufio"
	"bytes"
	"go/doc"
	"go/parser"
	"go/token"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// libraryGoDirs returns the directories of the library's module that hold
// tracked non-test Go files, relative to the root, with the package name
// of each: bench/ (a module of its own) and testdata/ trees left out.
func libraryGoDirs(t *testing.T) map[string]string {
	t.Helper()
	fset := token.NewFileSet()
	dirs := map[string]string{}
	for _, f := range trackedFiles(t) {
		if !strings.HasSuffix(f, ".go") || strings.HasSuffix(f, "_test.go") ||
			strings.HasPrefix(f, "bench/") || strings.Contains("/"+f, "/testdata/") {
			continue
		}
		d := path.Dir(f)
		if _, ok := dirs[d]; ok {
			continue
		}
		af, err := parser.ParseFile(fset, filepath.Join(repoRoot, filepath.FromSlash(f)), nil, parser.PackageClauseOnly)
		if err != nil {
			if os.IsNotExist(err) {
				continue
			}
			t.Fatal(err)
		}
		dirs[d] = af.Name.Name
	}
	return dirs
}

// TestEveryPackageHasDocGo: every library package (package main aside,
// whose command doc lives beside its main function) has a doc.go that
// carries the package comment, where a reader looks for the model first.
func TestEveryPackageHasDocGo(t *testing.T) {
	fset := token.NewFileSet()
	n := 0
	for d, name := range libraryGoDirs(t) {
		if name == "main" {
			continue
		}
		n++
		af, err := parser.ParseFile(fset, filepath.Join(repoRoot, filepath.FromSlash(d), "doc.go"), nil, parser.PackageClauseOnly|parser.ParseComments)
		if err != nil {
			t.Errorf("package %s (%s) has no doc.go: put its package comment, which states its model, there", name, d)
			continue
		}
		if af.Doc == nil || !strings.HasPrefix(af.Doc.Text(), "Package "+name+" ") {
			t.Errorf("%s/doc.go has no package comment starting \"Package %s \"", d, name)
		}
	}
	if n < 30 {
		t.Fatalf("checked only %d packages", n)
	}
}

// pathRefRe matches a relative path with an extension in a comment, such
// as "mpi/nbc.go" or "testdata/reference.R".
var pathRefRe = regexp.MustCompile(`(?:^|[\s("'` + "`" + `])((?:[a-z0-9_.-]+/)+[A-Za-z0-9_.-]*[A-Za-z0-9_]\.(?:go|md|c|h|sh|py|R|csv|json|txt))\b`)

// missingRefs returns the paths that line (a comment of file f) names and
// the repository does not have. A path counts as a reference to the
// repository when its first element is a directory of the repository's
// root or of f's directory; it must then exist under that directory.
// prev is the previous comment line, whose last word ending in "/" joins
// the first word of this one (a path broken across lines).
func missingRefs(f, prev, line string, exists func(string) bool) []string {
	text := line
	if i := strings.LastIndexAny(prev, " \t"); i >= 0 && strings.HasSuffix(prev, "/") {
		text = prev[i+1:] + strings.TrimLeft(line, " \t")
	}
	var out []string
	for _, m := range pathRefRe.FindAllStringSubmatch(text, -1) {
		p := m[1]
		first := strings.SplitN(p, "/", 2)[0]
		if first == "." || first == ".." {
			continue // an example of a relative path, not a file of ours
		}
		names, found := false, false
		for _, base := range []string{".", path.Dir(f)} {
			if exists(path.Join(base, first)) {
				names = true
				found = found || exists(path.Join(base, p))
			}
		}
		if names && !found {
			out = append(out, p)
		}
	}
	return out
}

// TestCommentFileReferencesExist: a path a Go comment names under one of
// the repository's directories is a file of the repository (a moved or
// deleted file leaves no dangling pointer behind).
func TestCommentFileReferencesExist(t *testing.T) {
	files := trackedFiles(t)
	have := map[string]bool{}
	for _, f := range files {
		for p := f; p != "." && p != "/"; p = path.Dir(p) {
			have[p] = true
		}
	}
	exists := func(p string) bool { return have[path.Clean(p)] }
	n := 0
	for _, f := range files {
		if !strings.HasSuffix(f, ".go") || strings.Contains("/"+f, "/testdata/") {
			continue
		}
		b, err := os.ReadFile(filepath.Join(repoRoot, filepath.FromSlash(f)))
		if err != nil {
			if os.IsNotExist(err) {
				continue
			}
			t.Fatal(err)
		}
		n++
		sc := bufio.NewScanner(bytes.NewReader(b))
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		prev := ""
		for line := 1; sc.Scan(); line++ {
			s := sc.Text()
			i := strings.Index(s, "//")
			if i < 0 {
				prev = ""
				continue
			}
			c := strings.TrimSpace(s[i+2:])
			for _, m := range missingRefs(f, prev, c, exists) {
				t.Errorf("%s:%d: %q: the repository has no such file", f, line, m)
			}
			prev = c
		}
	}
	if n < 100 {
		t.Fatalf("checked only %d Go files", n)
	}
}

// TestHygieneChecksCatch feeds each check the faults it exists for, in the
// forms they took in this repository, and lines it must let pass.
func TestHygieneChecksCatch(t *testing.T) {
	for _, c := range []struct {
		synopsis string
		bad      bool
	}{
		{"Package analysis turns raw observations into numbers (Hunold & Carpen-Amarie 2016, Alg.", true},
		{"Package clocksync builds a global clock (Hunold & Carpen-Amarie 2016, Alg.", true},
		{"Package report makes one page, see Fig.", true},
		{"Package analysis turns raw observations into numbers (Hunold & Carpen-Amarie 2016, Algorithm 6).", false},
	} {
		s := new(doc.Package).Synopsis(c.synopsis + " More text.")
		if got := abbrevEndRe.MatchString(s); got != c.bad {
			t.Errorf("synopsis %q: flagged %v, want %v", s, got, c.bad)
		}
	}
	// The papers' numbers are spelled in pieces (z), so that this file's
	// own source passes TestGoCommentsStateTheContract.
	const z = "00"
	for _, c := range []struct {
		line string
		bad  bool
	}{
		{"// the window of " + z + "0 §4.2 starts all ranks together", true},
		{"// McCalpin's bracket (" + z + "3, Fig. 1)", true},
		{"// as in paper " + z + "0", true},
		{"// Alg. 5 of " + z + "0: the design", true},
		{"// (" + z + "0 Alg. 1) the timing loop", true},
		{"// " + z + "0's Table VI lists the factors", true},
		{"// " + z + "0, Alg. 6 compares per-mpirun medians", true},
		{"// Hunold & Carpen-Amarie 2016, §4.2, Algorithm 5", false},
		{"// a false failure about once in 16 000 seeds", false},
		{"// default 100 000, and never more than 50 000 per second", false},
	} {
		if got := paperRe.MatchString(c.line); got != c.bad {
			t.Errorf("paper citation %q: flagged %v, want %v", c.line, got, c.bad)
		}
	}
	for _, c := range []struct {
		line string
		bad  bool
	}{
		{"The conventions are in " + "STYLE" + ".md.", true},
		{"see README.md", false},
	} {
		got := false
		for _, m := range mdRe.FindAllString(c.line, -1) {
			got = got || m != "README.md"
		}
		if got != c.bad {
			t.Errorf("Markdown name %q: flagged %v, want %v", c.line, got, c.bad)
		}
	}
	have := map[string]bool{"mpi": true, "mpi/nbc.go": true, "bench": true, "bench/window": true, "window": true,
		"bench/window/vcluster.sh": true, "bench/window/window.c": true, "analysis": true, "analysis/testdata": true, "analysis/testdata/reference.R": true}
	exists := func(p string) bool { return have[p] }
	for _, c := range []struct {
		file, prev, line string
		want             string
	}{
		{"engine/nbc.go", "", "the overlap measurement (mpi/nbc.go has the C side)", ""},
		{"engine/nbc.go", "", "the overlap measurement (mpi/nbcs.go has the C side)", "mpi/nbcs.go"},
		{"bench/doc.go", "", "the C reference window/window.c", ""},
		{"bench/doc.go", "", "the C reference window/win.c", "window/win.c"},
		{"internal/doccheck/doccheck.go", "", "a link ../x.md", ""},
		{"internal/x/a.go", "With one spinning beside them (bench/", "window/vcluster.sh, 3 runs)", ""},
		{"internal/x/a.go", "With one spinning beside them (bench/", "window/cluster.sh, 3 runs)", "bench/window/cluster.sh"},
		{"analysis/ci.go", "", "checked against testdata/reference.R", ""},
		{"analysis/ci.go", "", "checked against testdata/reference.r2", ""},
		{"analysis/ci.go", "", "checked against testdata/ref.R", "testdata/ref.R"},
		{"campaign/doc.go", "", "writes DIR/ID-campaign.json and results/x.json", ""},
		{"timing/doc.go", "", "OSU's osu_util_mpi.c, /proc/cpuinfo", ""},
	} {
		got := strings.Join(missingRefs(c.file, c.prev, c.line, exists), ",")
		if got != c.want {
			t.Errorf("file references in %q (after %q): %q, want %q", c.line, c.prev, got, c.want)
		}
	}
}
