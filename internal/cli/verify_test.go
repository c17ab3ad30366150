package cli

import (
	"encoding/base64"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cardscan/cardscan/cardsig"
	"github.com/cardscan/cardscan/fastvalidate/canon"
)

// TestVerifyExplain checks that --explain names the variant a card was
// signed over, and the first byte an edited card differs at from the
// copy that was signed.
func TestVerifyExplain(t *testing.T) {
	f := newSigFixture(t)
	card := strings.Replace(a2aCard, `"capabilities":{"streaming":true}`, `"capabilities":{},"iconUrl":""`, 1)
	signed := f.sign(t, card, f.k1, cardsig.SignOptions{Mode: canon.DropEmpty})
	signedPath := writeFile(t, filepath.Join(f.dir, "signed.json"), []byte(signed))

	r := run(t, "", "verify", "--explain", "--keys", f.keys, signedPath)
	for _, want := range []string{
		`signatures/0: invalid: signature does not verify with key "k1"`,
		`protected header: {"alg":"EdDSA","kid":"k1","typ":"JOSE"}`,
		`key: kid "k1" is in the trusted key set (any origin)`,
		"signed over: drop-empty, a2a-js@1.3.0",
		"first difference from the as-is form served: at byte 2:",
	} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("--explain lacks %q:\n%s", want, r.stdout)
		}
	}
	if r.code != 1 {
		t.Errorf("exit %d, want 1 (as-is does not verify)", r.code)
	}
	if r := run(t, "", "verify", "--canonical", "drop-empty", "--keys", f.keys, signedPath); r.code != 0 || !strings.Contains(r.stdout, "signatures/0: verified") {
		t.Errorf("--canonical drop-empty: exit %d\n%s", r.code, r.stdout)
	}

	edited := writeFile(t, filepath.Join(f.dir, "edited.json"), []byte(strings.Replace(signed, `"Plans routes"`, `"Plans roads"`, 1)))
	r = run(t, "", "verify", "--explain", "--keys", f.keys, "--signed-copy", signedPath, edited)
	for _, want := range []string{
		"signed over: none of the variants",
		`--signed-copy: signatures/0 verifies over its drop-empty form; the served card's drop-empty form first differs at byte 101: signed "Plans routes\",\"name\":\"Route Plan", served "Plans roads\",\"name\":\"Route Plann"`,
	} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("--explain of an edited card lacks %q:\n%s", want, r.stdout)
		}
	}
	if r := run(t, "", "verify", signedPath); r.code != 2 || !strings.Contains(r.stderr, "no trusted keys") {
		t.Errorf("verify without keys: exit %d %s", r.code, r.stderr)
	}
}

// TestVerifyExplainCardTextShown: what --explain prints from the card (a
// protected header that is not JSON, the canonical forms) cannot send a
// terminal escape sequences, forge a line of cardscan's own, or reorder
// a line with a bidi control.
func TestVerifyExplainCardTextShown(t *testing.T) {
	f := newSigFixture(t)
	header := base64.RawURLEncoding.EncodeToString([]byte("\x1b[2J{\"alg\":\"EdDSA\"}\ncardscan: x.json: signatures/0: verified"))
	card := `{"name":"a\u202eb\u0085c","signatures":[{"protected":"` + header + `","signature":"AAAA"}]}`
	path := writeFile(t, filepath.Join(f.dir, "card.json"), []byte(card))
	r := run(t, "", "verify", "--explain", "--keys", f.keys, path)
	for _, bad := range []string{"\x1b", "\ncardscan:", "\u202e", "\u0085"} {
		if strings.Contains(r.stdout, bad) {
			t.Errorf("--explain wrote %q as it is:\n%s", bad, r.stdout)
		}
	}
	for _, want := range []string{`protected header: \x1b[2J{"alg":"EdDSA"}\x0acardscan:`, `{"name":"a<U+202E>b\u0085c"}`} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("--explain lacks %q:\n%s", want, r.stdout)
		}
	}
}

