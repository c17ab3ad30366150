// Package inlinetest asks the compiler which functions of the package
// under test it can inline, for tests that hold hot-path helpers to
// staying inlinable: a small change can push one past the compiler's
// budget without any other test noticing.
package inlinetest

import (
	"os/exec"
	"regexp"
	"testing"
)

var canInline = regexp.MustCompile(`can inline (\S+)`)

// Inlinable builds the package in the working directory (a test's own)
// with -gcflags=-m and returns the names the compiler reports it can
// inline, as -m spells them ("View.Len", "(*walker).kind"). It skips tb
// when no go tool is on PATH.
func Inlinable(tb testing.TB) map[string]bool {
	tb.Helper()
	goTool, err := exec.LookPath("go")
	if err != nil {
		tb.Skip("no go tool on PATH to build the package with -gcflags=-m")
	}
	out, err := exec.Command(goTool, "build", "-gcflags=-m", ".").CombinedOutput()
	if err != nil {
		tb.Fatalf("go build -gcflags=-m: %v\n%s", err, out)
	}
	inlinable := map[string]bool{}
	for _, m := range canInline.FindAllSubmatch(out, -1) {
		inlinable[string(m[1])] = true
	}
	return inlinable
}
