// Command apicount counts the module's exported names and where they are
// used, to measure how much of the public surface anything outside its own
// package needs.
//
// Usage (from the module root):
//
//	go run ./internal/apicount [-list [-all]] [-pkg prefix] [-with bench]
//
// An exported name is a package-level exported constant, variable, type or
// function, an exported method of a package-level type, or an exported
// field of a package-level struct type, declared in a non-test file of a
// public package: every package of the module except those under
// internal/, examples/, cmd/ and bench/. A user is another package of the
// module (internal/, cmd/ and examples/ included) or a package of the
// modules of -with (by default bench/, the repository's benchmarks, a
// module of its own); a package's own external test package, package
// p_test, is not another package. Each name falls in the first class that
// fits:
//
//   - outside: named by a user's non-test code;
//   - values: a package-level type that no user's non-test code names,
//     but whose values a user's non-test code uses: a selector x.f in a
//     non-test file of a user, where f is a field or method and the type
//     of x is T or *T itself (for a generic type, any instance of it); a
//     method expression T.f names T. A field or method promoted from T into
//     another type U, selected on a value of U, counts for U, not for T;
//     passing, storing, comparing or ranging over values of T does not
//     count. Only type names fall in this class, never members;
//   - tests: named by a user only in test files;
//   - nowhere: named by no user. A name of this class is marked "in
//     examples" (counted apart on the counts' lines, listed with
//     " (example)") when a runnable example of its own package names it:
//     the body of an Example function in a test file of the package or of
//     its external test package, or the package-level declarations of
//     those test files that such a body names, transitively (a helper
//     type's methods included). It stays in the nowhere class: an example
//     shows a name's use; it does not use it.
//
// "Named" means an identifier that go/types resolves to the object (a
// call, a selector, a composite-literal key, a type in a declaration). A
// method reached only through an interface (String via fmt, a Comm method
// called on the interface) is not named, so it counts as nowhere; that is
// the point: such a method needs the interface, not its own export.
//
// It prints two lines of counts, "exported N  outside N  values N  tests N
// nowhere N (in examples N)": one for package-level names ("names"), one
// for methods and fields ("members"); then with -list every name of the
// tests and nowhere classes (with -all every name), one per line, as
// "class pkg.Name", where pkg is the package's path within the module
// ("." for the root package), followed by " (example)" for a nowhere name
// an example shows.
package main

import (
	"flag"
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/reprobench/reprobench/internal/srcload"
)

func main() {
	if err := run(os.Stdout, os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "apicount:", err)
		os.Exit(1)
	}
}

// Class is where an exported name is used.
type Class int

// The classes, from most to least used.
const (
	Outside Class = iota
	Values
	TestsOnly
	Nowhere
	nClasses
)

func (c Class) String() string {
	return [...]string{"outside", "values", "tests", "nowhere"}[c]
}

// Name is one exported name and its class.
type Name struct {
	Pkg   string // import path
	Name  string // "Func", "Type", "Type.Method" or "Type.Field"
	Class Class
	// Example reports whether a runnable example of the name's own
	// package names it (see the package documentation).
	Example bool
}

// Member reports whether the name is a method or a field.
func (n Name) Member() bool { return strings.Contains(n.Name, ".") }

func run(w io.Writer, args []string) error {
	fs := flag.NewFlagSet("apicount", flag.ContinueOnError)
	list := fs.Bool("list", false, "list the names used only by tests and used nowhere")
	all := fs.Bool("all", false, "with -list, list the names used outside and through values too")
	dir := fs.String("C", ".", "the module's directory")
	prefix := fs.String("pkg", "", "count only packages whose import path, after the module path, starts with this")
	with := fs.String("with", "bench", "comma-separated directories of other modules (relative to -C) whose code counts as a user; missing ones are skipped")
	if err := fs.Parse(args); err != nil {
		return err
	}
	var others []string
	for _, d := range strings.Split(*with, ",") {
		if d == "" {
			continue
		}
		if _, err := os.Stat(filepath.Join(*dir, d, "go.mod")); err == nil {
			others = append(others, filepath.Join(*dir, d))
		}
	}
	names, err := Count(*dir, others...)
	if err != nil {
		return err
	}
	var top, member [nClasses]int
	var topEx, memberEx int // nowhere, but shown by an example
	var kept []Name
	for _, nm := range names {
		if *prefix != "" && !strings.HasPrefix(nm.Pkg, *prefix) {
			continue
		}
		ex := 0
		if nm.Class == Nowhere && nm.Example {
			ex = 1
		}
		if nm.Member() {
			member[nm.Class]++
			memberEx += ex
		} else {
			top[nm.Class]++
			topEx += ex
		}
		kept = append(kept, nm)
	}
	line := func(what string, n [nClasses]int, ex int) {
		total := 0
		for _, c := range n {
			total += c
		}
		fmt.Fprintf(w, "%-9s exported %4d  outside %4d  values %4d  tests %4d  nowhere %4d (in examples %d)\n", what, total, n[Outside], n[Values], n[TestsOnly], n[Nowhere], ex)
	}
	line("names", top, topEx)
	line("members", member, memberEx)
	if *list {
		for _, nm := range kept {
			if (nm.Class != Outside && nm.Class != Values) || *all {
				suffix := ""
				if nm.Class == Nowhere && nm.Example {
					suffix = " (example)"
				}
				fmt.Fprintf(w, "%s %s.%s%s\n", nm.Class, nm.Pkg, nm.Name, suffix)
			}
		}
	}
	return nil
}

