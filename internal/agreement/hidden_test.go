package agreement

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/cardscan/cardscan/internal/visible"
)

// hiddenIn returns the first character of out that card text must not
// put in what cardscan writes, raw: a control character other than the
// line feed that ends a line (a tab too: the text format escapes it), a
// byte that is not UTF-8, or a hidden character (a bidi control, a
// zero-width or tag character...), which could run in a terminal, forge
// a line or reorder and hide text. "" when there is none.
func hiddenIn(out string) string {
	for i, r := range out {
		switch {
		case r == utf8.RuneError && !strings.HasPrefix(out[i:], "\ufffd"):
			return out[i : i+1]
		case r < 0x20 && r != '\n', r >= 0x7f && r < 0xa0, r >= 0xa0 && visible.Hidden(r):
			return string(r)
		}
	}
	return ""
}

// checkNothingHidden fails the test when out holds what hiddenIn finds.
func checkNothingHidden(t testing.TB, what, out string) {
	t.Helper()
	if h := hiddenIn(out); h != "" {
		i := strings.Index(out, h)
		start, end := max(i-60, 0), min(i+60, len(out))
		t.Errorf("%s holds %q raw: ...%q...", what, h, out[start:end])
	}
}
