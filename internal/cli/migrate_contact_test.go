package cli

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cardscan/cardscan/cardsig"
)

// TestMigrateEmptyFrom: --from= (a variable left unset) was taken for
// --from auto and the run went on as if the flag had not been given.
func TestMigrateEmptyFrom(t *testing.T) {
	path := filepath.Join(t.TempDir(), "agent.json")
	os.WriteFile(path, migrateCard(t), 0o644)
	var out, errb bytes.Buffer
	code := Run([]string{"migrate", "--to", "a2a/1.0", "--from=", path}, nil, &out, &errb)
	if want := `--from "": want auto, a2a/0.2, a2a/0.3 or a2a/1.0`; code != 2 || !strings.Contains(errb.String(), want) || out.Len() != 0 {
		t.Errorf("--from=: exit %d, stderr %q, %d bytes out; want 2, %s and nothing written", code, errb.String(), out.Len(), want)
	}
}

// TestMigrateSameInputTwice: one card file named twice (again, or by a
// link) was migrated twice, two cards out of one; with --write, the file
// was rewritten twice. It is a usage error naming both, as for validation.
func TestMigrateSameInputTwice(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "agent.json")
	os.WriteFile(path, migrateCard(t), 0o644)
	link := filepath.Join(dir, "link.json")
	if err := os.Symlink(path, link); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{path, path}, {path, link}, {"--write", path, link}} {
		var out, errb bytes.Buffer
		code := Run(append([]string{"migrate", "--to", "a2a/1.0"}, args...), nil, &out, &errb)
		second := args[len(args)-1]
		if want := path + " and " + second + " are the same file"; code != 2 || !strings.Contains(errb.String(), want) || out.Len() != 0 {
			t.Errorf("%q: exit %d, stderr %q, %d bytes out; want 2, %q and nothing written", args, code, errb.String(), out.Len(), want)
		}
	}
	if b, _ := os.ReadFile(path); !bytes.Equal(b, migrateCard(t)) {
		t.Errorf("the card file changed:\n%s", b)
	}
}

// TestMigrateBinaryCardNotCopied: a refused card file that is no text (a
// NUL byte, or bytes that are no UTF-8) was copied to standard output as
// it was, alone; a refused card that is text still is, as a filter
// passes what it cannot change.
func TestMigrateBinaryCardNotCopied(t *testing.T) {
	dir := t.TempDir()
	for _, data := range [][]byte{
		{0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n', 0, 0, 0, 0x0d},
		{'{', 0xc3, 0x28, '}', '\n'},
	} {
		path := filepath.Join(dir, "card.json")
		os.WriteFile(path, data, 0o644)
		var out, errb bytes.Buffer
		code := Run([]string{"migrate", "--to", "a2a/1.0", path}, nil, &out, &errb)
		if code != 1 || out.Len() != 0 || !strings.Contains(errb.String(), path+": refused: migrate.unsupported") {
			t.Errorf("%q: exit %d, stdout %q, stderr %q; want 1, nothing on stdout and the refusal", data, code, out.String(), errb.String())
		}
	}
}

// TestMigrateForeignEncoding: a UTF-16 card file was refused as a syntax
// error at a byte 0xFF and copied out as it was; it is an input that
// cannot be read, named with its encoding (exit status 3).
func TestMigrateForeignEncoding(t *testing.T) {
	path := filepath.Join(t.TempDir(), "agent.json")
	os.WriteFile(path, []byte("\xff\xfe{\x00\n\x00}\x00\n\x00"), 0o644)
	var out, errb bytes.Buffer
	code := Run([]string{"migrate", "--to", "a2a/1.0", path}, nil, &out, &errb)
	if want := path + ": UTF-16 (little-endian) text; cardscan reads UTF-8: iconv -f UTF-16 -t UTF-8"; code != 3 || out.Len() != 0 || !strings.Contains(errb.String(), want) {
		t.Errorf("exit %d, stdout %q, stderr %q; want 3, nothing on stdout and %q", code, out.String(), errb.String(), want)
	}
}

// TestMigrateKeyNotAKey: migrate --key given a file that is no signing
// key (a card, here) said go-jose's "missing json web key type"; it says
// what sign says: what the file is and which keys --key reads.
func TestMigrateKeyNotAKey(t *testing.T) {
	path := filepath.Join(t.TempDir(), "agent.json")
	os.WriteFile(path, migrateCard(t), 0o644)
	var out, errb bytes.Buffer
	code := Run([]string{"migrate", "--to", "a2a/1.0", "--key", path, path}, nil, &out, &errb)
	want := "--key " + path + `: not a signing key: a JSON object with no "kty" member, which every JWK has; --key reads a private JWK`
	if code != 2 || out.Len() != 0 || !strings.Contains(errb.String(), want) || strings.Contains(errb.String(), "go-jose") {
		t.Errorf("exit %d, %d bytes out, stderr %q; want 2, none and %q", code, out.Len(), errb.String(), want)
	}
}

// TestMigrateKeyThatCannotSign: migrate --key with a key that cannot
// sign (no kid; one of another algorithm than --kid's key set names)
// dropped each signed card's signatures, signed nothing, and exited 0,
// the failure said only in a record. It is a usage error naming --key,
// before any card is read.
func TestMigrateKeyThatCannotSign(t *testing.T) {
	dir := t.TempDir()
	f := newSigFixture(t)
	signed := writeFile(t, filepath.Join(dir, "signed.json"), []byte(f.sign(t, string(compact(migrateCard(t))), f.k1, cardsig.SignOptions{})))
	noKid := f.k1
	noKid.KeyID = ""
	keyPath := writeFile(t, filepath.Join(dir, "nokid.jwk"), mustJSONText(t, noKid))
	var out, errb bytes.Buffer
	code := Run([]string{"migrate", "--to", "a2a/1.0", "--key", keyPath, signed}, nil, &out, &errb)
	if want := "--key " + keyPath + ": the key has no kid"; code != 2 || out.Len() != 0 || !strings.Contains(errb.String(), want) {
		t.Errorf("exit %d, %d bytes out, stderr %q; want 2, nothing written and %q", code, out.Len(), errb.String(), want)
	}
}

func mustJSONText(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
