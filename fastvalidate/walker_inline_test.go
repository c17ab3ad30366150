package fastvalidate

import (
	"testing"

	"github.com/cardscan/cardscan/internal/inlinetest"
)

// TestWalker_Inlined builds the package with -gcflags=-m and fails when a
// function the comments call inlined is no longer inlinable: a small
// change can push one past the compiler's budget, and every loop over a
// card pays a call for it.
func TestWalker_Inlined(t *testing.T) {
	inlinable := inlinetest.Inlinable(t)
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
