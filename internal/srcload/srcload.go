package srcload

import (
	"bytes"
	"encoding/json"
	"fmt"
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// Package is one type-checked package of the module.
type Package struct {
	// Path is the import path, without the test-variant suffix
	// (" [p.test]"); an external test package keeps its "_test" suffix.
	Path string
	// Dir is the package's directory.
	Dir string
	// Test reports whether this is a test variant (the package compiled
	// with its _test.go files, or its external test package).
	Test  bool
	Files []*ast.File
	Types *types.Package
	Info  *types.Info
}

// listed is the part of `go list -json` that Load reads.
type listed struct {
	ImportPath      string
	Dir             string
	Name            string
	Module          *struct{ Path string }
	Standard        bool
	CompiledGoFiles []string
	Export          string
	ImportMap       map[string]string
	ForTest         string
}

// Load lists patterns in dir (with test variants when tests is set) and
// type-checks every package of the main module (the module at dir) from
// source. Packages whose import path starts with any of skip (after the
// module path and a slash, e.g. "bench") are not checked. It returns the
// module path and the packages, and an error when go list or a type check
// fails.
func Load(fset *token.FileSet, dir string, tests bool, patterns ...string) (string, []*Package, error) {
	args := []string{"list", "-e", "-json", "-deps", "-export", "-compiled"}
	if tests {
		args = append(args, "-test")
	}
	args = append(args, patterns...)
	cmd := exec.Command("go", args...)
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return "", nil, fmt.Errorf("srcload: go list: %v: %s", err, stderr.String())
	}
	modCmd := exec.Command("go", "list", "-m")
	modCmd.Dir = dir
	modOut, err := modCmd.Output()
	if err != nil {
		return "", nil, fmt.Errorf("srcload: go list -m: %v", err)
	}
	module := strings.TrimSpace(string(modOut))

	var all []*listed
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var p listed
		if err := dec.Decode(&p); err == io.EOF {
			break
		} else if err != nil {
			return "", nil, fmt.Errorf("srcload: decoding go list: %v", err)
		}
		all = append(all, &p)
	}
	export := map[string]string{}
	for _, p := range all {
		if p.Export != "" {
			export[p.ImportPath] = p.Export
		}
	}
	var pkgs []*Package
	for _, p := range all {
		if p.Standard || p.Module == nil || p.Module.Path != module {
			continue
		}
		if strings.HasSuffix(p.ImportPath, ".test") && p.Name == "main" && !strings.Contains(p.ImportPath, " ") {
			continue // the generated test main
		}
		base, variant, _ := strings.Cut(p.ImportPath, " ")
		if tests && variant == "" && hasTestVariant(all, base) {
			// Checked through its test variant, which holds the same
			// files and the _test.go ones.
			continue
		}
		if variant != "" && !strings.HasPrefix(variant, "["+strings.TrimSuffix(base, "_test")+".test]") {
			continue // a dependency recompiled for another package's test
		}
		pkg, err := check(fset, p, export)
		if err != nil {
			return "", nil, err
		}
		pkg.Path = base
		pkg.Test = variant != ""
		pkgs = append(pkgs, pkg)
	}
	return module, pkgs, nil
}

func hasTestVariant(all []*listed, base string) bool {
	want := base + " [" + base + ".test]"
	for _, p := range all {
		if p.ImportPath == want {
			return true
		}
	}
	return false
}

func check(fset *token.FileSet, p *listed, export map[string]string) (*Package, error) {
	var files []*ast.File
	for _, name := range p.CompiledGoFiles {
		if !filepath.IsAbs(name) {
			name = filepath.Join(p.Dir, name)
		}
		f, err := parser.ParseFile(fset, name, nil, parser.ParseComments|parser.SkipObjectResolution)
		if err != nil {
			return nil, fmt.Errorf("srcload: %v", err)
		}
		files = append(files, f)
	}
	imp := importer.ForCompiler(fset, "gc", func(path string) (io.ReadCloser, error) {
		if m, ok := p.ImportMap[path]; ok {
			path = m
		}
		file, ok := export[path]
		if !ok {
			return nil, fmt.Errorf("no export data for %s", path)
		}
		return os.Open(file)
	})
	info := &types.Info{
		Types:      map[ast.Expr]types.TypeAndValue{},
		Defs:       map[*ast.Ident]types.Object{},
		Uses:       map[*ast.Ident]types.Object{},
		Selections: map[*ast.SelectorExpr]*types.Selection{},
	}
	conf := types.Config{Importer: imp, FakeImportC: false, Error: func(error) {}}
	tp, err := conf.Check(p.ImportPath, fset, files, info)
	if err != nil {
		return nil, fmt.Errorf("srcload: type-checking %s: %v", p.ImportPath, err)
	}
	return &Package{Dir: p.Dir, Files: files, Types: tp, Info: info}, nil
}

// Key names an object across separately type-checked packages: the
// package path (test-variant suffix removed), then "Name" for a
// package-level object, "Recv.Name" for a method or struct field of a
// named type. It returns "" for objects with no package (the universe)
// and for local objects.
func Key(obj types.Object) string {
	if obj == nil || obj.Pkg() == nil {
		return ""
	}
	path, _, _ := strings.Cut(obj.Pkg().Path(), " ")
	switch o := obj.(type) {
	case *types.Func:
		sig := o.Type().(*types.Signature)
		if r := sig.Recv(); r != nil {
			if n := recvName(r.Type()); n != "" {
				return path + "." + n + "." + o.Name()
			}
			return ""
		}
	case *types.Var:
		if o.IsField() {
			return "" // fields are keyed by FieldKey
		}
	}
	if obj.Parent() != obj.Pkg().Scope() {
		return ""
	}
	return path + "." + obj.Name()
}

func recvName(t types.Type) string {
	if p, ok := t.(*types.Pointer); ok {
		t = p.Elem()
	}
	switch n := types.Unalias(t).(type) {
	case *types.Named:
		return n.Obj().Name()
	}
	return ""
}
