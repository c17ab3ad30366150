package rule

import "testing"

// A code no rule has answers the same whether or not it lies inside the
// table: no ID, no description and no severity, never a verdict.
func TestCode_Unknown(t *testing.T) {
	for _, c := range []Code{0, MaxCode - 1, MaxCode, MaxCode + 100, 1<<16 - 1} {
		if c.Known() {
			continue
		}
		if c.String() != "unknown" || c.Description() != "" || c.Severity() != 0 {
			t.Errorf("code %d: ID %q, description %q, severity %v; want unknown, none, none", c, c.String(), c.Description(), c.Severity())
		}
		if _, ok := c.Doc(); ok {
			t.Errorf("code %d: documented", c)
		}
	}
}
