package tape

import (
	"testing"
	"unsafe"

	"github.com/cardscan/cardscan/internal/inlinetest"
)

// TestView_Inlined builds the package with -gcflags=-m and fails when one
// of View's accessors is no longer inlinable: every check's loop over a
// card reads through them, and would pay a call for each.
func TestView_Inlined(t *testing.T) {
	inlinable := inlinetest.Inlinable(t)
	for _, fn := range []string{
		"View.Len", "View.Kind", "View.Flags", "View.Escaped", "View.EmptyString", "View.Parent", "View.First",
		"View.End", "View.Empty", "View.Next", "View.NextMember", "View.Bounds", "View.Offset",
		"View.Raw", "View.Name", "(*View).Node", "(*Scanner).View",
	} {
		if !inlinable[fn] {
			t.Errorf("%s is no longer inlinable (go build -gcflags=-m)", fn)
		}
	}
}

// TestView_FitsRegisters fails when View grows past four words, the most
// that cmd/compile keeps a struct in registers (ssa.MaxStruct): a larger
// View is copied whole to the stack by every inlined accessor, which cost
// the walks about a tenth of their time (docs/performance.md, "Reading the
// tape").
func TestView_FitsRegisters(t *testing.T) {
	const maxStruct = 4
	word := unsafe.Sizeof(uintptr(0))
	if size := unsafe.Sizeof(View{}); size > maxStruct*word {
		t.Errorf("View is %d bytes, over the %d of %d words a struct may have to stay in registers", size, maxStruct*word, maxStruct)
	}
}
