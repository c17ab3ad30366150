package fetch

import (
	"crypto/ed25519"
	"crypto/rand"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/go-jose/go-jose/v4"

	"github.com/cardscan/cardscan/cardsig"
	"github.com/cardscan/cardscan/internal/summary"
)

// TestFetch_SignatureBoundToTheFetchedOrigin: a card whose interfaces
// are on site A, signed by the key pinned for A, verifies when fetched
// from A; the same bytes served by site B are untrusted-origin, since B's
// origin may not be signed for by A's key. The summary counts both.
func TestFetch_SignatureBoundToTheFetchedOrigin(t *testing.T) {
	pagesA, pagesB := map[string]page{}, map[string]page{}
	_, srvA := newTLSSite(t, pagesA)
	_, srvB := newTLSSite(t, pagesB)
	originA, err := cardsig.Origin(srvA.URL)
	if err != nil {
		t.Fatal(err)
	}

	_, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	key := jose.JSONWebKey{Key: priv, KeyID: "a-2026", Algorithm: "EdDSA", Use: "sig"}
	dir := t.TempDir()
	set, err := json.Marshal(jose.JSONWebKeySet{Keys: []jose.JSONWebKey{key.Public()}})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "a.jwks"), set, 0o600); err != nil {
		t.Fatal(err)
	}
	trust := filepath.Join(dir, "trust.yaml")
	if err := os.WriteFile(trust, []byte("origins:\n  "+originA+":\n    keys: a.jwks\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	card := `{"name":"Geo","description":"Plans routes.","version":"1.2.0",` +
		`"supportedInterfaces":[{"url":"` + srvA.URL + `/a2a","protocolBinding":"JSONRPC","protocolVersion":"1.0"}],` +
		`"capabilities":{"streaming":true},"defaultInputModes":["text/plain"],"defaultOutputModes":["application/json"],` +
		`"skills":[{"id":"route","name":"Route","description":"Finds a route","tags":["maps"]}]}`
	signed, err := cardsig.Sign([]byte(card), key, cardsig.SignOptions{})
	if err != nil {
		t.Fatal(err)
	}
	pagesA["/.well-known/agent-card.json"] = page{body: string(signed)}
	pagesB["/.well-known/agent-card.json"] = page{body: string(signed)}

	sumPath := filepath.Join(dir, "summary.json")
	_, out, stderr := runFetch(t, trusting(srvA), "--trust", trust, "--now", "2026-03-01T00:00:00Z",
		"--format", "jsonl", "--all", "--summary", sumPath, srvA.URL, srvB.URL)
	recs := decodeRecords(t, out)
	if len(recs) != 2 {
		t.Fatalf("got %d records, want 2\n%s\n%s", len(recs), out, stderr)
	}
	if a := recs[0]; !a.Valid || len(a.Errors) != 0 || len(a.SignedBy) != 1 || a.SignedBy[0] != "a-2026" {
		t.Errorf("from its own origin: got valid %v, errors %v, signed_by %v; want valid, signed by a-2026", a.Valid, a.Errors, a.SignedBy)
	}
	originB, _ := cardsig.Origin(srvB.URL)
	b := recs[1]
	if b.Valid || len(b.Errors) != 1 || b.Errors[0].Rule != "a2a.signature-untrusted-origin" ||
		b.Errors[0].Message != "signed by a key of "+originA+", not allowed for "+originB || len(b.SignedBy) != 0 {
		t.Errorf("from another origin: got valid %v, errors %+v, signed_by %v; want a2a.signature-untrusted-origin naming %s and %s",
			b.Valid, b.Errors, b.SignedBy, originA, originB)
	}

	data, err := os.ReadFile(sumPath)
	if err != nil {
		t.Fatal(err)
	}
	var sum summary.Summary
	if err := json.Unmarshal(data, &sum); err != nil {
		t.Fatal(err)
	}
	s := sum.Signatures
	if s == nil || s.Signed != 2 || s.Verified != 1 || s.Findings != 1 ||
		s.Outcomes["verified"] != 1 || s.Outcomes["untrusted-origin"] != 1 || len(s.Outcomes) != 2 {
		t.Errorf("summary signatures: got %+v, want 2 signed, 1 verified, 1 finding, outcomes verified 1 and untrusted-origin 1", s)
	}
}

// TestFetch_SignatureFlagErrors: the signature flags are checked as the
// scan command checks them, before anything is fetched.
func TestFetch_SignatureFlagErrors(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--signatures", "require"}, "--signatures require needs trusted keys"},
		{[]string{"--canonical", "sorted"}, `--canonical "sorted": want as-is or drop-empty`},
		{[]string{"--trust", filepath.Join(t.TempDir(), "absent.yaml")}, "absent.yaml: no such file"},
	} {
		code, _, stderr := runFetch(t, nil, append(tc.args, "https://a.example/")...)
		if code != 2 || !strings.Contains(stderr, tc.want) {
			t.Errorf("%q: got exit %d %q, want exit 2 saying %q", tc.args, code, stderr, tc.want)
		}
	}
}
