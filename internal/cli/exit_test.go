package cli

import (
	"bytes"
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cardscan/cardscan/internal/console"
)

// Each way out maps to its status, and is said on stderr exactly once:
// errors said already are not said again.
func TestExitStatus(t *testing.T) {
	for _, tc := range []struct {
		name   string
		err    error
		status int
		stderr string
	}{
		{"nil", nil, exitOK, ""},
		{"failed", errFailed, exitInvalid, ""},
		{"failed, wrapped", fmt.Errorf("run: %w", errFailed), exitInvalid, ""},
		{"io reported", errIOReported, exitIO, ""},
		{"usage reported", errUsageReported, exitUsage, ""},
		{"usage with hint", usageFailure("cardscan diff", errors.New("want two dumps")), exitUsage,
			"cardscan: error: want two dumps\ncardscan: hint: run 'cardscan diff --help' for usage\n"},
		{"usage without hint", usageStop(errors.New("unknown profile")), exitUsage, "cardscan: error: unknown profile\n"},
		{"io", ioFailuref("--summary %s: %s", "s.json", "permission denied"), exitIO, "cardscan: error: --summary s.json: permission denied\n"},
		{"plain error", errors.New("disk on fire"), exitIO, "cardscan: error: disk on fire\n"},
		{"signal", &statusError{130}, 130, ""},
		{"library status", fromStatus(exitUsage), exitUsage, ""},
		{"library ok", fromStatus(exitOK), exitOK, ""},
	} {
		var stderr bytes.Buffer
		if got := exitStatus(tc.err, console.New(&stderr)); got != tc.status {
			t.Errorf("%s: status %d, want %d", tc.name, got, tc.status)
		}
		if stderr.String() != tc.stderr {
			t.Errorf("%s: stderr %q, want %q", tc.name, stderr.String(), tc.stderr)
		}
	}
}

// The exit statuses are named in one function, statusOf: every other
// function of the command returns an error that says which way out it
// took, so that no return can pick a status by hand.
func TestExitStatusNamedOnce(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		src, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		f, err := parser.ParseFile(fset, name, src, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if !ok || fd.Name.Name == "statusOf" {
				continue
			}
			ast.Inspect(fd, func(n ast.Node) bool {
				sel, ok := n.(*ast.SelectorExpr)
				if ok && strings.HasPrefix(sel.Sel.Name, "Exit") {
					if x, ok := sel.X.(*ast.Ident); ok && x.Name == "console" {
						t.Errorf("%s: %s names console.%s; return an error instead (see exit.go)", fset.Position(sel.Pos()), fd.Name.Name, sel.Sel.Name)
					}
				}
				return true
			})
		}
	}
}
