package codehealth

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Limits on every function of the repository (docs/development.md): past
// them a function has more paths than a reader holds in mind, and its
// tests miss some.
const (
	maxComplexity = 30  // cyclomatic, counted as gocyclo counts it
	maxLines      = 120 // from the func line to the closing brace
)

// exempt names the functions held to no limit, by directory and name:
// the scanner's state machine is one loop whose states jump to each other,
// and splitting it would cost a call per byte; its states carry banner
// comments instead.
var exempt = map[string]bool{
	"fastvalidate/internal/tape (*Scanner).scan": true,
}

// TestFunctionSize fails naming every function of the repository's Go
// source, outside the exempt ones, over maxComplexity or maxLines. It
// reads the files as gocyclo does: every directory but testdata, vendor
// and those starting with "." or "_", test files left out, and generated
// files too, since no one edits them by hand.
func TestFunctionSize(t *testing.T) {
	root := repositoryRoot(t)
	funcs, err := measureTree(root)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, f := range funcs {
		key := f.dir + " " + f.name
		if exempt[key] {
			seen[key] = true
			continue
		}
		if f.complexity > maxComplexity {
			t.Errorf("%s: %s has cyclomatic complexity %d, over %d: split it along its seams", f.pos, f.name, f.complexity, maxComplexity)
		}
		if f.lines > maxLines {
			t.Errorf("%s: %s is %d lines long, over %d: split it along its seams", f.pos, f.name, f.lines, maxLines)
		}
	}
	for key := range exempt {
		if !seen[key] {
			t.Errorf("exempt function %s no longer exists: drop it from the exemptions", key)
		}
	}
}

// repositoryRoot returns the directory of the repository's top go.mod:
// the tree gocyclo is run on as `gocyclo .`, nested modules included.
func repositoryRoot(t *testing.T) string {
	t.Helper()
	dir, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "go.mod")); err != nil {
		t.Fatalf("no go.mod at the repository root %s: %v", dir, err)
	}
	return dir
}

// funcSize is what the test knows of one function.
type funcSize struct {
	dir        string // slash-separated, relative to the root
	name       string // as gocyclo writes it: f, (T).m or (*T).m
	pos        string // file:line, relative to the root
	complexity int
	lines      int
}

// measureTree measures every function of the non-test, non-generated Go
// files under root.
func measureTree(root string) ([]funcSize, error) {
	var funcs []funcSize
	err := filepath.WalkDir(root, func(path string, entry fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if entry.IsDir() {
			if path != root && skipDir(entry.Name()) {
				return filepath.SkipDir
			}
			return nil
		}
		name := entry.Name()
		if !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			return nil
		}
		rel, err := filepath.Rel(root, path)
		if err != nil {
			return err
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		found, err := measureFile(filepath.ToSlash(rel), src)
		funcs = append(funcs, found...)
		return err
	})
	return funcs, err
}

func skipDir(name string) bool {
	return name == "testdata" || name == "vendor" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_")
}

// measureFile measures the functions of one file, named by its path
// relative to the root; a generated file has none to measure.
func measureFile(rel string, src []byte) ([]funcSize, error) {
	fset := token.NewFileSet()
	file, err := parser.ParseFile(fset, rel, src, parser.ParseComments)
	if err != nil {
		return nil, err
	}
	if ast.IsGenerated(file) {
		return nil, nil
	}
	var funcs []funcSize
	add := func(name string, fn ast.Node) {
		start, end := fset.Position(fn.Pos()), fset.Position(fn.End())
		funcs = append(funcs, funcSize{
			dir:        filepath.ToSlash(filepath.Dir(rel)),
			name:       name,
			pos:        fmt.Sprintf("%s:%d", rel, start.Line),
			complexity: complexity(fn),
			lines:      end.Line - start.Line + 1,
		})
	}
	// Like gocyclo: function declarations, and function literals that are
	// the value of a package-level var.
	for _, decl := range file.Decls {
		switch decl := decl.(type) {
		case *ast.FuncDecl:
			add(funcName(decl), decl)
		case *ast.GenDecl:
			for _, spec := range decl.Specs {
				value, ok := spec.(*ast.ValueSpec)
				if !ok {
					continue
				}
				for _, v := range value.Values {
					if lit, ok := v.(*ast.FuncLit); ok {
						add(value.Names[0].Name, lit)
					}
				}
			}
		}
	}
	return funcs, nil
}

