package serve

import (
	"bytes"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/go-jose/go-jose/v4"

	"github.com/cardscan/cardscan/cardsig"
	"github.com/cardscan/cardscan/internal/cmderr"
	"github.com/cardscan/cardscan/internal/console"
	"github.com/cardscan/cardscan/internal/report"
)

// signedFixture is a card signed by a key pinned for its own origin,
// https://a.example, in a trust policy file.
type signedFixture struct {
	card      []byte
	trustFile string
}

func newSignedFixture(t *testing.T) signedFixture {
	t.Helper()
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
	write := func(name string, data []byte) string {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, data, 0o600); err != nil {
			t.Fatal(err)
		}
		return path
	}
	write("a.jwks", set)
	trust := write("trust.yaml", []byte("origins:\n  https://a.example:\n    keys: a.jwks\n"))
	card := `{"name":"Geo","description":"Plans routes.","version":"1.2.0",` +
		`"supportedInterfaces":[{"url":"https://a.example/a2a","protocolBinding":"JSONRPC","protocolVersion":"1.0"}],` +
		`"capabilities":{"streaming":true},"defaultInputModes":["text/plain"],"defaultOutputModes":["application/json"],` +
		`"skills":[{"id":"route","name":"Route","description":"Finds a route","tags":["maps"]}]}`
	signed, err := cardsig.Sign([]byte(card), key, cardsig.SignOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return signedFixture{card: signed, trustFile: trust}
}

// signedServer serves with args parsed as cardscan serve parses them.
func signedServer(t *testing.T, args ...string) string {
	t.Helper()
	cfg, err := parseArgs(args)
	if err != nil {
		t.Fatalf("parseArgs %q: %v", args, err)
	}
	return newTestServer(t, cfg).URL
}

// signedVerdict is what the tests read of a verdict line.
type signedVerdict struct {
	Valid    bool      `json:"valid"`
	SignedBy []string  `json:"signed_by"`
	Errors   []finding `json:"errors"`
	Warnings []finding `json:"warnings"`
}

type finding struct {
	Rule    string `json:"rule"`
	Message string `json:"message"`
}

func decodeVerdict(t *testing.T, line []byte) signedVerdict {
	t.Helper()
	var v signedVerdict
	if err := json.Unmarshal(line, &v); err != nil {
		t.Fatalf("%v: %s", err, line)
	}
	return v
}

// TestServe_TrustBindsTheFetchedFromOrigin: a card signed by its origin's
// pinned key verifies; named as fetched from another origin (?from=), its
// signature is untrusted-origin, with both origins said; the metrics count
// each outcome.
func TestServe_TrustBindsTheFetchedFromOrigin(t *testing.T) {
	f := newSignedFixture(t)
	url := signedServer(t, "--trust", f.trustFile, "--now", "2026-03-01T00:00:00Z")

	resp, body := postBody(t, url+"/v1/validate", "application/json", strings.NewReader(string(f.card)))
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("status %d: %s", resp.StatusCode, body)
	}
	if v := decodeVerdict(t, body); !v.Valid || len(v.SignedBy) != 1 || v.SignedBy[0] != "a-2026" || len(v.Errors)+len(v.Warnings) != 0 {
		t.Errorf("from its own origin: got %s, want valid, signed by a-2026, no findings", body)
	}

	for _, tc := range []struct{ name, contentType, body string }{
		{"single", "application/json", string(f.card)},
		{"stream", ndjsonType, string(f.card) + "\n"},
	} {
		_, body = postBody(t, url+"/v1/validate?from=https://b.example/.well-known/agent-card.json", tc.contentType, strings.NewReader(tc.body))
		v := decodeVerdict(t, body)
		if v.Valid || len(v.SignedBy) != 0 || len(v.Errors) != 1 || len(v.Warnings) != 0 || v.Errors[0].Rule != "a2a.signature-untrusted-origin" ||
			!strings.Contains(v.Errors[0].Message, "signed by a key of https://a.example, not allowed for https://b.example") {
			t.Errorf("%s, ?from= another origin: got %s, want invalid with a2a.signature-untrusted-origin naming both origins", tc.name, body)
		}
	}

	resp, err := http.Get(url + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	raw, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		t.Fatal(err)
	}
	metrics := string(raw)
	for _, want := range []string{
		`cardscan_signatures_total{outcome="verified"} 1`,
		`cardscan_signatures_total{outcome="untrusted-origin"} 2`,
		`cardscan_signatures_total{outcome="revoked"} 0`,
	} {
		if !strings.Contains(metrics, want+"\n") {
			t.Errorf("/metrics lacks %s", want)
		}
	}
}

