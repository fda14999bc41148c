// Command calltrace follows the static calls from an entry point to the
// functions that write the raw rows, and counts how often that path
// returns to a file it had already left: a measure of how far the data's
// path jumps between files and packages.
//
// Usage (from the module root):
//
//	go run ./internal/calltrace [-entry .Run] [-to rawdata.Writer.Row,rawdata.Writer.RankRow] [-skip mpi] [-paths] [-data types] [-q]
//
// Functions are named by their package's path within the module (empty for
// the root package), then the function, or the receiver's type name and
// the method: ".Run" (the root package's Run), "rawdata.Writer.Row".
//
// The rule, in full:
//
//  1. The call graph is static, over the module's non-test code only
//     (go/types resolution). A call expression whose callee resolves to a
//     function or method of the module is an edge; calls into the
//     standard library or other modules, and calls through function
//     values, are not. Calls inside a function literal belong to the
//     function that contains the literal.
//  2. A call of an interface method is an edge to every method of the
//     same name on a concrete type of the module that has all the
//     interface's method names (a name-based class hierarchy analysis).
//  3. From the entry, the graph is walked depth first, callees in the
//     order their calls appear in the source, each function once (a
//     function already walked is not walked again). The targets (-to) are
//     not walked into, and neither are the packages of -skip (by default
//     mpi and its subpackages: the communicator, real or simulated, that
//     every step calls, not a step of the data's path).
//  4. The trace is the walk's preorder up to and including the last
//     target reached: everything the entry runs, statically, before the
//     last row is written (checks, metadata, clock synchronization, the
//     measurement, its reduction). With -paths, it is instead the preorder
//     restricted to the functions on a walked path from the entry to a
//     target (a function is kept when it is a target or when one of the
//     functions it walked into is kept).
//  5. With -data (by default DataTypes), the trace keeps only the entry,
//     the targets and the functions whose receiver, parameters or results
//     carry one of those types (a value of the type, a pointer to it, or a
//     slice, array or map of it): the functions an experiment's data passes
//     through. Without this step (-data ""), every helper a step calls
//     counts, so a step that calls helpers of two other files returns to
//     its own file between them; that measures how many files a step uses,
//     not how the data moves between them.
//  6. The files of the trace, in order, with consecutive repeats merged,
//     form the file sequence. A return is a position in that sequence
//     whose file already occurred earlier in it: the path had entered the
//     file, left it, and now enters it again. The count of returns is
//     printed last, as "returns N".
//
// The trace lines are "function\tfile", with the file relative to the
// module; -q prints only the count line.
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
		fmt.Fprintln(os.Stderr, "calltrace:", err)
		os.Exit(1)
	}
}

// Step is one function of a trace.
type Step struct {
	Func string // "pkg.Func" or "pkg.Type.Method", pkg relative to the module
	File string // the file that declares it, relative to the module
}

func run(w io.Writer, args []string) error {
	fs := flag.NewFlagSet("calltrace", flag.ContinueOnError)
	dir := fs.String("C", ".", "the module's directory")
	entry := fs.String("entry", ".Run", "the function to start from")
	to := fs.String("to", "rawdata.Writer.Row,rawdata.Writer.RankRow", "comma-separated functions that write the raw rows")
	quiet := fs.Bool("q", false, "print only the count of returns")
	skip := fs.String("skip", "mpi", "comma-separated packages (with their subpackages) not walked into")
	paths := fs.Bool("paths", false, "keep only the functions on the paths to the targets")
	data := fs.String("data", DataTypes, "comma-separated types that carry an experiment's data (rule 5); empty: every function")
	if err := fs.Parse(args); err != nil {
		return err
	}
	trace, err := Trace(*dir, *entry, strings.Split(*to, ","), strings.Split(*skip, ","), !*paths, split(*data))
	if err != nil {
		return err
	}
	if !*quiet {
		for _, s := range trace {
			fmt.Fprintf(w, "%s\t%s\n", s.Func, s.File)
		}
	}
	fmt.Fprintf(w, "returns %d\n", Returns(trace))
	return nil
}

// DataTypes are the types that carry an experiment's data from its
// definition to its rows (rule 5): the experiment, its plan, what its
// observations leave (the engine's and window's records), and the rows and
// summary written.
const DataTypes = ".Experiment,.plan,.observed,window.Record,rawdata.Row,rawdata.RankRow,rawdata.Summary"

