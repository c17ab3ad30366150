package sign

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/go-jose/go-jose/v4"

	"github.com/cardscan/cardscan/cardsig"
	"github.com/cardscan/cardscan/internal/cmderr"
	"github.com/cardscan/cardscan/internal/console"
)

const card = `{"name":"Agent","description":"","skills":[{"id":"a","name":"A","description":"d","tags":["t"]}]}`

func writeJSON(t *testing.T, dir, name string, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, b, 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestRun(t *testing.T) {
	dir := t.TempDir()
	_, ed, _ := ed25519.GenerateKey(rand.Reader)
	ec, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	edKey := jose.JSONWebKey{Key: ed, KeyID: "ed-1"}
	ecKey := jose.JSONWebKey{Key: ec}
	edPath := writeJSON(t, dir, "ed.jwk", edKey)
	ecPath := writeJSON(t, dir, "ec.jwk", ecKey)
	cardPath := filepath.Join(dir, "card.json")
	if err := os.WriteFile(cardPath, []byte(card), 0o600); err != nil {
		t.Fatal(err)
	}
	ks, err := cardsig.ParseKeySet(mustJSON(t, jose.JSONWebKeySet{Keys: []jose.JSONWebKey{edKey.Public(), withKid(ecKey.Public(), "ec-1")}}))
	if err != nil {
		t.Fatal(err)
	}

	for _, tc := range []struct {
		name     string
		args     []string
		stdin    string
		code     int
		signedBy string // "" when no card is written
		stderr   string
	}{
		{"EdDSA from a file", []string{"--key", edPath, cardPath}, "", 0, "ed-1", ""},
		{"flags after the card, stdin", []string{"-", "--key", ecPath, "--kid", "ec-1"}, card, 0, "ec-1", ""},
		{"drop-empty", []string{"--key", edPath, "--canonical", "drop-empty", cardPath}, "", 0, "", ""},
		{"no kid", []string{"--key", ecPath, cardPath}, "", 3, "", "no kid"},
		{"wrong alg for the key", []string{"--key", edPath, "--alg", "ES256", cardPath}, "", 3, "", "ES256"},
		{"HMAC refused", []string{"--key", edPath, "--alg", "HS256", cardPath}, "", 2, "", "HS256"},
		{"no key", []string{cardPath}, "", 2, "", "--key is required"},
		{"two cards", []string{"--key", edPath, cardPath, cardPath}, "", 2, "", "exactly one card"},
		{"bad mode", []string{"--key", edPath, "--canonical", "sorted", cardPath}, "", 2, "", "--canonical"},
		{"missing card", []string{"--key", edPath, filepath.Join(dir, "nope.json")}, "", 3, "", "nope.json"},
		{"public key", []string{"--key", writeJSON(t, dir, "pub.jwk", edKey.Public()), cardPath}, "", 3, "", "not a private key"},
		{"not a card", []string{"--key", edPath, "-"}, `{"a":1,"a":2}`, 3, "", "duplicate"},
		// Where a card has no canonical form is said as the CLI says where
		// a finding is: line and column (in characters), not a byte offset.
		{"not a card, where", []string{"--key", edPath, "-"}, "{\n  \"é\": 1,\n  \"é\": 2\n}\n", 3, "", "-:3:3: json.duplicate-key"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var out, errb bytes.Buffer
			code := cmderr.Exit(Run(tc.args, strings.NewReader(tc.stdin), &out, &errb), console.New(&errb))
			if code != tc.code {
				t.Fatalf("exit %d, want %d; stderr %s", code, tc.code, errb.String())
			}
			if !strings.Contains(errb.String(), tc.stderr) {
				t.Errorf("stderr %q does not say %q", errb.String(), tc.stderr)
			}
			if code != 0 {
				if out.Len() != 0 {
					t.Errorf("wrote %q on failure", out.String())
				}
				return
			}
			if !strings.HasPrefix(out.String(), strings.TrimSuffix(card, "}")) {
				t.Errorf("the card's bytes changed: %s", out.String())
			}
			if tc.signedBy == "" {
				return
			}
			v, _ := cardsig.NewVerifier(ks)
			res, err := v.Verify(out.Bytes())
			if err != nil || len(res.SignedBy) != 1 || res.SignedBy[0] != tc.signedBy {
				t.Errorf("signed card: %+v, %v", res, err)
			}
		})
	}
}

func withKid(k jose.JSONWebKey, kid string) jose.JSONWebKey { k.KeyID = kid; return k }

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func runSign(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	code = cmderr.Exit(Run(args, strings.NewReader(""), &out, &errb), console.New(&errb))
	return code, out.String(), errb.String()
}