// Count loads the module at dir with its tests and classifies every
// exported name of its public packages; the code of the modules at others
// (each with its tests) counts as users too. Package paths in the result are
// relative to the module ("." for the root package), sorted by package,
// then name.
func Count(dir string, others ...string) ([]Name, error) {
	fset := token.NewFileSet()
	module, pkgs, err := srcload.Load(fset, dir, true, "./...")
	if err != nil {
		return nil, err
	}
	users := pkgs
	for _, o := range others {
		_, more, err := srcload.Load(fset, o, true, "./...")
		if err != nil {
			return nil, err
		}
		users = append(users, more...)
	}
	indexFields(fset, pkgs)
	rel := func(path string) string {
		if path == module {
			return "."
		}
		return strings.TrimPrefix(path, module+"/")
	}
	public := func(path string) bool {
		if path != module && !strings.HasPrefix(path, module+"/") {
			return false
		}
		r := rel(path)
		for _, p := range []string{"internal", "examples", "cmd", "bench"} {
			if r == p || strings.HasPrefix(r, p+"/") || strings.Contains(r, "/"+p+"/") || strings.HasSuffix(r, "/"+p) {
				return false
			}
		}
		return true
	}

	// keys of exported names, with their display names.
	type decl struct{ pkg, name string }
	decls := map[string]decl{}
	for _, p := range pkgs {
		if strings.HasSuffix(p.Path, "_test") || !public(p.Path) {
			continue
		}
		for ident, obj := range p.Info.Defs {
			if obj == nil || !ident.IsExported() || isTestFile(fset, ident.Pos()) {
				continue
			}
			k, name := key(fset, obj)
			if k == "" || !exportedHome(obj) {
				continue
			}
			decls[k] = decl{rel(p.Path), name}
		}
	}
	class := map[string]Class{}
	for k := range decls {
		class[k] = Nowhere
	}
	for _, p := range users {
		user := strings.TrimSuffix(p.Path, "_test")
		for ident, obj := range p.Info.Uses {
			if obj == nil || obj.Pkg() == nil {
				continue
			}
			home, _, _ := strings.Cut(obj.Pkg().Path(), " ")
			if home == user {
				continue
			}
			k, _ := key(fset, obj)
			c, ok := class[k]
			if !ok {
				continue
			}
			if isTestFile(fset, ident.Pos()) {
				if c == Nowhere {
					class[k] = TestsOnly
				}
			} else {
				class[k] = Outside
			}
		}
	}
	// A type no user's non-test code names may still be used through its
	// values: a field or method selected on a T or *T.
	for _, p := range users {
		user := strings.TrimSuffix(p.Path, "_test")
		for sx, sel := range p.Info.Selections {
			if isTestFile(fset, sx.Pos()) {
				continue
			}
			n := named(sel.Recv())
			if n == nil {
				continue
			}
			obj := n.Origin().Obj()
			if obj.Pkg() == nil {
				continue
			}
			if home, _, _ := strings.Cut(obj.Pkg().Path(), " "); home == user {
				continue
			}
			k, _ := key(fset, obj)
			if c, ok := class[k]; ok && c > Values {
				class[k] = Values
			}
		}
	}
	shown := map[string]bool{}
	for _, p := range pkgs {
		for k := range exampleUses(fset, p) {
			shown[k] = true
		}
	}
	var out []Name
	for k, d := range decls {
		out = append(out, Name{Pkg: d.pkg, Name: d.name, Class: class[k], Example: shown[k]})
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Pkg != out[j].Pkg {
			return out[i].Pkg < out[j].Pkg
		}
		return out[i].Name < out[j].Name
	})
	return out, nil
}

