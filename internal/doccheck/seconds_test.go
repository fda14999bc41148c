package doccheck

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"
)

// The float-seconds rule: durations in the Go API are
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
// their subpackages, and the tests' reference definitions of runtime_s) and the functions in secondsAllowedFuncs (the clock
// models, which need sub-nanosecond precision and say "seconds" in their
// names or docs, and the Freq conversions at the data boundary) are
// allowed. Test files, examples/, bench/ and cmd/ (programs, not API) are
// not checked.
var secondsAllowedDirs = []string{"rawdata", "analysis",
	// The runtime types' reference definitions in the raw data's seconds,
	// which tests check the library against.
	"internal/completionref"}

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
	// The periodic-noise model: it learns detours on the global time axis
	// the clock models produce (float global seconds, as
	// GlobalClock.ToGlobal returns them) and schedules slots on it; its
	// whole API (Schedule, Source, Event) is on that axis.
	"noiseguard.Learner.Add": true,
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
	apiFiles(t, fset, secondsAllowedDirs, func(f *ast.File, dir string) {
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
	})
	sort.Strings(found)
	return found
}

// apiFiles parses, with fset, every non-test Go file of a package that is
// not main in the repository, outside examples/, bench/, cmd/, testdata
// and the directories in skip, and calls visit with it and its
// directory relative to the repository.
func apiFiles(t *testing.T, fset *token.FileSet, skip []string, visit func(f *ast.File, dir string)) {
	t.Helper()
	err := filepath.WalkDir(repoRoot, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(repoRoot, path)
		rel = filepath.ToSlash(rel)
		if d.IsDir() && rel != "." {
			top, _, _ := strings.Cut(rel, "/")
			if strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata" || top == "examples" || top == "bench" || top == "cmd" || slices.Contains(skip, rel) {
				return filepath.SkipDir
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
		if f.Name.Name != "main" {
			visit(f, filepath.ToSlash(filepath.Dir(rel)))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
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
	for _, f := range found {
		t.Errorf("%s takes or returns float seconds: use time.Duration (or timing.Freq for ticks)", f)
	}
}

// The same rule for struct fields. An exported field of an exported
// struct type, in a package that is not main, holds float seconds when
// its type is float64, *float64 or []float64 and
//   - its name matches the parameter names above (LateS, OffsetS, and
//     Seconds itself),
//   - or its doc or line comment says "seconds" (the word; "per second"
//     does not count).
//
// Allowed besides what the functions skip:
//   - the data boundary: the directories in secondsFieldDirs (rawdata and
//     analysis, and report, which renders the raw data and the analysis
//     and whose structs hold what those files say), and any field whose
//     json tag names a value in seconds (a key ending in _s or _seconds,
//     or "seconds"): a result written to a file or printed, where the key
//     carries the unit and the Go value is the number the file holds;
//   - the fields in secondsAllowedFields: rows of a raw file, and the
//     models' parameters and ground truth in float seconds with the unit
//     in the name.
var secondsFieldDirs = []string{"rawdata", "analysis", "report"}

// secondsAllowedFields are "dir.Type.Field" entries.
var secondsAllowedFields = map[string]bool{
	// The rows of the raw region file (its _s columns), as Close returns them.
	"region.Row.RuntimeS":          true,
	"region.Row.GlobalRuntimeS":    true,
	"region.Row.EntrySpreadS":      true,
	"region.Row.StartS":            true,
	"region.RankSpan.LocalStartS":  true,
	"region.RankSpan.LocalEndS":    true,
	"region.RankSpan.GlobalStartS": true,
	"region.RankSpan.GlobalEndS":   true,
	// mpitest's simulated clocks and true time: a drawn model parameter
	// (sub-nanosecond), the true send and arrival times of a message.
	"mpi/mpitest.ClockParams.OffsetS": true,
	"mpi/mpitest.Message.SendS":       true,
	"mpi/mpitest.Message.ArrivalS":    true,
	// A rate (seconds per second), not a duration.
	"mpi/mpitest.PeriodicNoise.Drift": true,
	// A clock model's link and fit point live on its float-seconds time
	// axis, as Link.Now and Sample.Offset do: the RTT weighs the fit.
	"clocksync.Link.RTT":   true,
	"clocksync.Sample.RTT": true,
	// The periodic-noise model's events on the global time axis (as
	// noiseguard.Learner.Add among the functions).
	"noiseguard.Event.DeadlineS": true,
	"noiseguard.Event.EndS":      true,
}

var (
	secondsWord    = regexp.MustCompile(`\bseconds\b`)
	secondsJSONKey = regexp.MustCompile(`json:"([a-z0-9_]*(_s|_seconds)|seconds)[,"]`)
)

func isFloat64ish(e ast.Expr) bool {
	switch x := e.(type) {
	case *ast.StarExpr:
		return isFloat64(x.X)
	case *ast.ArrayType:
		return isFloat64(x.Elt)
	}
	return isFloat64(e)
}

// floatSecondsFields lists "file:line dir.Type.Field" of every exported
// field of the repository that holds float seconds under the rule above,
// outside what is allowed.
func floatSecondsFields(t *testing.T) []string {
	t.Helper()
	var found []string
	fset := token.NewFileSet()
	apiFiles(t, fset, secondsFieldDirs, func(f *ast.File, dir string) {
		ast.Inspect(f, func(n ast.Node) bool {
			ts, ok := n.(*ast.TypeSpec)
			if !ok || !ts.Name.IsExported() {
				return true
			}
			st, ok := ts.Type.(*ast.StructType)
			if !ok {
				return true
			}
			for _, fl := range st.Fields.List {
				if !isFloat64ish(fl.Type) {
					continue
				}
				if fl.Tag != nil && secondsJSONKey.MatchString(fl.Tag.Value) {
					continue
				}
				doc := fl.Doc.Text() + " " + fl.Comment.Text()
				byDoc := secondsWord.MatchString(doc)
				for _, id := range fl.Names {
					name := dir + "." + ts.Name.Name + "." + id.Name
					if !id.IsExported() || secondsAllowedFields[name] {
						continue
					}
					if byDoc || secondsName.MatchString(id.Name) || id.Name == "Seconds" {
						found = append(found, fset.Position(id.Pos()).String()+" "+name)
					}
				}
			}
			return true
		})
	})
	sort.Strings(found)
	return found
}

// TestNoFloatSecondsFields: no exported struct field outside the data
// boundary and the clock models holds float seconds (the rule is at
// floatSecondsFields above), except those in secondsFieldsKnown.
func TestNoFloatSecondsFields(t *testing.T) {
	found := floatSecondsFields(t)
	seen := map[string]bool{}
	for _, f := range found {
		name := strings.SplitN(f, " ", 2)[1]
		seen[name] = true
		if !secondsFieldsKnown[name] {
			t.Errorf("%s holds float seconds: use time.Duration (or timing.Ticks)", f)
		}
	}
	for name := range secondsFieldsKnown {
		if !seen[name] {
			t.Errorf("%s no longer holds float seconds: remove it from secondsFieldsKnown", name)
		}
	}
	t.Logf("%d exported fields hold float seconds outside the allowed ones (%d of them listed in secondsFieldsKnown)", len(found), len(secondsFieldsKnown))
}

// secondsFieldsKnown are the fields that still hold float seconds, to be
// converted; the list only shrinks.
var secondsFieldsKnown = map[string]bool{}
