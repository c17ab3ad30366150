package cardsig

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/hmac"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/cardscan/cardscan/fastvalidate/canon"
	"github.com/go-jose/go-jose/v4"
)

// testCard is an A2A 1.0 card with the things canonicalization must get
// right: non-ASCII text, escapes, numbers with fractions, nesting.
const testCard = `{
  "name": "Geo Route Planner – Größe",
  "description": "Plans routes.\nSee \"docs\" \u00e9",
  "version": "1.2.0",
  "supportedInterfaces": [{"url": "https://geo.example.com/a2a", "protocolBinding": "JSONRPC", "protocolVersion": "1.0"}],
  "capabilities": {"streaming": true, "pushNotifications": false},
  "defaultInputModes": ["text/plain"],
  "defaultOutputModes": ["application/json"],
  "skills": [{"id": "route", "name": "Route", "description": "Finds a route", "tags": ["maps", "😀"]}],
  "metadata": {"weight": 1.50, "max": 1e3, "neg": -0.0}
}`

// testKey is a key made for one test run, with the algorithm it signs with.
type testKey struct {
	alg  string
	priv jose.JSONWebKey
}

var (
	keysOnce sync.Once
	allKeys  []testKey
)

// testKeys makes one key per algorithm (the RSA algorithms share one 2048
// bit key, which takes the longest to make).
func testKeys(t testing.TB) []testKey {
	t.Helper()
	keysOnce.Do(func() {
		_, ed, _ := ed25519.GenerateKey(rand.Reader)
		p256, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
		p384, _ := ecdsa.GenerateKey(elliptic.P384(), rand.Reader)
		p521, _ := ecdsa.GenerateKey(elliptic.P521(), rand.Reader)
		rk, _ := rsa.GenerateKey(rand.Reader, 2048)
		for _, k := range []struct {
			alg string
			key any
		}{
			{"EdDSA", ed}, {"ES256", p256}, {"ES384", p384}, {"ES512", p521},
			{"RS256", rk}, {"RS384", rk}, {"RS512", rk}, {"PS256", rk}, {"PS384", rk}, {"PS512", rk},
		} {
			allKeys = append(allKeys, testKey{k.alg, jose.JSONWebKey{Key: k.key, KeyID: "key-" + k.alg}})
		}
	})
	return allKeys
}

