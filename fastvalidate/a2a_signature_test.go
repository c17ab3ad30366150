package fastvalidate

import (
	"strings"
	"testing"
)

// TestA2A_ProtectedHeaderStrict holds the protected header of a signature to
// the rules of the card itself: member names compare decoded, none may
// repeat, at any depth, and nothing may follow the object.
func TestA2A_ProtectedHeaderStrict(t *testing.T) {
	const (
		twice      = "protected header has a member name twice"
		notObject  = "protected does not decode to a JSON object"
		notStrings = "protected header's alg and kid must be strings"
		empty      = "protected header's alg and kid must not be empty"
		noAlg      = "protected header has no alg"
	)
	v := newTestValidator(t, "a2a/0.3")
	for _, tc := range []struct {
		name, header string
		want         string // the message's start, "" for a header that passes
	}{
		{"plain", `{"alg":"ES256","kid":"k"}`, ""},
		{"escaped names", `{"\u0061lg":"ES256","k\u0069d":"k"}`, ""},
		{"escaped values", `{"alg":"ES\u0032\u0035\u0036","kid":"\u006b"}`, ""},
		{"alg again, escaped", `{"alg":"ES256","kid":"k","\u0061lg":"none"}`, twice},
		{"kid again, escaped", `{"alg":"ES256","kid":"k","\u006bid":"other"}`, twice},
		{"alg twice", `{"alg":"ES256","kid":"k","alg":"none"}`, twice},
		{"another member twice", `{"alg":"ES256","kid":"k","typ":"JWT","typ":"JOSE"}`, twice},
		{"alg not a string", `{"alg":1,"kid":"k"}`, notStrings},
		{"kid null", `{"alg":"ES256","kid":null}`, notStrings},
		{"kid empty", `{"alg":"ES256","kid":""}`, empty},
		{"alg only as another member's value", `{"kid":"k","x":"alg"}`, noAlg},
		{"alg only inside a nested object", `{"kid":"k","x":{"alg":"ES256"}}`, noAlg},
		{"trailing data", `{"alg":"ES256","kid":"k"} x`, notObject},
		{"two objects", `{"alg":"ES256","kid":"k"}{}`, notObject},
		{"nested values", `{"alg":"ES256","crit":["exp"],"exp":1.5e3,"x":{"y":[true,false,null,-0]},"kid":"k\u00e9"}`, ""},
		{"nested member twice", `{"alg":"ES256","kid":"k","x":{"y":1,"y":2}}`, twice},
		{"nested too deep", `{"alg":"ES256","kid":"k","x":` + strings.Repeat("[", 40) + strings.Repeat("]", 40) + `}`, notObject},
		{"number with a leading zero", `{"alg":"ES256","kid":"k","exp":01}`, notObject},
		{"lone surrogate", `{"alg":"ES256","kid":"\ud800"}`, notObject},
	} {
		t.Run(tc.name, func(t *testing.T) {
			card := edited(t, a2aCard03, "/signatures/0/protected", jsonString(jwsHeader(tc.header)))
			r := v.Validate([]byte(card))
			var got []string
			for _, f := range r.Findings() {
				if f.Path == "/signatures/0/protected" {
					if f.Code != CodeA2ASignatureFormat {
						t.Errorf("finding %v, want rule a2a.signature-format", f)
					}
					got = append(got, f.Message())
				} else {
					t.Errorf("unexpected finding %v", f)
				}
			}
			switch {
			case tc.want == "" && len(got) > 0:
				t.Errorf("header %s: got %q, want it accepted", tc.header, got)
			case tc.want != "" && (len(got) != 1 || !strings.HasPrefix(got[0], tc.want)):
				t.Errorf("header %s: got %q, want one finding %q", tc.header, got, tc.want)
			}
		})
	}
}

// TestA2A10_SignatureTyp: the 1.0 text (section 8.4.2) says the protected
// header's typ "SHOULD be set to "JOSE"". A typ of another value is a
// warning; no typ at all is what RFC 7515 allows and the 0.3 text, which
// names no header member, asks nothing of.
func TestA2A10_SignatureTyp(t *testing.T) {
	const ptr = "/signatures/0/protected"
	for _, tc := range []struct {
		profile, header string
		want            []hit
	}{
		{"a2a/1.0", `{"alg":"ES256","typ":"JOSE","kid":"k"}`, nil},
		{"a2a/1.0", `{"alg":"ES256","typ":"\u004aOSE","kid":"k"}`, nil},
		{"a2a/1.0", `{"alg":"ES256","kid":"k"}`, nil},
		{"a2a/1.0", `{"alg":"ES256","typ":"JWT","kid":"k"}`, []hit{{"a2a.signature-typ", ptr}}},
		{"a2a/1.0", `{"alg":"ES256","typ":"jose","kid":"k"}`, []hit{{"a2a.signature-typ", ptr}}},
		{"a2a/1.0", `{"alg":"ES256","typ":"","kid":"k"}`, []hit{{"a2a.signature-typ", ptr}}},
		{"a2a/1.0", `{"alg":"ES256","typ":1,"kid":"k"}`, []hit{{"a2a.signature-typ", ptr}}},
		// A header that is no JWS header is one error, whatever its typ.
		{"a2a/1.0", `{"typ":"JWT","kid":"k"}`, []hit{{"a2a.signature-format", ptr}}},
		{"a2a/0.3", `{"alg":"ES256","typ":"JWT","kid":"k"}`, nil},
	} {
		t.Run(tc.profile+" "+tc.header, func(t *testing.T) {
			base := a2aCard10
			if tc.profile == "a2a/0.3" {
				base = a2aCard03
			}
			card := edited(t, base, "/signatures/0/protected", jsonString(jwsHeader(tc.header)))
			r := newTestValidator(t, tc.profile).Validate([]byte(card))
			checkHits(t, r, tc.want)
		})
	}
}
