package cmderr_test

import (
	"bytes"
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/cardscan/cardscan/internal/cmderr"
	"github.com/cardscan/cardscan/internal/console"
)

// Each way out maps to its status, and is said on stderr exactly once:
// errors said already are not said again.
func TestExit(t *testing.T) {
	for _, tc := range []struct {
		name   string
		err    error
		status int
		stderr string
	}{
		{"nil", nil, 0, ""},
		{"failed", cmderr.ErrFailed, 1, ""},
		{"failed, wrapped", fmt.Errorf("run: %w", cmderr.ErrFailed), 1, ""},
		{"io reported", cmderr.ErrIOReported, 3, ""},
		{"usage reported", cmderr.ErrUsageReported, 2, ""},
		{"usage with hint", cmderr.Usage("cardscan diff", errors.New("want two dumps")), 2,
			"cardscan: error: want two dumps\ncardscan: hint: run 'cardscan diff --help' for usage\n"},
		{"usage without hint", cmderr.UsageStop(errors.New("unknown profile")), 2, "cardscan: error: unknown profile\n"},
		{"usage, own hint", cmderr.UsageHint(errors.New(`unknown profile "x"`), "profiles are a2a, ma2d"), 2,
			"cardscan: error: unknown profile \"x\"\ncardscan: hint: profiles are a2a, ma2d\n"},
		{"io", cmderr.IOf("--summary %s: %s", "s.json", "permission denied"), 3, "cardscan: error: --summary s.json: permission denied\n"},
		{"plain error", errors.New("disk on fire"), 3, "cardscan: error: disk on fire\n"},
		{"SIGINT", cmderr.Interrupted(syscall.SIGINT), 130, ""},
		{"SIGTERM", cmderr.Interrupted(syscall.SIGTERM), 143, ""},
		{"SIGHUP", cmderr.Interrupted(syscall.SIGHUP), 129, ""},
	} {
		var stderr bytes.Buffer
		if got := cmderr.Exit(tc.err, console.New(&stderr)); got != tc.status {
			t.Errorf("%s: status %d, want %d", tc.name, got, tc.status)
		}
		if stderr.String() != tc.stderr {
			t.Errorf("%s: stderr %q, want %q", tc.name, stderr.String(), tc.stderr)
		}
	}
}

func TestVerdict(t *testing.T) {
	for _, tc := range []struct {
		failOn            string
		invalid, warnings int64
		want              error
	}{
		{"error", 0, 0, nil},
		{"error", 0, 5, nil},
		{"error", 1, 0, cmderr.ErrFailed},
		{"warning", 0, 1, cmderr.ErrFailed},
		{"warning", 1, 0, cmderr.ErrFailed},
		{"warning", 0, 0, nil},
		{"never", 3, 3, nil},
	} {
		if got := cmderr.Verdict(tc.failOn, tc.invalid, tc.warnings); got != tc.want {
			t.Errorf("Verdict(%q, %d, %d) = %v, want %v", tc.failOn, tc.invalid, tc.warnings, got, tc.want)
		}
	}
}

type failingCloser struct{ err error }

func (c failingCloser) Close() error { return c.err }

// A close that fails is an I/O failure, outranking a verdict, but not the
// first I/O failure, which says what went wrong first.
func TestCloseOutput(t *testing.T) {
	full := errors.New("no space left on device")
	for _, tc := range []struct {
		name      string
		before    error
		closeErr  error
		want      string
		wantState int
	}{
		{"closed", nil, nil, "", 0},
		{"close fails", nil, full, "--resume r.jsonl: no space left on device", 3},
		{"close fails after a failed verdict", cmderr.ErrFailed, full, "--resume r.jsonl: no space left on device", 3},
		{"close fails after an I/O failure", cmderr.IOf("writing: broken"), full, "writing: broken", 3},
		{"closed after a failed verdict", cmderr.ErrFailed, nil, "failed", 1},
	} {
		err := tc.before
		cmderr.CloseOutput(failingCloser{tc.closeErr}, "--resume r.jsonl", &err)
		got := ""
		if err != nil {
			got = err.Error()
		}
		if got != tc.want || cmderr.Status(err) != tc.wantState {
			t.Errorf("%s: %q (status %d), want %q (status %d)", tc.name, got, cmderr.Status(err), tc.want, tc.wantState)
		}
	}
}

// The exit statuses are named in one function, Status: every other
// function of the module returns an error that says which way out it
// took, so that no return can pick a status by hand.
func TestStatusNamedOnce(t *testing.T) {
	root := filepath.Join("..", "..")
	fset := token.NewFileSet()
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".")) && path != root {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		f, err := parser.ParseFile(fset, path, src, 0)
		if err != nil {
			return err
		}
		inCmderr := f.Name.Name == "cmderr"
		for _, d := range f.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if !ok || inCmderr && fd.Name.Name == "Status" {
				continue
			}
			ast.Inspect(fd, func(n ast.Node) bool {
				var name string
				switch n := n.(type) {
				case *ast.SelectorExpr:
					if x, ok := n.X.(*ast.Ident); ok && x.Name == "cmderr" && strings.HasPrefix(n.Sel.Name, "Status") && n.Sel.Name != "Status" {
						name = "cmderr." + n.Sel.Name
					}
				case *ast.Ident:
					if inCmderr && strings.HasPrefix(n.Name, "Status") && n.Name != "Status" {
						name = n.Name
					}
				}
				if name != "" {
					t.Errorf("%s: %s names %s; return an error instead (see internal/cmderr)", fset.Position(n.Pos()), fd.Name.Name, name)
				}
				return true
			})
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
