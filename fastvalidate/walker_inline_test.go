package fastvalidate

import (
	"os/exec"
	"regexp"
	"testing"
)

// TestWalker_Inlined builds the package with -gcflags=-m and fails when a
// function the comments call inlined is no longer inlinable: a small
// change can push one past the compiler's budget, and every loop over a
// card pays a call for it.
func TestWalker_Inlined(t *testing.T) {
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go tool on PATH to build the package with -gcflags=-m")
	}
	out, err := exec.Command(goTool, "build", "-gcflags=-m", ".").CombinedOutput()
	if err != nil {
		t.Fatalf("go build -gcflags=-m: %v\n%s", err, out)
	}
	inlinable := map[string]bool{}
	for _, m := range regexp.MustCompile(`can inline (\S+)`).FindAllSubmatch(out, -1) {
		inlinable[string(m[1])] = true
	}
	for _, fn := range []string{
		"(*walker).kind", "(*walker).next", "(*walker).end", "(*walker).empty", "(*walker).raw",
		"(*walker).name", "(*walker).str", "plainOr", "(*walker).emptyString", "(*walker).negative", "(*walker).want",
		"(*walker).wantType", "(*walker).offset", "(*a2aCheck).present",
		"stringOr", "requiredOr", "(*a2aCheck).checkString", "(*a2aCheck).checkStringAs",
		"(*a2aCheck).checkOptionalString", "(*a2aCheck).checkRequiredString",
	} {
		if !inlinable[fn] {
			t.Errorf("%s is no longer inlinable (go build -gcflags=-m)", fn)
		}
	}
}
