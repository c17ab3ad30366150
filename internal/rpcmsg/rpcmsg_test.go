package rpcmsg

import (
	"strings"
	"testing"
)

func TestLoneSurrogate(t *testing.T) {
	for _, tc := range []struct {
		str  string
		lone bool
	}{
		{`"abc"`, false},
		{`"\ud83d\ude00"`, false},     // a pair
		{`"\\ud800"`, false},          // an escaped backslash, then text
		{`"\\\ud83d\ude00"`, false},   // a backslash, then a pair
		{`"\ufffd\u00e9\n\""`, false}, // other escapes
		{`"a\ud800"`, true},           // high, at the end
		{`"\ud800x"`, true},           // high, then text
		{`"\ud800\u0041"`, true},      // high, then no low
		{`"\udc00\ud800"`, true},      // low first
		{`"\\\ud800"`, true},          // a backslash, then a lone high
		{`"\uD800\uDC00"`, false},     // upper case hex
	} {
		if got := LoneSurrogate([]byte(tc.str)); got != tc.lone {
			t.Errorf("LoneSurrogate(%s) = %v, want %v", tc.str, got, tc.lone)
		}
	}
}

func TestAmbiguous(t *testing.T) {
	for _, tc := range []struct{ msg, want string }{
		{`{"jsonrpc":"2.0","id":1,"method":"m","params":{"id":2,"id":3}}`, ""}, // params are the method's
		{`{"jsonrpc":"2.0","id":1,"method":"m","id":2}`, `member "id" given twice`},
		{`{"jsonrpc":"2.0","method":"m","method":"n"}`, `member "method" given twice`},
		{`{"jsonrpc":"2.0","id":"\udc00","method":"m"}`, "lone surrogate"},
		{`{"jsonrpc":"2.0","id":"\ud83d\ude00","method":"m"}`, ""},
		{`{"jsonrpc":"2.0","id":null,"method":"m"}`, "id must not be null"},
		{`{"jsonrpc":"2.0","id":"null","method":"m"}`, ""},
		{`[1,2]`, ""},
	} {
		got := Ambiguous([]byte(tc.msg))
		if tc.want == "" && got != "" || tc.want != "" && !strings.Contains(got, tc.want) {
			t.Errorf("Ambiguous(%s) = %q, want %q", tc.msg, got, tc.want)
		}
	}
}