// TestServe_FromMustBeAURL: a ?from= that names no origin is the caller's
// mistake, answered 400 rather than judged as if no origin were given.
func TestServe_FromMustBeAURL(t *testing.T) {
	f := newSignedFixture(t)
	url := signedServer(t, "--trust", f.trustFile)
	resp, body := postBody(t, url+"/v1/validate?from=b.example", "application/json", strings.NewReader(string(f.card)))
	if resp.StatusCode != http.StatusBadRequest || !strings.Contains(string(body), `?from=\"b.example\"`) {
		t.Errorf("got %d %s, want 400 naming ?from=", resp.StatusCode, body)
	}
}

// TestServe_SignatureFlagErrors: the signature flags are checked as the
// scan command checks them.
func TestServe_SignatureFlagErrors(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--signatures", "require"}, "--signatures require needs trusted keys"},
		{[]string{"--keys", "/nonexistent.jwks"}, "--keys /nonexistent.jwks: no such file"},
		{[]string{"--now", "yesterday"}, `--now "yesterday": want an RFC 3339 time`},
		{[]string{"--trust", "/nonexistent.yaml"}, "/nonexistent.yaml: no such file"},
	} {
		var stderr strings.Builder
		_, err := parseArgs(tc.args)
		code := cmderr.Exit(err, console.New(&stderr))
		if code != cmderr.StatusUsage || !strings.Contains(stderr.String(), tc.want) {
			t.Errorf("%q: got exit %d %q, want exit 2 saying %q", tc.args, code, stderr.String(), tc.want)
		}
	}
}

// TestServe_SignatureFindingsAtTheSignature: serve places a signature
// finding at the signatures[] entry it is about, in a pretty-printed card
// and in a stream, as cardscan does; it was placed at the card's start.
func TestServe_SignatureFindingsAtTheSignature(t *testing.T) {
	f := newSignedFixture(t)
	url := signedServer(t, "--trust", f.trustFile, "--now", "2026-03-01T00:00:00Z")
	var pretty bytes.Buffer
	if err := json.Indent(&pretty, f.card, "", "  "); err != nil {
		t.Fatal(err)
	}
	tampered := strings.Replace(pretty.String(), "Plans routes.", "Plans roads.", 1)
	compact := strings.Replace(string(f.card), "Plans routes.", "Plans roads.", 1)
	place := func(text, before string) (line, column int) {
		i := strings.Index(text, before)
		if i < 0 {
			t.Fatalf("%q not in %s", before, text)
		}
		return report.LineColumn([]byte(text), i+len(before))
	}
	prettyLine, prettyCol := place(tampered, "\"signatures\": [\n    ")
	_, compactCol := place(compact, `"signatures":[`)
	for _, tc := range []struct {
		name, contentType, body string
		verdict                 int
		line, column            int
	}{
		{"single", "application/json", tampered, 0, prettyLine, prettyCol},
		{"stream", ndjsonType, string(f.card) + "\n" + compact + "\n", 1, 2, compactCol},
	} {
		_, body := postBody(t, url+"/v1/validate", tc.contentType, strings.NewReader(tc.body))
		lines := bytes.Split(bytes.TrimSpace(body), []byte("\n"))
		if len(lines) <= tc.verdict {
			t.Fatalf("%s: %d verdicts: %s", tc.name, len(lines), body)
		}
		var v struct {
			Errors []struct {
				Rule, Path   string
				Line, Column int
			}
		}
		if err := json.Unmarshal(lines[tc.verdict], &v); err != nil {
			t.Fatalf("%s: %v: %s", tc.name, err, body)
		}
		if len(v.Errors) != 1 || v.Errors[0].Rule != "a2a.signature-invalid" || v.Errors[0].Path != "/signatures/0" ||
			v.Errors[0].Line != tc.line || v.Errors[0].Column != tc.column {
			t.Errorf("%s: got %s, want a2a.signature-invalid at /signatures/0, %d:%d", tc.name, lines[tc.verdict], tc.line, tc.column)
		}
	}
}