// TestKeySet: --key may name a JWK Set, as key tools write them: its one
// private key signs, public keys beside it are passed over, --kid chooses
// among several; anything else is an error that says what the set holds.
func TestKeySet(t *testing.T) {
	dir := t.TempDir()
	_, ed, _ := ed25519.GenerateKey(rand.Reader)
	ec, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	edKey := jose.JSONWebKey{Key: ed, KeyID: "ed-1"}
	ecKey := jose.JSONWebKey{Key: ec, KeyID: "ec-1"}
	cardPath := filepath.Join(dir, "card.json")
	if err := os.WriteFile(cardPath, []byte(card), 0o600); err != nil {
		t.Fatal(err)
	}
	set := func(name string, keys ...jose.JSONWebKey) string {
		return writeJSON(t, dir, name, jose.JSONWebKeySet{Keys: keys})
	}
	one := set("one.jwks", edKey, ecKey.Public())
	two := set("two.jwks", edKey, ecKey)
	public := set("public.jwks", edKey.Public())
	pub, err := cardsig.ParseKeySet(mustJSON(t, jose.JSONWebKeySet{Keys: []jose.JSONWebKey{edKey.Public(), ecKey.Public()}}))
	if err != nil {
		t.Fatal(err)
	}
	v, _ := cardsig.NewVerifier(pub)
	for _, tc := range []struct {
		name     string
		args     []string
		code     int
		signedBy string
		stderr   string
	}{
		{"one private key and a public one", []string{"--key", one, cardPath}, 0, "ed-1", ""},
		{"--kid chooses", []string{"--key", two, "--kid", "ec-1", cardPath}, 0, "ec-1", ""},
		{"two private keys", []string{"--key", two, cardPath}, 3, "", `--key ` + two + `: the JWK Set holds 2 private keys ("ed-1", "ec-1"): choose one with --kid` + "\n"},
		{"no such kid", []string{"--key", two, "--kid", "rsa-1", cardPath}, 3, "", `the JWK Set holds no private key with kid "rsa-1" (its private keys: "ed-1", "ec-1")`},
		{"only public keys", []string{"--key", public, cardPath}, 3, "", "the JWK Set holds no private key, only public ones"},
		{"a set that is no set", []string{"--key", writeJSON(t, dir, "bad.jwks", map[string]any{"keys": []any{map[string]string{"kty": "nope"}}}), cardPath}, 3, "", `not a signing key: the JWK Set's key 0: kty "nope", which is no key type of JWK (OKP, EC, RSA)`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errOut := runSign(t, tc.args...)
			if code != tc.code || !strings.Contains(errOut, tc.stderr) {
				t.Fatalf("exit %d, stderr %q; want %d, %q", code, errOut, tc.code, tc.stderr)
			}
			if tc.signedBy == "" {
				return
			}
			res, err := v.Verify([]byte(out))
			if err != nil || len(res.SignedBy) != 1 || res.SignedBy[0] != tc.signedBy {
				t.Errorf("signed card: %+v, %v", res, err)
			}
		})
	}
}

// TestGenerateKey: --generate-key writes a private JWK only its owner can
// read and the public JWK Set beside it; the one signs a card the other
// verifies. No file is overwritten.
func TestGenerateKey(t *testing.T) {
	dir := t.TempDir()
	cardPath := filepath.Join(dir, "card.json")
	if err := os.WriteFile(cardPath, []byte(card), 0o600); err != nil {
		t.Fatal(err)
	}
	algs := []string{"EdDSA", "ES256", "ES384", "ES512", "PS256"}
	if testing.Short() {
		algs = algs[:2]
	}
	for _, alg := range algs {
		t.Run(alg, func(t *testing.T) {
			priv := filepath.Join(dir, alg+".jwk")
			code, out, errOut := runSign(t, "--generate-key", alg, "-o", priv)
			if code != 0 || out != "" || !strings.Contains(errOut, "public key set to "+filepath.Join(dir, alg+".pub.jwks")) {
				t.Fatalf("exit %d, stdout %q, stderr %q", code, out, errOut)
			}
			st, err := os.Stat(priv)
			if err != nil || st.Mode().Perm() != 0o600 {
				t.Fatalf("private key %v, %v; want mode 0600", st.Mode(), err)
			}
			pubText, err := os.ReadFile(filepath.Join(dir, alg+".pub.jwks"))
			if err != nil {
				t.Fatal(err)
			}
			if strings.Contains(string(pubText), `"d"`) {
				t.Fatalf("the public key set holds a private part:\n%s", pubText)
			}
			ks, err := cardsig.ParseKeySet(pubText)
			if err != nil {
				t.Fatal(err)
			}
			code, signed, errOut := runSign(t, "--key", priv, cardPath)
			if code != 0 {
				t.Fatalf("signing with the new key: exit %d, %s", code, errOut)
			}
			v, _ := cardsig.NewVerifier(ks)
			res, err := v.Verify([]byte(signed))
			if err != nil || len(res.SignedBy) != 1 {
				t.Fatalf("verifying with the public set: %+v, %v", res, err)
			}
			if h := strings.Split(signed, `"protected":"`)[1]; !strings.Contains(decodeB64(t, h[:strings.IndexByte(h, '"')]), `"alg":"`+alg+`"`) {
				t.Errorf("the signature is not %s", alg)
			}
			// Again to the same file: refused, the key kept.
			before, _ := os.ReadFile(priv)
			if code, _, errOut := runSign(t, "--generate-key", alg, "-o", priv); code != 3 || !strings.Contains(errOut, "exists") {
				t.Errorf("overwriting: exit %d, %q", code, errOut)
			}
			if after, _ := os.ReadFile(priv); !bytes.Equal(before, after) {
				t.Error("the private key was overwritten")
			}
		})
	}
	for _, tc := range []struct {
		args   []string
		stderr string
	}{
		{[]string{"--generate-key", "EdDSA"}, "--generate-key needs -o FILE"},
		{[]string{"--generate-key", "HS256", "-o", filepath.Join(dir, "h.jwk")}, `--generate-key "HS256": want one of EdDSA, ES256`},
		{[]string{"--generate-key", "EdDSA", "-o", filepath.Join(dir, "x.jwk"), cardPath}, "signs nothing"},
		{[]string{"--key", "k.jwk", "-o", "out.json", cardPath}, "-o is for --generate-key"},
	} {
		if code, _, errOut := runSign(t, tc.args...); code != 2 || !strings.Contains(errOut, tc.stderr) {
			t.Errorf("%q: exit %d, stderr %q; want 2, %q", tc.args, code, errOut, tc.stderr)
		}
	}
}

