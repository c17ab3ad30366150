package fastvalidate

import (
	"strings"
	"testing"
)

// TestAdviseNDJSON: only the NDJSON fault's advice is replaced, and what
// the message found stays.
func TestAdviseNDJSON(t *testing.T) {
	v, err := New("agentcard")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		text     string
		replaced bool
	}{
		{"{}\n{}", true},
		{"{} {}", false},
		{"{", false},
	} {
		res := v.Validate([]byte(tc.text))
		fs := res.Findings()
		if len(fs) == 0 || fs[0].Code != CodeJSONSyntax {
			t.Fatalf("%q: findings %v", tc.text, fs)
		}
		before := fs[0].Message()
		advised := fs[0].AdviseNDJSON("do this")
		after := advised.Message()
		want := before
		if tc.replaced {
			want = strings.Replace(before, "use --input ndjson", "do this", 1)
		}
		if after != want || tc.replaced == (after == before) {
			t.Errorf("%q: %q became %q", tc.text, before, after)
		}
	}
}
