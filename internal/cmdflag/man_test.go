package cmdflag

import (
	"strings"
	"testing"
)

// TestManEscapes: text that roff would read as a request or an escape
// (a leading dot or quote, a backslash) is printed as written, and an
// option's hyphens are minus signs.
func TestManEscapes(t *testing.T) {
	var s Set
	var v string
	s.String(&v, "--dot-file NAME", "", ".hidden names, 'quoted', and C:\\dir")
	page := Command{Name: "tool", Synopsis: "[flags]", Summary: "a tool", Flags: &s}.Man(ManPage{Section: "1", Source: `tool "1"`})
	for _, want := range []string{
		`.TH "TOOL" 1 "" "tool ""1"""` + "\n",
		".TP\n\\fB\\-\\-dot\\-file\\fR \\fINAME\\fR\n\\&.hidden names, 'quoted', and C:\\edir\n",
	} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %q:\n%s", want, page)
		}
	}
}
