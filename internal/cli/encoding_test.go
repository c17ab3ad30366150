package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestVerifyForeignEncoding: a UTF-16 card was said to have no canonical
// form at 1:1, as if its text were at fault; it is a card that cannot be
// read, named with its encoding (status 3), as validation says.
func TestVerifyForeignEncoding(t *testing.T) {
	dir := t.TempDir()
	var out, errb bytes.Buffer
	key := filepath.Join(dir, "k.jwk")
	if code := Run([]string{"sign", "--generate-key", "EdDSA", "-o", key}, nil, &out, &errb); code != 0 {
		t.Fatal(errb.String())
	}
	card := filepath.Join(dir, "card.json")
	os.WriteFile(card, []byte("\xff\xfe{\x00}\x00\n\x00"), 0o644)
	errb.Reset()
	code := Run([]string{"verify", "--keys", filepath.Join(dir, "k.pub.jwks"), card}, nil, &out, &errb)
	if want := card + ": UTF-16 (little-endian) text; cardscan reads UTF-8: iconv -f UTF-16 -t UTF-8"; code != 3 || !strings.Contains(errb.String(), want) {
		t.Errorf("exit %d, stderr %q; want 3 and %q", code, errb.String(), want)
	}
}

// TestProbeForeignEncoding: probe took a UTF-16 card file for a card with
// no interfaces, "0 interfaces of 1 card", status 0; it is an input that
// cannot be read, named with its encoding (status 3).
func TestProbeForeignEncoding(t *testing.T) {
	card := filepath.Join(t.TempDir(), "card.json")
	os.WriteFile(card, []byte("\xff\xfe{\x00}\x00\n\x00"), 0o644)
	var out, errb bytes.Buffer
	code := Run([]string{"probe", card}, nil, &out, &errb)
	if want := card + ": UTF-16 (little-endian) text; cardscan reads UTF-8: iconv -f UTF-16 -t UTF-8"; code != 3 || !strings.Contains(errb.String(), want) {
		t.Errorf("exit %d, stderr %q; want 3 and %q", code, errb.String(), want)
	}
}