// exampleUses returns the keys of the objects of p's own package (p with
// its _test suffix removed) that p's runnable examples name: the bodies of
// its Example functions, and the test files' package-level functions,
// types (with their methods), variables and constants those bodies name,
// transitively.
func exampleUses(fset *token.FileSet, p *srcload.Package) map[string]bool {
	home := strings.TrimSuffix(p.Path, "_test")
	decl := map[types.Object][]ast.Node{} // a test file's package-level object -> its declarations
	var todo []ast.Node
	for _, f := range p.Files {
		if !isTestFile(fset, f.Pos()) {
			continue
		}
		for _, d := range f.Decls {
			switch d := d.(type) {
			case *ast.FuncDecl:
				if d.Recv == nil && strings.HasPrefix(d.Name.Name, "Example") {
					todo = append(todo, d.Body)
					continue
				}
				obj := p.Info.Defs[d.Name]
				if d.Recv != nil && len(d.Recv.List) == 1 {
					if n := named(p.Info.TypeOf(d.Recv.List[0].Type)); n != nil {
						obj = n.Obj()
					}
				}
				decl[obj] = append(decl[obj], d)
			case *ast.GenDecl:
				for _, s := range d.Specs {
					switch s := s.(type) {
					case *ast.TypeSpec:
						obj := p.Info.Defs[s.Name]
						decl[obj] = append(decl[obj], s)
					case *ast.ValueSpec:
						for _, n := range s.Names {
							obj := p.Info.Defs[n]
							decl[obj] = append(decl[obj], s)
						}
					}
				}
			}
		}
	}
	shown := map[string]bool{}
	seen := map[types.Object]bool{}
	for len(todo) > 0 {
		n := todo[len(todo)-1]
		todo = todo[:len(todo)-1]
		ast.Inspect(n, func(n ast.Node) bool {
			id, ok := n.(*ast.Ident)
			if !ok {
				return true
			}
			obj := p.Info.Uses[id]
			if obj == nil || obj.Pkg() == nil {
				return true
			}
			if ds, ok := decl[obj]; ok && !seen[obj] {
				seen[obj] = true
				todo = append(todo, ds...)
			}
			if path, _, _ := strings.Cut(obj.Pkg().Path(), " "); path == home {
				if k, _ := key(fset, obj); k != "" {
					shown[k] = true
				}
			}
			return true
		})
	}
	return shown
}

func isTestFile(fset *token.FileSet, pos token.Pos) bool {
	return strings.HasSuffix(fset.Position(pos).Filename, "_test.go")
}

// exportedHome reports whether obj is reachable by name from another
// package: package-level, or a method or field of an exported
// package-level named type.
func exportedHome(obj types.Object) bool {
	switch o := obj.(type) {
	case *types.Func:
		if r := o.Type().(*types.Signature).Recv(); r != nil {
			n := named(r.Type())
			return n != nil && n.Obj().Exported() && n.Obj().Parent() == n.Obj().Pkg().Scope()
		}
	case *types.Var:
		if o.IsField() {
			return true // key already required an exported owner
		}
	}
	return obj.Parent() == obj.Pkg().Scope()
}

func named(t types.Type) *types.Named {
	if p, ok := t.(*types.Pointer); ok {
		t = p.Elem()
	}
	n, _ := types.Unalias(t).(*types.Named)
	return n
}

// key returns a key that is the same for an object whether it came from
// source or from export data, and the name to print. Fields are keyed by
// their owner, found by the declaration's position.
func key(fset *token.FileSet, obj types.Object) (string, string) {
	if f, ok := obj.(*types.Func); ok {
		obj = f.Origin()
	}
	if v, ok := obj.(*types.Var); ok {
		obj = v.Origin()
		if v.IsField() {
			owner := fieldOwner[position(fset, obj.Pos())+" "+obj.Name()]
			if owner == "" {
				return "", ""
			}
			path, _, _ := strings.Cut(obj.Pkg().Path(), " ")
			return path + "." + owner + "." + obj.Name(), owner + "." + obj.Name()
		}
	}
	k := srcload.Key(obj)
	if k == "" {
		return "", ""
	}
	path, _, _ := strings.Cut(obj.Pkg().Path(), " ")
	return k, strings.TrimPrefix(k, path+".")
}

func position(fset *token.FileSet, pos token.Pos) string {
	p := fset.Position(pos)
	return fmt.Sprintf("%s:%d", p.Filename, p.Line) // export data keeps no columns
}

// fieldOwner maps a field's declaration line and name to the name of the
// exported package-level struct type that declares it; filled by
// indexFields before keys are taken.
var fieldOwner = map[string]string{}

func indexFields(fset *token.FileSet, pkgs []*srcload.Package) {
	for _, p := range pkgs {
		for _, f := range p.Files {
			for _, d := range f.Decls {
				gd, ok := d.(*ast.GenDecl)
				if !ok || gd.Tok != token.TYPE {
					continue
				}
				for _, s := range gd.Specs {
					ts := s.(*ast.TypeSpec)
					st, ok := ts.Type.(*ast.StructType)
					if !ok || !ts.Name.IsExported() {
						continue
					}
					for _, fld := range st.Fields.List {
						for _, n := range fld.Names {
							fieldOwner[position(fset, n.Pos())+" "+n.Name] = ts.Name.Name
						}
					}
				}
			}
		}
	}
}