func decodeB64(t *testing.T, s string) string {
	t.Helper()
	b, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestRunBlamesTheOption: a jku no verifier follows (javascript:, http,
// dot segments) was signed into the header; an --alg no card signature
// takes, or one the key cannot make, was reported as a fault of the card
// ("card.json: cardsig: ..."). The flag at fault is named, before the
// card is read.
func TestRunBlamesTheOption(t *testing.T) {
	dir := t.TempDir()
	_, ed, _ := ed25519.GenerateKey(rand.Reader)
	ec, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	edPath := writeJSON(t, dir, "ed.jwk", jose.JSONWebKey{Key: ed, KeyID: "ed-1"})
	ecPath := writeJSON(t, dir, "ec.jwk", jose.JSONWebKey{Key: ec})
	cardPath := filepath.Join(dir, "card.json")
	if err := os.WriteFile(cardPath, []byte(card), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name   string
		args   []string
		code   int
		stderr string
	}{
		{"HMAC", []string{"--key", edPath, "--alg", "HS256", cardPath}, 2, `--alg "HS256"`},
		{"none", []string{"--key", edPath, "--alg", "none", cardPath}, 2, `--alg "none"`},
		{"javascript jku", []string{"--key", edPath, "--jku", "javascript:alert(1)", cardPath}, 2, `--jku "javascript:alert(1)"`},
		{"http jku", []string{"--key", edPath, "--jku", "http://keys.example/jwks.json", cardPath}, 2, "--jku "},
		{"jku with dot segments", []string{"--key", edPath, "--jku", "https://keys.example/a/../jwks.json", cardPath}, 2, "--jku "},
		{"jku with a control character", []string{"--key", edPath, "--jku", "https://keys.example/\x1b[31m", cardPath}, 2, `--jku "https://keys.example/\x1b[31m"`},
		{"alg the key cannot make", []string{"--key", edPath, "--alg", "ES256", cardPath}, 3, "--key " + edPath + ": "},
		{"no kid", []string{"--key", ecPath, cardPath}, 3, "--key " + ecPath + ": "},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, stdout, stderr := runSign(t, tc.args...)
			if code != tc.code || !strings.Contains(stderr, tc.stderr) || strings.Contains(stderr, cardPath+":") || stdout != "" {
				t.Errorf("exit %d, stderr %q; want %d naming %q and not the card", code, stderr, tc.code, tc.stderr)
			}
		})
	}
	code, stdout, stderr := runSign(t, "--key", edPath, "--jku", "https://keys.example/jwks.json?v=2", cardPath)
	if code != 0 || !strings.Contains(decodeB64(t, protectedOf(t, stdout)), `"jku":"https://keys.example/jwks.json?v=2"`) {
		t.Errorf("an https jku: exit %d, stderr %q, card %s", code, stderr, stdout)
	}
}

// protectedOf is the protected member of the last signature of a card.
func protectedOf(t *testing.T, signed string) string {
	t.Helper()
	var c struct {
		Signatures []struct {
			Protected string `json:"protected"`
		} `json:"signatures"`
	}
	if err := json.Unmarshal([]byte(signed), &c); err != nil || len(c.Signatures) == 0 {
		t.Fatalf("no signature in %q: %v", signed, err)
	}
	return c.Signatures[len(c.Signatures)-1].Protected
}
