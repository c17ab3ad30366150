package cardsig

import "testing"

// TestHasSignaturesMember: a card Verify cannot read one way still counts
// as signed when it reads as an object with signatures at its top level;
// signatures deeper in, or text that is no object, do not.
func TestHasSignaturesMember(t *testing.T) {
	for _, tc := range []struct {
		card string
		want bool
	}{
		{`{"name":"a","name":"b","signatures":[]}`, true},
		{`{"signatures":[{"protected":"x","signature":"y"}],"x":1e999}`, true},
		{`{"name":"\ud800","signatures":[]}`, true},
		{`{"skills":[{"signatures":[]}]}`, false},
		{`["signatures"]`, false},
		{`{"signatures"`, false},
		{``, false},
	} {
		if got := HasSignaturesMember([]byte(tc.card)); got != tc.want {
			t.Errorf("HasSignaturesMember(%s) = %v, want %v", tc.card, got, tc.want)
		}
	}
}