// trustStore returns the JWKS text of the public halves of keys.
func trustStore(t testing.TB, keys []testKey) []byte {
	t.Helper()
	var set jose.JSONWebKeySet
	for _, k := range keys {
		set.Keys = append(set.Keys, k.priv.Public())
	}
	b, err := json.Marshal(set)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func newVerifier(t testing.TB, keys []testKey, opts ...Option) *Verifier {
	t.Helper()
	ks, err := ParseKeySet(trustStore(t, keys))
	if err != nil {
		t.Fatal(err)
	}
	v, err := NewVerifier(ks, opts...)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func sign(t testing.TB, card string, k testKey, opts SignOptions) []byte {
	t.Helper()
	opts.Alg = k.alg
	out, err := Sign([]byte(card), k.priv, opts)
	if err != nil {
		t.Fatalf("%s: %v", k.alg, err)
	}
	return out
}

// verified reports whether card verifies; a card that cannot be read
// strictly does not.
func verified(v *Verifier, card []byte) bool {
	res, err := v.Verify(card)
	return err == nil && res.Verified()
}

func TestSignVerify_EveryAlgorithm(t *testing.T) {
	keys := testKeys(t)
	v := newVerifier(t, keys)
	for _, k := range keys {
		t.Run(k.alg, func(t *testing.T) {
			card := sign(t, testCard, k, SignOptions{})
			res, err := v.Verify(card)
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Signatures) != 1 || res.Signatures[0].Status != Verified || res.Signatures[0].Alg != k.alg {
				t.Fatalf("got %+v", res.Signatures)
			}
			if len(res.SignedBy) != 1 || res.SignedBy[0] != k.priv.KeyID {
				t.Errorf("SignedBy = %v", res.SignedBy)
			}
			// Signing keeps the card's own bytes before the new member.
			if !strings.HasPrefix(string(card), strings.TrimRight(testCard, "}\n")) {
				t.Errorf("signing rewrote the card:\n%s", card)
			}
		})
	}
}

// Every single-byte change of a member name or value (every letter and
// digit of the card), of the protected header or of the signature makes
// the card fail; changes of whitespace and member order do not.
func TestVerify_SingleByteChangesFail(t *testing.T) {
	keys := testKeys(t)
	v := newVerifier(t, keys)
	for _, k := range keys {
		t.Run(k.alg, func(t *testing.T) {
			card := sign(t, testCard, k, SignOptions{})
			sigAt := strings.Index(string(card), `"signatures"`)
			var entry struct{ Protected, Signature string }
			var top struct{ Signatures []json.RawMessage }
			if err := json.Unmarshal(card, &top); err != nil {
				t.Fatal(err)
			}
			if err := json.Unmarshal(top.Signatures[0], &entry); err != nil {
				t.Fatal(err)
			}
			// Under the race detector P-384 and P-521 verify at about 40
			// ms each; there every eighth byte is changed for them.
			stride := 1
			if raceEnabled && (k.alg == "ES384" || k.alg == "ES512") {
				stride = 8
			}
			changed := 0
			try := func(where string, i int) {
				if i%stride != 0 {
					return
				}
				mut := append([]byte(nil), card...)
				mut[i] = otherByte(mut[i])
				changed++
				if verified(v, mut) {
					t.Errorf("%s: changing byte %d (%q to %q) still verifies", where, i, card[i], mut[i])
				}
			}
			for i := range sigAt {
				if isAlnum(card[i]) {
					try("card", i)
				}
			}
			p := strings.Index(string(card), entry.Protected)
			for i := p; i < p+len(entry.Protected); i++ {
				try("protected", i)
			}
			s := strings.Index(string(card), entry.Signature)
			for i := s; i < s+len(entry.Signature); i++ {
				try("signature", i)
			}
			if changed < 300/stride {
				t.Errorf("only %d changes tried", changed)
			}
		})
	}
}

func isAlnum(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

// otherByte returns a different byte of the same class, so that a change
// keeps base64url text base64url and most JSON JSON.
func otherByte(c byte) byte {
	switch {
	case c == '9':
		return '8'
	case c >= '0' && c < '9':
		return c + 1
	case c == 'z' || c == 'Z':
		return c - 1
	case isAlnum(c):
		return c + 1
	case c == '-':
		return '_'
	case c == '_':
		return '-'
	}
	return c ^ 1
}

func TestVerify_ReorderAndWhitespace(t *testing.T) {
	keys := testKeys(t)
	v := newVerifier(t, keys)
	for _, k := range keys[:2] {
		card := sign(t, testCard, k, SignOptions{})
		var m map[string]any
		if err := json.Unmarshal(card, &m); err != nil {
			t.Fatal(err)
		}
		// encoding/json sorts members and writes numbers its own way
		// (1e3 as 1000, 1.50 as 1.5, -0.0 as -0); Python-style spacing.
		indented, _ := json.MarshalIndent(m, "", "    ")
		compact, _ := json.Marshal(m)
		spaced := strings.NewReplacer(`,"`, `, "`, `":`, `": `).Replace(string(compact))
		for name, form := range map[string][]byte{"indented": indented, "compact": compact, "spaced": []byte(spaced)} {
			if !verified(v, form) {
				t.Errorf("%s, %s form does not verify:\n%s", k.alg, name, form)
			}
		}
	}
}

func TestVerify_OneGoodOneBad(t *testing.T) {
	keys := testKeys(t)
	v := newVerifier(t, keys)
	card := sign(t, testCard, keys[0], SignOptions{})
	// A second signature whose bytes are the first's with one changed.
	var top struct{ Signatures []map[string]string }
	_ = json.Unmarshal(card, &top)
	bad := top.Signatures[0]
	bad["signature"] = flipLast(bad["signature"])
	twice, err := insertSignature(card, mustJSON(t, bad))
	if err != nil {
		t.Fatal(err)
	}
	res, err := v.Verify(twice)
	if err != nil {
		t.Fatal(err)
	}
	if !res.Verified() || len(res.Signatures) != 2 || res.Signatures[0].Status != Verified || res.Signatures[1].Status != Invalid {
		t.Errorf("got %+v", res)
	}
}

func flipLast(s string) string {
	return s[:len(s)-1] + string(otherByte(s[len(s)-1]))
}

func mustJSON(t testing.TB, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// withEntry returns testCard with one hand-made signature entry whose
// signature is made over the signing input by sig.
func withEntry(t testing.TB, header string, sig func(input []byte) []byte) []byte {
	t.Helper()
	payload, err := canon.Append(nil, []byte(testCard), canon.Options{DropTopLevel: "signatures"})
	if err != nil {
		t.Fatal(err)
	}
	enc := base64.RawURLEncoding
	protected := enc.EncodeToString([]byte(header))
	input := []byte(protected + "." + enc.EncodeToString(payload))
	entry := mustJSON(t, map[string]string{"protected": protected, "signature": enc.EncodeToString(sig(input))})
	out, err := insertSignature([]byte(testCard), entry)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func TestVerify_Rejections(t *testing.T) {
	keys := testKeys(t)
	v := newVerifier(t, keys)
	ed := keys[0].priv.Key.(ed25519.PrivateKey)
	edSign := func(in []byte) []byte { return ed25519.Sign(ed, in) }
	rsaKey := keys[4].priv.Key.(*rsa.PrivateKey)
	// The attack HS256 opens: the verifier's public key, as the JWKS
	// holds it, used as the HMAC secret.
	pubJWK := mustJSON(t, keys[1].priv.Public())
	hs256 := func(in []byte) []byte {
		m := hmac.New(sha256.New, pubJWK)
		m.Write(in)
		return m.Sum(nil)
	}
	rsaSign := func(in []byte) []byte {
		h := sha256.Sum256(in)
		s, _ := rsa.SignPKCS1v15(rand.Reader, rsaKey, crypto.SHA256, h[:])
		return s
	}
	for _, tc := range []struct {
		name, header string
		sig          func([]byte) []byte
		want         Status
	}{
		{"control: a good hand-made signature", `{"alg":"EdDSA","kid":"key-EdDSA","typ":"JOSE"}`, edSign, Verified},
		{"alg none", `{"alg":"none","kid":"key-EdDSA"}`, func([]byte) []byte { return nil }, AlgRejected},
		{"alg none with a signature", `{"alg":"none","kid":"key-EdDSA"}`, edSign, AlgRejected},
		{"HS256 with the public key as secret", `{"alg":"HS256","kid":"key-ES256"}`, hs256, AlgRejected},
		{"RSA key for an ES256 header", `{"alg":"ES256","kid":"key-RS256"}`, rsaSign, AlgRejected},
		{"Ed25519 key for an RS256 header", `{"alg":"RS256","kid":"key-EdDSA"}`, rsaSign, AlgRejected},
		{"P-256 key for an ES384 header", `{"alg":"ES384","kid":"key-ES256"}`, edSign, AlgRejected},
		{"duplicate alg", `{"alg":"EdDSA","alg":"EdDSA","kid":"key-EdDSA"}`, edSign, Invalid},
		{"escaped duplicate alg", `{"alg":"EdDSA","\u0061lg":"none","kid":"key-EdDSA"}`, edSign, Invalid},
		{"duplicate kid", `{"alg":"EdDSA","kid":"key-EdDSA","kid":"key-ES256"}`, edSign, Invalid},
		{"lone surrogate", `{"alg":"EdDSA","kid":"key-EdDSA","x":"\ud800"}`, edSign, Invalid},
		{"unknown kid", `{"alg":"EdDSA","kid":"key-nobody"}`, edSign, KeyUnknown},
		{"empty kid", `{"alg":"EdDSA","kid":""}`, edSign, Invalid},
		{"numeric alg", `{"alg":1,"kid":"key-EdDSA"}`, edSign, Invalid},
		{"no alg", `{"kid":"key-EdDSA"}`, edSign, Invalid},
		{"typ other than JOSE", `{"alg":"EdDSA","kid":"key-EdDSA","typ":"JWT"}`, edSign, Invalid},
		{"crit", `{"alg":"EdDSA","kid":"key-EdDSA","crit":["exp"],"exp":1}`, edSign, Invalid},
		{"b64", `{"alg":"EdDSA","kid":"key-EdDSA","b64":true}`, edSign, Invalid},
		{"header not an object", `["EdDSA"]`, edSign, Invalid},
		{"jku without a trusted prefix", `{"alg":"EdDSA","kid":"key-x","jku":"https://keys.example.com/jwks.json"}`, edSign, KeyUnknown},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, err := v.Verify(withEntry(t, tc.header, tc.sig))
			if err != nil {
				t.Fatal(err)
			}
			if got := res.Signatures[0]; got.Status != tc.want || (tc.want != Verified) != (got.Reason != "") {
				t.Errorf("got %v (%s), want %v", got.Status, got.Reason, tc.want)
			}
			if res.Verified() != (tc.want == Verified) {
				t.Errorf("Verified() = %v", res.Verified())
			}
		})
	}
}

func TestVerify_AlgorithmsAreTheVerifiers(t *testing.T) {
	keys := testKeys(t)
	v := newVerifier(t, keys, WithAlgorithms("EdDSA"))
	if !verified(v, sign(t, testCard, keys[0], SignOptions{})) {
		t.Error("EdDSA card does not verify under an EdDSA-only verifier")
	}
	res, err := v.Verify(sign(t, testCard, keys[1], SignOptions{}))
	if err != nil || res.Signatures[0].Status != AlgRejected {
		t.Errorf("ES256 card under an EdDSA-only verifier: %+v, %v", res, err)
	}
	for _, bad := range []string{"none", "HS256", "HS512", "es256", ""} {
		if _, err := NewVerifier(nil, WithAlgorithms(bad)); err == nil {
			t.Errorf("WithAlgorithms(%q) was accepted", bad)
		}
	}
}

func TestVerify_CanonicalModes(t *testing.T) {
	keys := testKeys(t)
	const card = `{"name":"x","description":"","skills":[],"capabilities":{"extensions":[],"streaming":false}}`
	asIs := newVerifier(t, keys)
	dropEmpty := newVerifier(t, keys, WithCanonical(canon.DropEmpty))
	signedAsIs := sign(t, card, keys[0], SignOptions{})
	signedDrop := sign(t, card, keys[0], SignOptions{Mode: canon.DropEmpty})
	for _, tc := range []struct {
		name string
		v    *Verifier
		card []byte
		want bool
	}{
		{"as-is verifies as-is", asIs, signedAsIs, true},
		{"drop-empty verifies drop-empty", dropEmpty, signedDrop, true},
		{"as-is rejects a drop-empty signature", asIs, signedDrop, false},
		{"drop-empty rejects an as-is signature", dropEmpty, signedAsIs, false},
	} {
		if got := verified(tc.v, tc.card); got != tc.want {
			t.Errorf("%s: verified = %v", tc.name, got)
		}
	}
	// Under drop-empty, adding or removing an empty member changes nothing.
	more := strings.Replace(string(signedDrop), `"name":"x"`, `"name":"x","extra":{}`, 1)
	if !verified(dropEmpty, []byte(more)) {
		t.Error("drop-empty: an added empty member broke the signature")
	}
}

func TestVerify_CardNotIJSON(t *testing.T) {
	keys := testKeys(t)
	v := newVerifier(t, keys)
	card := sign(t, testCard, keys[0], SignOptions{})
	// A second name member: which one was signed is for the reader to guess.
	dup := strings.Replace(string(card), `"version"`, `"name":"Other","version"`, 1)
	if _, err := v.Verify([]byte(dup)); err == nil {
		t.Error("a card with a duplicate name verified")
	}
	if res, err := v.Verify([]byte(testCard)); err != nil || len(res.Signatures) != 0 || res.Verified() {
		t.Errorf("unsigned card: %+v, %v", res, err)
	}
	notArray := strings.Replace(testCard, `"version"`, `"signatures":{},"version"`, 1)
	if res, err := v.Verify([]byte(notArray)); err != nil || len(res.Signatures) != 1 || res.Signatures[0].Status != Invalid {
		t.Errorf("signatures not an array: %+v, %v", res, err)
	}
}

func TestParseKeySet(t *testing.T) {
	keys := testKeys(t)
	good := string(trustStore(t, keys[:2]))
	one := string(mustJSON(t, keys[0].priv.Public()))
	private := string(mustJSON(t, keys[0].priv))
	for _, tc := range []struct {
		name, in string
		n        int // keys; -1 for an error
	}{
		{"a set", good, 2},
		{"one key", one, 1},
		{"a private key counts as its public half", private, 1},
		{"symmetric", `{"keys":[{"kty":"oct","kid":"h","k":"c2VjcmV0"}]}`, -1},
		{"no kid", strings.Replace(one, `"kid":"key-EdDSA",`, "", 1), -1},
		{"duplicate kid", `{"keys":[` + one + "," + one + `]}`, -1},
		{"duplicate member", `{"keys":[],"keys":[` + one + `]}`, -1},
		{"neither", `{"x":1}`, -1},
		{"not JSON", `{"keys":`, -1},
		{"key_ops without verify", strings.Replace(one, `"kty"`, `"key_ops":"sign","kty"`, 1), -1},
	} {
		ks, err := ParseKeySet([]byte(tc.in))
		if (err != nil) != (tc.n < 0) || tc.n >= 0 && ks.Len() != tc.n {
			t.Errorf("%s: %d keys, %v", tc.name, ks.Len(), err)
		}
	}
	// The key itself must not be usable to sign once trusted.
	ks, _ := ParseKeySet([]byte(private))
	if k, _ := ks.lookup("key-EdDSA"); !k.IsPublic() {
		t.Error("a private key stayed private in the trust store")
	}
}

func TestKeyFits_JWKConstraints(t *testing.T) {
	keys := testKeys(t)
	pub := keys[1].priv.Public()
	for _, tc := range []struct {
		name string
		k    trustedKey
		ok   bool
	}{
		{"plain", trustedKey{JSONWebKey: pub}, true},
		{"alg matches", trustedKey{JSONWebKey: withAlg(pub, "ES256")}, true},
		{"alg differs", trustedKey{JSONWebKey: withAlg(pub, "ES384")}, false},
		{"use enc", trustedKey{JSONWebKey: withUse(pub, "enc")}, false},
		{"key_ops verify", trustedKey{JSONWebKey: pub, ops: []string{"verify"}}, true},
		{"key_ops encrypt", trustedKey{JSONWebKey: pub, ops: []string{"encrypt"}}, false},
	} {
		if got := keyFits("ES256", tc.k) == ""; got != tc.ok {
			t.Errorf("%s: fits = %v", tc.name, got)
		}
	}
	small, _ := rsa.GenerateKey(rand.Reader, 1024)
	if keyFits("RS256", trustedKey{JSONWebKey: jose.JSONWebKey{Key: &small.PublicKey}}) == "" {
		t.Error("a 1024-bit RSA key fits RS256")
	}
}

func withAlg(k jose.JSONWebKey, alg string) jose.JSONWebKey { k.Algorithm = alg; return k }
func withUse(k jose.JSONWebKey, use string) jose.JSONWebKey { k.Use = use; return k }

func TestSign_Insertion(t *testing.T) {
	keys := testKeys(t)
	v := newVerifier(t, keys)
	for _, card := range []string{
		`{}`,
		` { } `,
		`{"name":"x"}`,
		`{"signatures":[],"name":"x"}`,
		"{\"signatures\":[ \n ],\"name\":\"x\"}",
	} {
		once := sign(t, card, keys[0], SignOptions{})
		twice := sign(t, string(once), keys[1], SignOptions{})
		res, err := v.Verify(twice)
		if err != nil || len(res.Signatures) != 2 || len(res.SignedBy) != 2 {
			t.Errorf("%q: signed twice: %s: %+v, %v", card, twice, res, err)
		}
	}
	if _, err := Sign([]byte(`{"signatures":{}}`), keys[0].priv, SignOptions{}); err == nil {
		t.Error("signed a card whose signatures is not an array")
	}
	if _, err := Sign([]byte(testCard), keys[0].priv, SignOptions{Alg: "ES256"}); err == nil {
		t.Error("signed ES256 with an Ed25519 key")
	}
	if _, err := Sign([]byte(testCard), keys[0].priv.Public(), SignOptions{}); err == nil {
		t.Error("signed with a public key")
	}
}

// A card with more signatures than MaxSignatures has only the first ones
// checked: a signature past the bound does not verify, even a good one.
func TestVerify_SignatureBound(t *testing.T) {
	keys := testKeys(t)
	v := newVerifier(t, keys)
	card := []byte(testCard)
	for range MaxSignatures {
		card = sign(t, string(card), testKey{alg: "EdDSA", priv: withKID(keys[0].priv, "other")}, SignOptions{})
	}
	card = sign(t, string(card), keys[0], SignOptions{})
	res, err := v.Verify(card)
	if err != nil {
		t.Fatal(err)
	}
	last := res.Signatures[len(res.Signatures)-1]
	if len(res.Signatures) != MaxSignatures+1 || res.Verified() || last.Status != Invalid || !strings.Contains(last.Reason, "not checked") {
		t.Errorf("%d signatures, verified %v, last %+v", len(res.Signatures), res.Verified(), last)
	}
	for _, s := range res.Signatures[:MaxSignatures] {
		if s.Status != KeyUnknown {
			t.Errorf("signature %d: %+v, want key-unknown", s.Index, s)
		}
	}
}

func withKID(k jose.JSONWebKey, kid string) jose.JSONWebKey { k.KeyID = kid; return k }

// TestAlgorithms_CannotBeWidened holds the allow-list shut: what
// Algorithms returns is a copy, so an importer that changes it (to add
// HS256, whose key is a shared secret) changes neither what WithAlgorithms
// accepts nor the list the next caller sees.
func TestAlgorithms_CannotBeWidened(t *testing.T) {
	got := Algorithms()
	got[0] = "HS256"
	_ = append(got[:1], "none")
	if _, err := NewVerifier(nil, WithAlgorithms("HS256")); err == nil {
		t.Error("WithAlgorithms(HS256) was accepted after the caller's copy was changed")
	}
	if again := Algorithms(); again[0] != "EdDSA" || slices.Contains(again, "HS256") || slices.Contains(again, "none") {
		t.Errorf("Algorithms() = %v after a caller changed its copy", again)
	}
}

// TestSign_KeepsLayout: the signature goes into the card laid out as the
// card's own members are: on a line of its own, indented alike, in a
// pretty-printed card; inline in a card on one line.
func TestSign_KeepsLayout(t *testing.T) {
	entry := []byte(`{"protected":"P","signature":"S"}`)
	for _, c := range []struct{ name, card, want string }{
		{"compact", `{"name":"x"}`, `{"name":"x","signatures":[{"protected":"P","signature":"S"}]}`},
		{"one line, spaced", `{"name": "x", "v": 1}`, `{"name": "x", "v": 1, "signatures": [{"protected":"P","signature":"S"}]}`},
		{"two spaces", "{\n  \"name\": \"x\",\n  \"v\": 1\n}\n",
			"{\n  \"name\": \"x\",\n  \"v\": 1,\n  \"signatures\": [\n    {\n      \"protected\": \"P\",\n      \"signature\": \"S\"\n    }\n  ]\n}\n"},
		{"tabs and CRLF", "{\r\n\t\"name\": \"x\"\r\n}",
			"{\r\n\t\"name\": \"x\",\r\n\t\"signatures\": [\r\n\t\t{\r\n\t\t\t\"protected\": \"P\",\r\n\t\t\t\"signature\": \"S\"\r\n\t\t}\r\n\t]\r\n}"},
		{"an empty array", "{\n  \"signatures\": [],\n  \"name\": \"x\"\n}",
			"{\n  \"signatures\": [\n    {\n      \"protected\": \"P\",\n      \"signature\": \"S\"\n    }\n  ],\n  \"name\": \"x\"\n}"},
		{"a second signature", "{\n  \"name\": \"x\",\n  \"signatures\": [\n    {\n      \"protected\": \"A\",\n      \"signature\": \"B\"\n    }\n  ]\n}",
			"{\n  \"name\": \"x\",\n  \"signatures\": [\n    {\n      \"protected\": \"A\",\n      \"signature\": \"B\"\n    },\n    {\n      \"protected\": \"P\",\n      \"signature\": \"S\"\n    }\n  ]\n}"},
		{"a second, compact", `{"signatures":[{"protected":"A","signature":"B"}]}`, `{"signatures":[{"protected":"A","signature":"B"},{"protected":"P","signature":"S"}]}`},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, err := insertSignature([]byte(c.card), entry)
			if err != nil || string(got) != c.want {
				t.Errorf("got\n%s\nwant\n%s\n(%v)", got, c.want, err)
			}
		})
	}
}

