package sign

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/go-jose/go-jose/v4"

	"github.com/cardscan/cardscan/cardsig"
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
		{"HMAC refused", []string{"--key", edPath, "--alg", "HS256", cardPath}, "", 3, "", "HS256"},
		{"no key", []string{cardPath}, "", 2, "", "--key is required"},
		{"two cards", []string{"--key", edPath, cardPath, cardPath}, "", 2, "", "exactly one card"},
		{"bad mode", []string{"--key", edPath, "--canonical", "sorted", cardPath}, "", 2, "", "--canonical"},
		{"missing card", []string{"--key", edPath, filepath.Join(dir, "nope.json")}, "", 3, "", "nope.json"},
		{"public key", []string{"--key", writeJSON(t, dir, "pub.jwk", edKey.Public()), cardPath}, "", 3, "", "not a private key"},
		{"not a card", []string{"--key", edPath, "-"}, `{"a":1,"a":2}`, 3, "", "duplicate"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var out, errb bytes.Buffer
			code := Run(tc.args, strings.NewReader(tc.stdin), &out, &errb)
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
