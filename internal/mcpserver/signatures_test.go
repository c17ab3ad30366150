package mcpserver_test

import (
	"bytes"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/go-jose/go-jose/v4"

	"github.com/cardscan/cardscan/cardsig"
	"github.com/cardscan/cardscan/fastvalidate/canon"
	"github.com/cardscan/cardscan/internal/cli"
	"github.com/cardscan/cardscan/internal/mcpserver"
)

func TestVerifySignatures(t *testing.T) {
	_, priv, _ := ed25519.GenerateKey(rand.Reader)
	_, other, _ := ed25519.GenerateKey(rand.Reader)
	key := jose.JSONWebKey{Key: priv, KeyID: "k1"}
	otherKey := jose.JSONWebKey{Key: other, KeyID: "k2"}
	jwks, _ := json.Marshal(jose.JSONWebKeySet{Keys: []jose.JSONWebKey{key.Public()}})
	otherJWKS, _ := json.Marshal(jose.JSONWebKeySet{Keys: []jose.JSONWebKey{otherKey.Public()}})
	serverKeys, err := cardsig.ParseKeySet(otherJWKS)
	if err != nil {
		t.Fatal(err)
	}

	card := []byte(a2aCard)
	signed, err := cardsig.Sign(card, key, cardsig.SignOptions{})
	if err != nil {
		t.Fatal(err)
	}
	// A signature naming, in its header, a key set at a URL: never
	// followed, so it verifies with the caller's keys or not at all.
	withJKU, err := cardsig.Sign(card, otherKey, cardsig.SignOptions{JKU: "https://attacker.example/jwks.json"})
	if err != nil {
		t.Fatal(err)
	}
	tampered := bytes.Replace(signed, []byte(`"Echoes"`), []byte(`"Echoed"`), 1)
	dup := bytes.Replace(signed, []byte(`{"protocolVersion"`), []byte(`{"name":"Echo","protocolVersion"`), 1)
	dropEmpty, err := cardsig.Sign([]byte(strings.Replace(a2aCard, `"capabilities":{}`, `"capabilities":{},"extensions":[]`, 1)), key, cardsig.SignOptions{Mode: canon.DropEmpty})
	if err != nil {
		t.Fatal(err)
	}

	type want struct {
		verified bool
		keys     string
		statuses string // the signatures' statuses, space-separated
		reason   string
	}
	for _, tc := range []struct {
		name string
		cfg  mcpserver.Config
		args map[string]any
		want want
	}{
		{"signed, caller's keys", mcpserver.Config{}, map[string]any{"card": json.RawMessage(signed), "jwks": json.RawMessage(jwks)}, want{true, "argument", "verified", ""}},
		{"signed, text and keys as strings", mcpserver.Config{}, map[string]any{"card": string(signed), "jwks": string(jwks)}, want{true, "argument", "verified", ""}},
		{"signed, server's keys", mcpserver.Config{Keys: serverKeys}, map[string]any{"card": json.RawMessage(signed)}, want{false, "server", "key-unknown", ""}},
		{"the caller's keys replace the server's", mcpserver.Config{Keys: serverKeys}, map[string]any{"card": json.RawMessage(signed), "jwks": json.RawMessage(jwks)}, want{true, "argument", "verified", ""}},
		{"changed after signing", mcpserver.Config{}, map[string]any{"card": json.RawMessage(tampered), "jwks": json.RawMessage(jwks)}, want{false, "argument", "invalid", ""}},
		{"jku in the header is not followed", mcpserver.Config{}, map[string]any{"card": json.RawMessage(withJKU), "jwks": json.RawMessage(jwks)}, want{false, "argument", "key-unknown", ""}},
		{"not signed", mcpserver.Config{}, map[string]any{"card": json.RawMessage(card), "jwks": json.RawMessage(jwks)}, want{false, "argument", "", ""}},
		{"duplicate member", mcpserver.Config{}, map[string]any{"card": json.RawMessage(dup), "jwks": json.RawMessage(jwks)}, want{false, "argument", "", "canonical form"}},
		{"drop-empty signer, as-is verifier", mcpserver.Config{}, map[string]any{"card": json.RawMessage(dropEmpty), "jwks": json.RawMessage(jwks)}, want{false, "argument", "invalid", ""}},
		{"drop-empty signer and verifier", mcpserver.Config{}, map[string]any{"card": json.RawMessage(dropEmpty), "jwks": json.RawMessage(jwks), "canonical": "drop-empty"}, want{true, "argument", "verified", ""}},
	} {
		cs := connect(t, tc.cfg)
		m := structured(t, call(t, cs, "verify_signatures", tc.args))
		var statuses []string
		for _, s := range m["signatures"].([]any) {
			statuses = append(statuses, s.(map[string]any)["status"].(string))
		}
		reason, _ := m["reason"].(string)
		got := want{m["verified"].(bool), m["keys"].(string), strings.Join(statuses, " "), ""}
		if tc.want.reason != "" && strings.Contains(reason, tc.want.reason) {
			got.reason = tc.want.reason
		}
		if got != tc.want {
			t.Errorf("%s: got %+v, want %+v (%v)", tc.name, got, tc.want, m)
		}
	}

	cs := connect(t, mcpserver.Config{MaxRecord: 64})
	for _, tc := range []struct {
		args map[string]any
		want string
	}{
		{map[string]any{"card": json.RawMessage(card)}, "no keys to trust: pass them as jwks"},
		{map[string]any{"card": json.RawMessage(`{}`), "jwks": `{"keys":[{"kty":"oct","k":"c2VjcmV0","kid":"h"}]}`}, `argument "jwks": `},
		{map[string]any{"card": json.RawMessage(`{}`), "jwks": strings.Repeat(" ", 300<<10) + "{}"}, `argument "jwks": 307202 bytes, more than the 262144`},
		{map[string]any{"card": json.RawMessage(card), "jwks": json.RawMessage(jwks)}, "more than the server's limit of 64 (--max-record)"},
		{map[string]any{"card": json.RawMessage(`{}`), "jwks": json.RawMessage(jwks), "canonical": "jcs"}, `argument "canonical": "jcs": want as-is or drop-empty`},
		{map[string]any{"jwks": json.RawMessage(jwks)}, `missing argument "card"`},
	} {
		res := call(t, cs, "verify_signatures", tc.args)
		if !res.IsError || !strings.Contains(text(res), tc.want) {
			t.Errorf("%.80v: got error=%v %q, want %q", tc.args, res.IsError, text(res), tc.want)
		}
	}
}

