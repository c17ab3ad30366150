package fetch

import (
	"strings"
	"testing"

	"github.com/cardscan/cardscan/rule"
)

// TestTimeoutRuleNamesEveryTimeLimit: the http.timeout rule's description
// names every fetch flag whose limit gives it, so that `cardscan explain
// http.timeout` and docs/rules.md point at the one that ran out. It
// named --connect-timeout and --timeout, not --max-time.
func TestTimeoutRuleNamesEveryTimeLimit(t *testing.T) {
	r, ok := rule.Lookup("http.timeout")
	if !ok {
		t.Fatal("no rule http.timeout")
	}
	desc := r.Description
	for _, flag := range []string{"--connect-timeout", "--timeout", "--max-time"} {
		if !strings.Contains(desc, flag) {
			t.Errorf("http.timeout's description %q does not name %s", desc, flag)
		}
	}
}