// complexity is the cyclomatic complexity of fn as gocyclo computes it:
// one, plus one for each if, for, range, case or select clause other than
// default, && and ||. Function literals inside fn count towards it.
func complexity(fn ast.Node) int {
	n := 1
	ast.Inspect(fn, func(node ast.Node) bool {
		switch node := node.(type) {
		case *ast.IfStmt, *ast.ForStmt, *ast.RangeStmt:
			n++
		case *ast.CaseClause:
			if node.List != nil {
				n++
			}
		case *ast.CommClause:
			if node.Comm != nil {
				n++
			}
		case *ast.BinaryExpr:
			if node.Op == token.LAND || node.Op == token.LOR {
				n++
			}
		}
		return true
	})
	return n
}

// funcName writes a function's name as gocyclo does: "f" for a function,
// "(T).m" or "(*T).m" for a method, type parameters left out.
func funcName(fn *ast.FuncDecl) string {
	if fn.Recv == nil || fn.Recv.NumFields() == 0 {
		return fn.Name.Name
	}
	return "(" + receiverName(fn.Recv.List[0].Type) + ")." + fn.Name.Name
}

func receiverName(recv ast.Expr) string {
	switch t := recv.(type) {
	case *ast.Ident:
		return t.Name
	case *ast.StarExpr:
		return "*" + receiverName(t.X)
	case *ast.IndexExpr:
		return receiverName(t.X)
	case *ast.IndexListExpr:
		return receiverName(t.X)
	}
	return "BADRECV"
}

// TestComplexity pins the count on each construct gocyclo counts, and on
// those it leaves out (default clauses, else, plain binary operators).
func TestComplexity(t *testing.T) {
	const src = `package p

func straight(a, b int) int { return a + b }

func branches(a, b bool, c chan int, xs []int) {
	if a && b || !a { // if, &&, ||: 3
	} else {
	}
	for i := 0; i < 3; i++ { // 1
	}
	for range xs { // 1
	}
	switch { // two cases, default free: 2
	case a:
	case b:
	default:
	}
	select { // one comm clause, default free: 1
	case <-c:
	default:
	}
	_ = func() bool { return a || b } // a literal counts in its function: 1
}

func (r *T[K]) method() {}

var table = func() int { if true { return 1 }; return 0 }
`
	funcs, err := measureFile("p/p.go", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string][2]int{ // complexity, lines
		"straight":    {1, 1},
		"branches":    {10, 19},
		"(*T).method": {1, 1},
		"table":       {2, 1},
	}
	if len(funcs) != len(want) {
		t.Errorf("measured %d functions, want %d: %+v", len(funcs), len(want), funcs)
	}
	for _, f := range funcs {
		w, ok := want[f.name]
		if !ok {
			t.Errorf("unexpected function %q", f.name)
			continue
		}
		if f.complexity != w[0] || f.lines != w[1] {
			t.Errorf("%s: complexity %d, %d lines; want %d, %d", f.name, f.complexity, f.lines, w[0], w[1])
		}
		if f.dir != "p" {
			t.Errorf("%s: dir %q, want p", f.name, f.dir)
		}
	}
	generated := "// Code generated by hand for this test. DO NOT EDIT.\n\n" + src
	if funcs, err := measureFile("p/gen.go", []byte(generated)); err != nil || len(funcs) != 0 {
		t.Errorf("generated file: measured %v (err %v), want nothing", funcs, err)
	}
}
