package doccheck

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
)

// The float-seconds rule (STYLE.md item 16): durations in the Go API are
// time.Duration, ticks are converted by their clock's timing.Freq, and
// float seconds appear only at the data boundary.
//
// floatSeconds decides from the syntax alone. An exported function, or an
// exported method of an exported type, in a package that is not main,
// takes or returns float seconds when it has a float64 parameter or result
//   - whose name is s, sec, secs or seconds, or ends in S, Sec, Secs or
//     Seconds after a lower-case letter or a digit (offsetS, horizonSeconds);
//   - or which is the unnamed result of a function whose name ends in
//     Seconds, Secs or Sec (NowSeconds);
//   - or, for any float64 parameter or result, when the function's doc
//     comment says "in seconds", "seconds)" or "(seconds" or calls a
//     parameter "… seconds after/before".
//
// Files in secondsAllowedDirs (the data boundary: rawdata, analysis and
// their subpackages) and the functions in secondsAllowedFuncs (the clock
// models, which need sub-nanosecond precision and say "seconds" in their
// names or docs, and the Freq conversions at the data boundary) are
// allowed. Test files, examples/, bench/ and cmd/ (programs, not API) are
// not checked.
var secondsAllowedDirs = []string{"rawdata", "analysis"}

// secondsAllowedFuncs are "dir.Recv.Name" or "dir.Name" entries.
var secondsAllowedFuncs = map[string]bool{
	// timing.Freq owns the conversions between ticks and float seconds
	// for the data boundary.
	"timing.Freq.Seconds":     true,
	"timing.Freq.FromSeconds": true,
	// The clock models: linear maps in float seconds, where a
	// time.Duration would round to the nanosecond.
	"clocksync.Model.Global":           true,
	"clocksync.Model.Local":            true,
	"clocksync.Model.Offset":           true,
	"clocksync.GlobalClock.ToGlobal":   true,
	"clocksync.GlobalClock.ToLocal":    true,
	"clocksync.GlobalClock.NowSeconds": true,
	"clocksync.Bound.At":               true,
	"clocksync.TrueOffsets":            true, // ground truth against the models
	"clocksync.CoveredRanks":           true,
	"clocksync.SlopeWanderTerm":        true,
	"window.Identity.ToGlobal":         true, // the GlobalClock model of unsynchronized clocks
	// The simulated clocks of mpitest and their ground truth.
	"mpi/mpitest.Rank.TrueNow":         true,
	"mpi/mpitest.World.ClockAt":        true,
	"mpi/mpitest.World.ClockSecondsAt": true,
	"mpi/mpitest.World.TrueOffset":     true,
	"mpi/mpitest.World.TrueTime":       true,
}

var (
	secondsName = regexp.MustCompile(`^(s|sec|secs|seconds)$|[a-z0-9](S|Sec|Secs|Seconds)$`)
	secondsFunc = regexp.MustCompile(`(Seconds|Secs|Sec)$`)
	secondsDoc  = regexp.MustCompile(`(?i)in seconds|seconds\)|\(seconds|\b[a-z]\w* seconds (after|before|since)`)
)

// floatSecondsFuncs lists "file:line dir.[Recv.]Name" of every exported
// function of the repository that takes or returns float seconds under
// the rule above, outside what is allowed.
func floatSecondsFuncs(t *testing.T) []string {
	t.Helper()
	var found []string
	fset := token.NewFileSet()
	err := filepath.WalkDir(repoRoot, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(repoRoot, path)
		rel = filepath.ToSlash(rel)
		if d.IsDir() && rel != "." {
			top, _, _ := strings.Cut(rel, "/")
			if strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata" || top == "examples" || top == "bench" || top == "cmd" {
				return filepath.SkipDir
			}
			for _, a := range secondsAllowedDirs {
				if rel == a {
					return filepath.SkipDir
				}
			}
			return nil
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.ParseComments|parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		if f.Name.Name == "main" {
			return nil
		}
		dir := filepath.ToSlash(filepath.Dir(rel))
		for _, decl := range f.Decls {
			fn, ok := decl.(*ast.FuncDecl)
			if !ok || !fn.Name.IsExported() {
				continue
			}
			name := dir + "." + fn.Name.Name
			if fn.Recv != nil && len(fn.Recv.List) == 1 {
				recv := recvName(fn.Recv.List[0].Type)
				if !ast.IsExported(recv) {
					continue
				}
				name = dir + "." + recv + "." + fn.Name.Name
			}
			if secondsAllowedFuncs[name] {
				continue
			}
			if takesFloatSeconds(fn) {
				found = append(found, fset.Position(fn.Pos()).String()+" "+name)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(found)
	return found
}

func recvName(e ast.Expr) string {
	switch x := e.(type) {
	case *ast.StarExpr:
		return recvName(x.X)
	case *ast.IndexExpr:
		return recvName(x.X)
	case *ast.IndexListExpr:
		return recvName(x.X)
	case *ast.Ident:
		return x.Name
	}
	return ""
}

func isFloat64(e ast.Expr) bool {
	id, ok := e.(*ast.Ident)
	return ok && id.Name == "float64"
}

func takesFloatSeconds(fn *ast.FuncDecl) bool {
	doc := ""
	if fn.Doc != nil {
		doc = fn.Doc.Text()
	}
	byDoc := secondsDoc.MatchString(doc)
	check := func(fl *ast.FieldList, results bool) bool {
		if fl == nil {
			return false
		}
		for _, f := range fl.List {
			if !isFloat64(f.Type) {
				continue
			}
			if byDoc {
				return true
			}
			if len(f.Names) == 0 {
				if results && secondsFunc.MatchString(fn.Name.Name) {
					return true
				}
				continue
			}
			for _, n := range f.Names {
				if secondsName.MatchString(n.Name) {
					return true
				}
			}
		}
		return false
	}
	return check(fn.Type.Params, false) || check(fn.Type.Results, true)
}

// TestNoFloatSecondsInAPI: no exported function outside the data boundary
// and the clock models takes or returns float seconds (the rule is at
// floatSeconds above).
func TestNoFloatSecondsInAPI(t *testing.T) {
	found := floatSecondsFuncs(t)
	seen := map[string]bool{}
	for _, f := range found {
		name := strings.SplitN(f, " ", 2)[1]
		seen[name] = true
		if !secondsKnown[name] {
			t.Errorf("%s takes or returns float seconds: use time.Duration (or timing.Freq for ticks)", f)
		}
	}
	for name := range secondsKnown {
		if !seen[name] {
			t.Errorf("%s no longer takes float seconds: remove it from secondsKnown", name)
		}
	}
	t.Logf("%d exported functions take or return float seconds outside the allowed ones (%d of them listed in secondsKnown)", len(found), len(secondsKnown))
}

// secondsKnown are the functions that still take or return float seconds,
// to be converted; the list only shrinks.
var secondsKnown = map[string]bool{
	"noiseguard.Learner.Add":  true,
	"window.LocalCompletion":  true, // the raw data's runtime_s
	"window.GlobalCompletion": true,
	"window.LoopCompletion":   true,
}
