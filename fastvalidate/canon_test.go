package fastvalidate

import (
	"errors"
	"testing"

	"github.com/cardscan/cardscan/fastvalidate/canon"
)

// TestCanonReasonsNameRules: canon, which cannot import this package,
// names the faults it rejects by the ids of the rules that report them
// here, and has the same default nesting limit, so that a card validation
// accepts with the defaults has a canonical form and a card without one
// is refused for the rule validation reports.
func TestCanonReasonsNameRules(t *testing.T) {
	if canon.DefaultMaxDepth != DefaultMaxDepth {
		t.Errorf("canon.DefaultMaxDepth %d, DefaultMaxDepth %d", canon.DefaultMaxDepth, DefaultMaxDepth)
	}
	for _, tc := range []struct {
		doc  string
		code Code
	}{
		{`{"a":01}`, CodeJSONSyntax},
		{"{\"a\":\"\xff\"}", CodeJSONUTF8},
		{`{"a":1,"a":2}`, CodeJSONDuplicateKey},
		{`{"a":1e400}`, CodeJSONNumberRange},
		{`[1]`, CodeCardType},
	} {
		_, err := canon.Append(nil, []byte(tc.doc), canon.Options{})
		var ce *canon.Error
		if !errors.As(err, &ce) || ce.Reason.String() != tc.code.String() {
			t.Errorf("%s: %v, want %s", tc.doc, err, tc.code)
		}
	}
	for r, code := range map[canon.Reason]Code{
		canon.Syntax: CodeJSONSyntax, canon.UTF8: CodeJSONUTF8, canon.DuplicateKey: CodeJSONDuplicateKey,
		canon.Depth: CodeJSONDepth, canon.NumberRange: CodeJSONNumberRange, canon.TooLarge: CodeInputTooLarge,
		canon.NotObject: CodeCardType,
	} {
		if r.String() != code.String() {
			t.Errorf("canon reason %s, rule %s", r, code)
		}
	}
}
