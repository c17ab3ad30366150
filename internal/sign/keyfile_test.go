package sign

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestKeyFileNotAKey: a --key file that is no signing key was reported in
// go-jose's words ("missing json web key type") or as a canonical form's
// byte offset; the error names the file, says in cardscan's words what is
// wrong with it (where, for text that is no JSON) and which keys --key
// reads.
func TestKeyFileNotAKey(t *testing.T) {
	dir := t.TempDir()
	cardPath := filepath.Join(dir, "card.json")
	if err := os.WriteFile(cardPath, []byte(card), 0o600); err != nil {
		t.Fatal(err)
	}
	const reads = "--key reads a private JWK, or a JWK Set holding one"
	for _, tc := range []struct {
		name, text, want string
	}{
		{"a card", card, `not a signing key: a JSON object with no "kty" member, which every JWK has`},
		{"pem", "-----BEGIN PRIVATE KEY-----\nMC4CAQAwBQYDK2VwBCIEIA==\n-----END PRIVATE KEY-----\n", "not a signing key: PEM text, which cardscan does not read"},
		{"text", "\n  hello\n", ":2:3: not a signing key: no JSON text"},
		{"empty", "", "not a signing key: the file is empty"},
		{"array", "[1]", "not a signing key: a JSON array, not a JWK object"},
		{"incomplete jwk", `{"kty":"OKP"}`, `not a signing key: its members make no whole key of kty "OKP"`},
		{"set", `{"keys":[{"a":1}]}`, `not a signing key: the JWK Set's key 0: a JSON object with no "kty" member, which every JWK has`},
		{"utf-16", "\xff\xfe{\x00}\x00", "UTF-16 (little-endian) text; cardscan reads UTF-8: iconv -f UTF-16 -t UTF-8"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			keyPath := filepath.Join(dir, "key.jwk")
			if err := os.WriteFile(keyPath, []byte(tc.text), 0o600); err != nil {
				t.Fatal(err)
			}
			code, out, stderr := runSign(t, "--key", keyPath, cardPath)
			if code != 3 || out != "" {
				t.Errorf("exit %d, %d bytes out; want 3 and none", code, len(out))
			}
			if want := "--key " + keyPath; !strings.Contains(stderr, want) || !strings.Contains(stderr, tc.want) {
				t.Errorf("stderr %q; want it to name %q and say %q", stderr, want, tc.want)
			}
			if tc.name != "utf-16" && !strings.Contains(stderr, reads) {
				t.Errorf("stderr %q does not say what --key reads", stderr)
			}
			if strings.Contains(stderr, "go-jose") || strings.Contains(stderr, "canon:") {
				t.Errorf("stderr %q speaks a library's words", stderr)
			}
		})
	}
}

// TestCardForeignEncoding: a UTF-16 card was refused as having no
// canonical form at offset 0; it is named with its encoding.
func TestCardForeignEncoding(t *testing.T) {
	dir := t.TempDir()
	code, _, stderr := runSign(t, "--generate-key", "EdDSA", "-o", filepath.Join(dir, "k.jwk"))
	if code != 0 {
		t.Fatal(stderr)
	}
	cardPath := filepath.Join(dir, "card.json")
	if err := os.WriteFile(cardPath, []byte("\xfe\xff\x00{\x00}"), 0o600); err != nil {
		t.Fatal(err)
	}
	code, out, stderr := runSign(t, "--key", filepath.Join(dir, "k.jwk"), cardPath)
	if want := cardPath + ": UTF-16 (big-endian) text; cardscan reads UTF-8: iconv -f UTF-16 -t UTF-8"; code != 3 || out != "" || !strings.Contains(stderr, want) {
		t.Errorf("exit %d, %d bytes out, stderr %q; want 3, none and %q", code, len(out), stderr, want)
	}
}