// TestVerify_UnprotectedHeader: a signature entry's header member (the
// JWS Unprotected Header) was ignored, so a signature verified whatever
// it held. RFC 7515 section 7.2.1 makes it a JSON object whose names are
// not also in the protected header, and crit (section 4.1.11) and b64
// (RFC 7797 section 3) must be integrity protected.
func TestVerify_UnprotectedHeader(t *testing.T) {
	keys := testKeys(t)
	v := newVerifier(t, keys)
	ed := keys[0].priv.Key.(ed25519.PrivateKey)
	card := withEntry(t, `{"alg":"EdDSA","kid":"key-EdDSA","typ":"JOSE"}`, func(in []byte) []byte { return ed25519.Sign(ed, in) })
	for _, tc := range []struct {
		name, header string
		want         Status
		reason       string
	}{
		{"control: none", ``, Verified, ""},
		{"control: an unprotected name of its own", `{"x-note":"rotated"}`, Verified, ""},
		{"control: empty", `{}`, Verified, ""},
		{"not an object", `"kid"`, Invalid, "not a JSON object"},
		{"null", `null`, Invalid, "not a JSON object"},
		{"kid in both", `{"kid":"key-ES256"}`, Invalid, `"kid"`},
		{"alg in both", `{"alg":"none"}`, Invalid, `"alg"`},
		{"crit unprotected", `{"crit":["exp"]}`, Invalid, `"crit"`},
		{"b64 unprotected", `{"b64":false}`, Invalid, `"b64"`},
		{"escaped name in both", `{"\u006bid":"key-ES256"}`, Invalid, `"kid"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := card
			if tc.header != "" {
				c = []byte(strings.Replace(string(card), `"protected":`, `"header":`+tc.header+`,"protected":`, 1))
			}
			res, err := v.Verify(c)
			if err != nil {
				t.Fatal(err)
			}
			got := res.Signatures[0]
			if got.Status != tc.want || !strings.Contains(got.Reason, tc.reason) {
				t.Errorf("%s: got %v (%s), want %v with %q", c[strings.Index(string(c), `"signatures"`):], got.Status, got.Reason, tc.want, tc.reason)
			}
		})
	}
}

// TestSign_JKUAVerifierFollows: Sign wrote any jku into the header, one
// no verifier follows (not https, dot segments, user info) included;
// RFC 7515 section 4.1.2 has the key set fetched over TLS.
func TestSign_JKUAVerifierFollows(t *testing.T) {
	k := testKeys(t)[0]
	for _, jku := range []string{"http://keys.example/jwks.json", "javascript:alert(1)", "https://keys.example/a/../jwks.json",
		"https://user@keys.example/jwks.json", "https://keys.example/jwks.json#k", "/jwks.json", "https://keys.example/%2e%2e/jwks.json"} {
		if _, err := Sign([]byte(testCard), k.priv, SignOptions{Alg: k.alg, JKU: jku}); err == nil || !strings.Contains(err.Error(), "jku") {
			t.Errorf("jku %q: error %v, want one naming the jku", jku, err)
		}
	}
	if _, err := Sign([]byte(testCard), k.priv, SignOptions{Alg: k.alg, JKU: "https://keys.example/jwks.json?v=2"}); err != nil {
		t.Errorf("an https jku: %v", err)
	}
}

// TestVerify_ReasonsBounded: a reason quoted the header's kid, alg or jku
// whole, so a card of 12 signatures with a kid of 300 kB each gave 3.6 MB
// of findings and of verify's output. What a reason quotes of the card is
// cut, saying how long it was.
func TestVerify_ReasonsBounded(t *testing.T) {
	keys := testKeys(t)
	v := newVerifier(t, keys)
	ed := keys[0].priv.Key.(ed25519.PrivateKey)
	edSign := func(in []byte) []byte { return ed25519.Sign(ed, in) }
	long := strings.Repeat("K", 100_000)
	for _, header := range []string{
		`{"alg":"EdDSA","kid":"` + long + `"}`,
		`{"alg":"` + long + `","kid":"key-EdDSA"}`,
		`{"alg":"EdDSA","kid":"key-nobody","jku":"https://keys.example/` + long + `"}`,
	} {
		res, err := v.Verify(withEntry(t, header, edSign))
		if err != nil {
			t.Fatal(err)
		}
		r := res.Signatures[0].Reason
		if len(r) > 1000 {
			t.Errorf("a reason of %d bytes, want one that cuts what it quotes: %.120s", len(r), r)
		}
		if strings.Contains(r, "KKKK") && !strings.Contains(r, "(100000 bytes)") {
			t.Errorf("a reason that does not say how long the text it cut was: %.120s", r)
		}
	}
}