// split returns the comma-separated elements of s, none for "".
func split(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(s, ",")
}

// Returns counts the positions of the trace's file sequence (consecutive
// repeats merged) whose file occurred earlier in the sequence.
func Returns(trace []Step) int {
	seen := map[string]bool{}
	n, last := 0, ""
	for _, s := range trace {
		if s.File == last {
			continue
		}
		if seen[s.File] {
			n++
		}
		seen[s.File], last = true, s.File
	}
	return n
}

type fn struct {
	name string
	file string
	decl *ast.FuncDecl
	info *types.Info
	obj  *types.Func
}

// Trace loads the module at dir and returns the trace from entry to the
// targets (see the package doc), not walking into the packages of skip;
// all selects rule 4's whole preorder, !all its -paths variant; data, when
// not empty, keeps only the functions that carry one of those types (rule
// 5). It returns an error when loading fails, the entry or a target is not
// a function of the module, or no function of the trace carries a data
// type (a misspelt or removed type).
func Trace(dir, entry string, targets, skip []string, all bool, data []string) ([]Step, error) {
	fset := token.NewFileSet()
	module, pkgs, err := srcload.Load(fset, dir, false, "./...")
	if err != nil {
		return nil, err
	}
	root := ""
	for _, p := range pkgs {
		if p.Path == module {
			root = p.Dir
		}
	}
	if root == "" {
		if root, err = filepath.Abs(dir); err != nil {
			return nil, err
		}
	}
	rel := func(path string) string {
		if path == module {
			return ""
		}
		return strings.TrimPrefix(path, module+"/")
	}
	inModule := func(path string) bool { return path == module || strings.HasPrefix(path, module+"/") }
	nameOf := func(obj *types.Func) string {
		obj = obj.Origin()
		path, _, _ := strings.Cut(obj.Pkg().Path(), " ")
		if r := obj.Type().(*types.Signature).Recv(); r != nil {
			return rel(path) + "." + typeName(r.Type()) + "." + obj.Name()
		}
		return rel(path) + "." + obj.Name()
	}

	funcs := map[string]*fn{}
	// methods by name, and each concrete type's method names, for rule 2.
	methods := map[string][]string{}            // method name -> "pkg.Type.Method"
	typeMethods := map[string]map[string]bool{} // "pkg.Type" -> method names
	for _, p := range pkgs {
		for _, f := range p.Files {
			file, _ := filepath.Rel(root, fset.Position(f.Pos()).Filename)
			for _, d := range f.Decls {
				fd, ok := d.(*ast.FuncDecl)
				if !ok || fd.Body == nil {
					continue
				}
				obj, _ := p.Info.Defs[fd.Name].(*types.Func)
				if obj == nil {
					continue
				}
				if strings.HasPrefix(file, "..") {
					continue // generated by cgo, outside the module's tree
				}
				name := nameOf(obj)
				funcs[name] = &fn{name: name, file: file, decl: fd, info: p.Info, obj: obj}
				if fd.Recv != nil {
					t := name[:strings.LastIndex(name, ".")]
					if typeMethods[t] == nil {
						typeMethods[t] = map[string]bool{}
					}
					typeMethods[t][obj.Name()] = true
					methods[obj.Name()] = append(methods[obj.Name()], name)
				}
			}
		}
	}
	for _, ms := range methods {
		sort.Strings(ms)
	}
	callees := func(f *fn) []string {
		var out []string
		seen := map[string]bool{}
		add := func(n string) {
			if !seen[n] {
				seen[n] = true
				out = append(out, n)
			}
		}
		ast.Inspect(f.decl.Body, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok {
				return true
			}
			var id *ast.Ident
			switch fun := ast.Unparen(call.Fun).(type) {
			case *ast.Ident:
				id = fun
			case *ast.SelectorExpr:
				id = fun.Sel
			case *ast.IndexExpr: // generic instantiation
				switch x := fun.X.(type) {
				case *ast.Ident:
					id = x
				case *ast.SelectorExpr:
					id = x.Sel
				}
			}
			if id == nil {
				return true
			}
			obj, _ := f.info.Uses[id].(*types.Func)
			if obj == nil || obj.Pkg() == nil {
				return true
			}
			sig := obj.Type().(*types.Signature)
			if r := sig.Recv(); r != nil && types.IsInterface(r.Type()) {
				iface, _ := r.Type().Underlying().(*types.Interface)
				if iface == nil {
					return true
				}
				for _, m := range methods[obj.Name()] {
					t := m[:strings.LastIndex(m, ".")]
					all := true
					for i := 0; i < iface.NumMethods(); i++ {
						all = all && typeMethods[t][iface.Method(i).Name()]
					}
					if all {
						add(m)
					}
				}
				return true
			}
			path, _, _ := strings.Cut(obj.Pkg().Path(), " ")
			if inModule(path) {
				if _, ok := funcs[nameOf(obj)]; ok {
					add(nameOf(obj))
				}
			}
			return true
		})
		return out
	}

	if funcs[entry] == nil {
		return nil, fmt.Errorf("entry %s is not a function of the module", entry)
	}
	isTarget := map[string]bool{}
	for _, t := range targets {
		if funcs[t] == nil {
			return nil, fmt.Errorf("target %s is not a function of the module", t)
		}
		isTarget[t] = true
	}
	walked := map[string]bool{}
	var trace []Step
	// walk appends name's kept subtree to trace and reports whether name
	// is kept (rule 4).
	var walk func(name string) bool
	walk = func(name string) bool {
		walked[name] = true
		f := funcs[name]
		at := len(trace)
		trace = append(trace, Step{Func: name, File: f.file})
		if isTarget[name] {
			return true
		}
		kept := false
		for _, c := range callees(f) {
			if skipped(c, skip) {
				continue
			}
			if !walked[c] && walk(c) {
				kept = true
			}
		}
		if !kept && !all {
			trace = trace[:at]
		}
		return kept
	}
	walk(entry)
	if all {
		last := -1
		for i, s := range trace {
			if isTarget[s.Func] {
				last = i
			}
		}
		trace = trace[:last+1]
	}
	if len(data) == 0 {
		return trace, nil
	}
	isData := map[string]bool{}
	for _, d := range data {
		isData[d] = true
	}
	found := map[string]bool{}
	carries := func(t types.Type) bool {
		for {
			switch u := types.Unalias(t).(type) {
			case *types.Pointer:
				t = u.Elem()
				continue
			case *types.Slice:
				t = u.Elem()
				continue
			case *types.Array:
				t = u.Elem()
				continue
			case *types.Map:
				t = u.Elem()
				continue
			case *types.Named:
				if u.Obj().Pkg() == nil {
					return false
				}
				path, _, _ := strings.Cut(u.Obj().Pkg().Path(), " ")
				n := rel(path) + "." + u.Obj().Name()
				if isData[n] {
					found[n] = true
					return true
				}
			}
			return false
		}
	}
	kept := trace[:0:0]
	for _, s := range trace {
		sig := funcs[s.Func].obj.Type().(*types.Signature)
		keep := s.Func == entry || isTarget[s.Func]
		if r := sig.Recv(); r != nil && carries(r.Type()) {
			keep = true
		}
		for _, tup := range []*types.Tuple{sig.Params(), sig.Results()} {
			for i := 0; i < tup.Len(); i++ {
				if carries(tup.At(i).Type()) {
					keep = true
				}
			}
		}
		if keep {
			kept = append(kept, s)
		}
	}
	for _, d := range data {
		if !found[d] {
			return nil, fmt.Errorf("data type %s is carried by no function of the trace", d)
		}
	}
	return kept, nil
}

// skipped reports whether name lies in one of the packages skip lists (a
// package and its subpackages).
func skipped(name string, skip []string) bool {
	for _, p := range skip {
		if p != "" && (strings.HasPrefix(name, p+".") || strings.HasPrefix(name, p+"/")) {
			return true
		}
	}
	return false
}

func typeName(t types.Type) string {
	if p, ok := t.(*types.Pointer); ok {
		t = p.Elem()
	}
	switch n := types.Unalias(t).(type) {
	case *types.Named:
		return n.Obj().Name()
	case *types.Interface:
		return "interface"
	}
	return t.String()
}