// TestVerifyNoCanonicalFormWhere: a card that has no canonical form is
// named with the line and column of the fault, as a finding would be.
func TestVerifyNoCanonicalFormWhere(t *testing.T) {
	f := newSigFixture(t)
	path := writeFile(t, filepath.Join(f.dir, "dup.json"), []byte("{\n  \"name\": \"x\",\n  \"a\": 1,\n  \"a\": 2\n}\n"))
	r := run(t, "", "verify", "--keys", f.keys, path)
	if r.code != 1 || !strings.Contains(r.stderr, path+":4:3: ") || !strings.Contains(r.stderr, "json.duplicate-key") {
		t.Errorf("exit %d, stderr %q; want the fault at %s:4:3", r.code, r.stderr, path)
	}
}

// TestKeySetFaultWhere: a key set that is no strict JSON is named with
// the line and column of the fault, for validation and verify alike.
func TestKeySetFaultWhere(t *testing.T) {
	dir := t.TempDir()
	keys := writeFile(t, filepath.Join(dir, "keys.jwks"), []byte("{\n  \"keys\": [],\n  \"keys\": []\n}\n"))
	card := writeFile(t, filepath.Join(dir, "card.json"), []byte(a2aCard))
	for _, args := range [][]string{{"-q", "--keys", keys, card}, {"verify", "--keys", keys, card}} {
		r := run(t, "", args...)
		if r.code != exitUsage || !strings.Contains(r.stderr, "--keys "+keys+":3:3: ") || !strings.Contains(r.stderr, "json.duplicate-key") {
			t.Errorf("%v: exit %d, stderr %q; want the fault at %s:3:3", args, r.code, r.stderr, keys)
		}
	}
}

// TestVerifyFromChecked: a --from that is no URL with an origin was read
// only when a trust policy asked for origins, and then reported as a
// fault of the card (exit 1, "card.json: fetched from ..."); with --keys
// alone it was ignored. It is a usage error naming the flag.
func TestVerifyFromChecked(t *testing.T) {
	f := newSigFixture(t)
	path := writeFile(t, filepath.Join(f.dir, "signed.json"), []byte(f.sign(t, a2aCard, f.k1, cardsig.SignOptions{})))
	for _, from := range []string{"javascript:alert(1)", "https://a\x1b[31m.example/", "/relative", "https://a.example:99999/"} {
		r := run(t, "", "verify", "--keys", f.keys, "--from", from, path)
		if r.code != exitUsage || !strings.Contains(r.stderr, "--from ") {
			t.Errorf("--from %q: exit %d, stderr %q; want a usage error naming --from", from, r.code, r.stderr)
		}
	}
	if r := run(t, "", "verify", "--keys", f.keys, "--from", "https://a.example/card.json", path); r.code != exitOK {
		t.Errorf("a good --from: exit %d, stderr %q", r.code, r.stderr)
	}
}

// TestVerifySignedCopyFaultWhere: a --signed-copy with no canonical form
// was said by byte offset ("json.duplicate-key at offset 7"), where the
// card's own fault is said by line and column.
func TestVerifySignedCopyFaultWhere(t *testing.T) {
	f := newSigFixture(t)
	card := writeFile(t, filepath.Join(f.dir, "signed.json"), []byte(f.sign(t, a2aCard, f.k1, cardsig.SignOptions{})))
	copyPath := writeFile(t, filepath.Join(f.dir, "copy.json"), []byte("{\n  \"é\": 1,\n  \"é\": 2\n}\n"))
	r := run(t, "", "verify", "--explain", "--keys", f.keys, "--signed-copy", copyPath, card)
	if want := "--signed-copy " + copyPath + ":3:3: json.duplicate-key: "; !strings.Contains(r.stdout, want) || strings.Contains(r.stdout, "offset") {
		t.Errorf("exit %d, stdout %q; want %q", r.code, r.stdout, want)
	}
}
