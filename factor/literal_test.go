package factor_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/reprobench/reprobench/factor"
)

// literalExceptions are the non-test Go files that may spell a row's name
// or flag as a string literal, by file (slash-separated, from the module
// root) and literal, each with the reason it is not the factor.
var literalExceptions = map[string]map[string]string{
	"factor/factor.go": {"*": "the table itself"},
	// window's process synchronization method "window" is a level of
	// procsync that shares the spelling of window_s's flag.
	"window/window.go": {"window": "procsync's level window (Method Fixed's name)"},
	// The sysfs directory of a CPU's caches.
	"cache/cache.go": {"cache": "the sysfs directory /sys/devices/system/cpu/cpuN/cache"},
	// A clock synchronization result's JSON field, clocksync's name.
	"report/report.go": {"algorithm": "the clock synchronization record's field algorithm"},
	// A user's program with its own flag set.
	"examples/custom/main.go": {"window": "the example's own -window flag and method level"},
}

// TestNoFactorLiterals: no non-test Go file of the module spells a row's
// Name or Flag as a string literal (imports aside) outside the table and
// literalExceptions: flags, columns, group keys and labels take them
// from the rows (factor.ProcSync.String(), factor.Window.Row().Flag).
func TestNoFactorLiterals(t *testing.T) {
	words := map[string]factor.ID{}
	for _, f := range factor.Table() {
		words[f.Name] = f.ID
		if f.Flag != "" {
			words[f.Flag] = f.ID
		}
	}
	root := ".."
	fset := token.NewFileSet()
	n := 0
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			// bench/ is a module of its own; testdata holds inputs.
			if rel != "." && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata" || rel == "bench") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		n++
		imports := map[*ast.BasicLit]bool{}
		for _, im := range f.Imports {
			imports[im.Path] = true
		}
		ast.Inspect(f, func(x ast.Node) bool {
			lit, ok := x.(*ast.BasicLit)
			if !ok || lit.Kind != token.STRING || imports[lit] {
				return true
			}
			s, err := strconv.Unquote(lit.Value)
			if err != nil {
				return true
			}
			id, ok := words[s]
			if !ok {
				return true
			}
			if ex := literalExceptions[rel]; ex["*"] != "" || ex[s] != "" {
				return true
			}
			t.Errorf("%s: %q is factor %s's name or flag: take it from the row (factor.ID's String, Row().Flag)", fset.Position(lit.Pos()), s, id)
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n < 100 {
		t.Fatalf("scanned %d files from %s: the walk did not find the module", n, root)
	}
}