func TestKeysFlag(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.json")
	os.WriteFile(bad, []byte(`{"keys":[{"kty":"OKP"}]}`), 0o644)
	for _, tc := range []struct {
		path, want string
	}{
		{filepath.Join(dir, "missing.json"), "no such file or directory"},
		{bad, "--keys " + bad + ": "},
	} {
		var errOut bytes.Buffer
		if st := cli.Run([]string{"mcp", "--keys", tc.path}, strings.NewReader(""), &bytes.Buffer{}, &errOut); st != 3 || !strings.Contains(errOut.String(), tc.want) {
			t.Errorf("--keys %s: status %d, %q; want 3 and %q", tc.path, st, errOut.String(), tc.want)
		}
	}
}

// TestValidateCardVerifiesWithServerKeys: a server started with --keys
// verifies the signatures of the cards validate_card judges, as cardscan
// --keys does (and serve with --keys): the same record, signature
// findings, signedBy and signers included. validate_card used to verify
// nothing, so a tampered card read valid.
func TestValidateCardVerifiesWithServerKeys(t *testing.T) {
	_, priv, _ := ed25519.GenerateKey(rand.Reader)
	_, other, _ := ed25519.GenerateKey(rand.Reader)
	key := jose.JSONWebKey{Key: priv, KeyID: "k1"}
	jwks, _ := json.Marshal(jose.JSONWebKeySet{Keys: []jose.JSONWebKey{key.Public()}})
	keys, err := cardsig.ParseKeySet(jwks)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	keysPath := filepath.Join(dir, "keys.jwks")
	if err := os.WriteFile(keysPath, jwks, 0o644); err != nil {
		t.Fatal(err)
	}
	signed, err := cardsig.Sign([]byte(a2aCard), key, cardsig.SignOptions{})
	if err != nil {
		t.Fatal(err)
	}
	byOther, err := cardsig.Sign([]byte(a2aCard), jose.JSONWebKey{Key: other, KeyID: "k2"}, cardsig.SignOptions{})
	if err != nil {
		t.Fatal(err)
	}
	tampered := bytes.Replace(signed, []byte(`"Echoes"`), []byte(`"Echoed"`), 1)
	cs := connect(t, mcpserver.Config{Keys: keys})
	for _, tc := range []struct {
		name  string
		card  []byte
		valid bool
	}{
		{"signed", signed, true},
		{"signed by another key", byOther, true}, // a2a.signature-key-unknown, a warning
		{"changed after signing", tampered, false},
	} {
		path := filepath.Join(dir, "card.ndjson")
		if err := os.WriteFile(path, append(bytes.Clone(tc.card), '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
		want := cliRecords(t, "--input", "ndjson", "--keys", keysPath, path)
		got := structured(t, call(t, cs, "validate_card", map[string]any{"card": json.RawMessage(tc.card)}))
		got["input"] = want[0]["input"]
		if !reflect.DeepEqual(got, want[0]) {
			t.Errorf("%s:\n got %v\nwant %v", tc.name, got, want[0])
		}
		if got["valid"] != tc.valid {
			t.Errorf("%s: valid %v, want %v", tc.name, got["valid"], tc.valid)
		}
	}
}

// TestFetchCardVerifiesWithServerKeys: a server started with --keys
// verifies the signatures of the cards fetch_card fetches, as validate_card
// does and as cardscan fetch --keys does: the same record. fetch_card
// used to verify nothing, so a card changed after signing read valid.
func TestFetchCardVerifiesWithServerKeys(t *testing.T) {
	_, priv, _ := ed25519.GenerateKey(rand.Reader)
	key := jose.JSONWebKey{Key: priv, KeyID: "k1"}
	jwks, _ := json.Marshal(jose.JSONWebKeySet{Keys: []jose.JSONWebKey{key.Public()}})
	keys, err := cardsig.ParseKeySet(jwks)
	if err != nil {
		t.Fatal(err)
	}
	keysPath := filepath.Join(t.TempDir(), "keys.jwks")
	if err := os.WriteFile(keysPath, jwks, 0o644); err != nil {
		t.Fatal(err)
	}
	signed, err := cardsig.Sign([]byte(a2aCard), key, cardsig.SignOptions{})
	if err != nil {
		t.Fatal(err)
	}
	tampered := bytes.Replace(signed, []byte(`"Echoes"`), []byte(`"Echoed"`), 1)
	cs := connect(t, mcpserver.Config{Keys: keys, AllowPrivate: true})
	for _, tc := range []struct {
		name  string
		card  []byte
		valid bool
	}{
		{"signed", signed, true},
		{"changed after signing", tampered, false},
	} {
		srv := cardServer(t, string(tc.card), nil)
		var out, errOut bytes.Buffer
		if st := cli.Run([]string{"fetch", "--allow-private", "--format", "cards", "--keys", keysPath, srv.URL}, nil, &out, &errOut); st > 1 {
			t.Fatalf("cardscan fetch: status %d: %s", st, errOut.String())
		}
		var want map[string]any
		if err := json.Unmarshal(out.Bytes(), &want); err != nil {
			t.Fatal(err)
		}
		got := structured(t, call(t, cs, "fetch_card", map[string]any{"url": srv.URL}))
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s:\n got %v\nwant %v", tc.name, got, want)
		}
		if got["valid"] != tc.valid {
			t.Errorf("%s: valid %v, want %v", tc.name, got["valid"], tc.valid)
		}
	}
}
