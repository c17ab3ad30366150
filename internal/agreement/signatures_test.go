package agreement

import (
	"bytes"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unicode/utf16"

	"github.com/go-jose/go-jose/v4"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/cardscan/cardscan/cardsig"
	"github.com/cardscan/cardscan/internal/cli"
	"github.com/cardscan/cardscan/internal/lspserver"
	"github.com/cardscan/cardscan/internal/mcpserver"
	"github.com/cardscan/cardscan/internal/pipeline"
)

// signedCard is an A2A 1.0 card with text beyond ASCII before its
// signatures, pretty-printed as a repository keeps it.
const signedCard = `{
  "name": "Géo 😀𝔸",
  "description": "Plans routes ✓.",
  "version": "1.2.0",
  "supportedInterfaces": [
    {"url": "https://a.example/a2a", "protocolBinding": "JSONRPC", "protocolVersion": "1.0"}
  ],
  "capabilities": {"streaming": true},
  "defaultInputModes": ["text/plain"],
  "defaultOutputModes": ["application/json"],
  "skills": [
    {"id": "route", "name": "Route 😀", "description": "Finds a route", "tags": ["maps"]}
  ]
}
`

// signatureCards signs signedCard with trusted (kid k1) and stranger (kid
// k9) and breaks the result in the ways a signature can fail.
func signatureCards(t *testing.T, trusted, stranger jose.JSONWebKey) []card {
	t.Helper()
	sign := func(c string, k jose.JSONWebKey) string {
		out, err := cardsig.Sign([]byte(c), k, cardsig.SignOptions{})
		if err != nil {
			t.Fatal(err)
		}
		return string(out)
	}
	good := sign(signedCard, trusted)
	tampered := strings.Replace(good, "Plans routes", "Plans roads", 1)
	badHeader := regexp.MustCompile(`"protected": "[^"]*"`).ReplaceAllString(good, `"protected": "e30"`)
	badSig := regexp.MustCompile(`"signature": "[^"]*"`).ReplaceAllString(tampered, `"signature": "!!"`)
	return []card{
		{"sig-verified.json", []byte(good)},
		{"sig-tampered.json", []byte(tampered)},
		{"sig-tampered-crlf.json", []byte(strings.ReplaceAll(tampered, "\n", "\r\n"))},
		{"sig-leading-space.json", []byte("\n\n  " + tampered)},
		{"sig-bad-header.json", []byte(badHeader)},
		{"sig-bad-signature.json", []byte(badSig)},
		{"sig-stranger.json", []byte(sign(signedCard, stranger))},
		{"sig-hostile-kid.json", []byte(sign(signedCard, jose.JSONWebKey{Key: stranger.Key, KeyID: "k9\u202e\x1b[31m\u200b\nforged: verified"}))},
		{"sig-two.json", []byte(sign(tampered, stranger))},
		{"sig-duplicate-key.json", []byte(strings.Replace(good, `"version": "1.2.0",`, `"version": "1.2.0", "version": "x",`, 1))},
		{"sig-embedded.json", []byte(jsonString(tampered))},
		{"sig-embedded-escaped.json", []byte(asciiJSONString(badHeader))},
	}
}

// asciiJSONString writes s as a JSON string in ASCII: every other
// character as \u escapes, astral ones as surrogate pairs.
func asciiJSONString(s string) string {
	var b strings.Builder
	for _, r := range jsonString(s) {
		if r < 0x80 {
			b.WriteRune(r)
			continue
		}
		for _, u := range utf16.Encode([]rune{r}) {
			fmt.Fprintf(&b, `\u%04x`, u)
		}
	}
	return b.String()
}

// sigFinding is a signature's outcome placed in its card.
type sigFinding struct {
	pointer, status, reason string
	line, column            int
}

// statusOf is the outcome a signature rule reports.
var statusOf = map[string]string{
	"a2a.signature-invalid":     "invalid",
	"a2a.signature-key-unknown": "key-unknown",
	"a2a.signature-alg":         "alg",
}

// TestSignaturesAgree verifies signed cards on the CLI (--keys, whose
// findings cardsig.Locator places), serve, verify, verify --explain and
// the MCP server's verify_signatures: each signature that does not verify
// must be named by the same pointer, at the same line and column, with
// the same reason, everywhere.
func TestSignaturesAgree(t *testing.T) {
	_, k1, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	_, k9, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	trusted := jose.JSONWebKey{Key: k1, KeyID: "k1"}
	stranger := jose.JSONWebKey{Key: k9, KeyID: "k9"}
	jwks, err := json.Marshal(jose.JSONWebKeySet{Keys: []jose.JSONWebKey{trusted.Public()}})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	keys := filepath.Join(t.TempDir(), "trusted.jwks")
	if err := os.WriteFile(keys, jwks, 0o644); err != nil {
		t.Fatal(err)
	}
	cards := signatureCards(t, trusted, stranger)
	for _, c := range cards {
		if err := os.WriteFile(filepath.Join(dir, c.name), c.text, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	jsonl, _, _ := parseJSONL(t, cliRun(t, dir, "--keys", keys)["jsonl"])
	handler := serveHandler(t, "--profile", "auto", "--keys", keys)
	mcpc := mcpSession(t, mcpserver.Config{})
	keySet, err := cardsig.ParseKeySet(jwks)
	if err != nil {
		t.Fatal(err)
	}
	verifier, err := cardsig.NewVerifier(keySet)
	if err != nil {
		t.Fatal(err)
	}
	lsp := newLSPClient(t, lspserver.Config{MaxDocument: 16 << 20, Signatures: &pipeline.Signatures{Verifier: verifier}})

	for _, c := range cards {
		t.Run(c.name, func(t *testing.T) {
			rec := jsonl[c.name]
			if got := served(t, handler, c.text); !sameVerdict(got, rec) {
				t.Errorf("serve: %+v\nCLI: %+v", got, rec)
			}
			var want []sigFinding
			for _, f := range rec.findings {
				if st, ok := statusOf[f.rule]; ok && strings.HasPrefix(f.shown, "/signatures/") {
					ptr, msg, _ := strings.Cut(f.shown, "\x00")
					want = append(want, sigFinding{ptr, st, msg, f.line, f.column})
				}
			}
			for _, explain := range []bool{false, true} {
				got := verifyLines(t, filepath.Join(dir, c.name), keys, explain)
				if !sameSigFindings(got, want) {
					t.Errorf("verify (--explain %v):\n  got  %+v\n  want %+v (the CLI's)", explain, got, want)
				}
			}
			if got := verifySignatures(t, mcpc, c.text, string(jwks)); !sameSigFindings(got, want) {
				t.Errorf("verify_signatures:\n  got  %+v\n  want %+v (the CLI's)", got, want)
			}
			if got, want := lsp.diagnose(c.name, c.text), inEditor(c.text, rec); !sameVerdict(got, want) {
				t.Errorf("lsp:\n  got  %+v\n  want %+v (the CLI's)", got, want)
			}
			for _, f := range rec.findings {
				if offsetInMessage.MatchString(f.shown) {
					t.Errorf("%s: %q names a byte offset beside its place", f.rule, f.shown)
				}
			}
		})
	}
}

func sameSigFindings(a, b []sigFinding) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// verifyLine is a line of cardscan verify's about a signature that did
// not verify: INPUT:LINE:COLUMN: POINTER: STATUS: REASON.
var verifyLine = regexp.MustCompile(`^[^:]*:(\d+):(\d+): (/signatures/[^:]*): ([a-z-]+)(?:: (.*))?$`)

// verifyLines runs cardscan verify on the card and reads the outcome of
// each signature that did not verify.
func verifyLines(t *testing.T, name, keys string, explain bool) []sigFinding {
	t.Helper()
	args := []string{"verify", "--keys", keys, name}
	if explain {
		args = []string{"verify", "--explain", "--keys", keys, name}
	}
	var stdout, stderr bytes.Buffer
	cli.Run(args, strings.NewReader(""), &stdout, &stderr)
	checkNothingHidden(t, strings.Join(args[:len(args)-1], " "), stdout.String()+stderr.String())
	var out []sigFinding
	for line := range strings.Lines(stdout.String()) {
		line = strings.TrimSuffix(line, "\n")
		if strings.HasPrefix(line, " ") || !strings.Contains(line, "signatures/") {
			continue
		}
		m := verifyLine.FindStringSubmatch(line)
		if m == nil {
			t.Errorf("verify: a signature's line without its place: %q", line)
			continue
		}
		if m[4] == "verified" {
			continue
		}
		ln, _ := strconv.Atoi(m[1])
		col, _ := strconv.Atoi(m[2])
		out = append(out, sigFinding{m[3], m[4], m[5], ln, col})
	}
	return out
}

// verifySignatures calls verify_signatures on the card's text with jwks
// and reads the outcome of each signature that did not verify.
func verifySignatures(t *testing.T, cs *mcp.ClientSession, text []byte, jwks string) []sigFinding {
	t.Helper()
	var res struct {
		Signatures []struct {
			Path, Status, Reason string
			Line, Column         int
		}
	}
	callTool(t, cs, "verify_signatures", map[string]any{"card": string(text), "jwks": jwks}, &res)
	var out []sigFinding
	for _, s := range res.Signatures {
		if s.Status != "verified" {
			out = append(out, sigFinding{s.Path, s.Status, s.Reason, s.Line, s.Column})
		}
	}
	return out
}

// inEditor is the CLI's verdict rec on text as the language server must
// show it: no profile, each finding's message as a diagnostic's, placed
// in LSP's lines and UTF-16 characters (+1 each).
func inEditor(text []byte, rec verdict) verdict {
	out := verdict{valid: rec.valid}
	for _, f := range rec.findings {
		path, msg, _ := strings.Cut(f.shown, "\x00")
		line, char := lspPosition(text, byteOffset(text, f.line, f.column))
		out.findings = append(out.findings, finding{f.rule, f.severity, lspRender(path, msg), line + 1, char + 1})
	}
	sortFindings(out.findings)
	return out
}

// TestSignaturePolicyLevelsAgree: a policy file's rules: levels apply to
// the signature findings on the command line and in the editor alike.
// The language server set them on the validator alone, which reports no
// signature finding, so an a2a.signature-invalid the policy lowers to a
// warning still failed the card there.
func TestSignaturePolicyLevelsAgree(t *testing.T) {
	_, k1, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	_, k9, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	trusted := jose.JSONWebKey{Key: k1, KeyID: "k1"}
	jwks, err := json.Marshal(jose.JSONWebKeySet{Keys: []jose.JSONWebKey{trusted.Public()}})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	keys := filepath.Join(t.TempDir(), "trusted.jwks")
	policy := filepath.Join(dir, ".cardscan.yaml")
	for name, text := range map[string]string{keys: string(jwks),
		policy: "rules:\n  a2a.signature-invalid: warning\n  a2a.signature-key-unknown: off\n"} {
		if err := os.WriteFile(name, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cards := signatureCards(t, trusted, jose.JSONWebKey{Key: k9, KeyID: "k9"})
	for _, c := range cards {
		if err := os.WriteFile(filepath.Join(dir, c.name), c.text, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	jsonl, _, _ := parseJSONL(t, cliRun(t, dir, "--keys", keys, "--config", policy)["jsonl"])
	lsp := newLSPCommand(t, dir, "--keys", keys)
	lowered := 0
	for _, c := range cards {
		rec := jsonl[c.name]
		for _, f := range rec.findings {
			if f.rule == "a2a.signature-key-unknown" || f.rule == "a2a.signature-invalid" && f.severity == "error" {
				t.Errorf("%s: the CLI did not apply the policy: %s", c.name, f)
			}
			if f.rule == "a2a.signature-invalid" {
				lowered++
			}
		}
		if got, want := lsp.diagnose(c.name, c.text), inEditor(c.text, rec); !sameVerdict(got, want) {
			t.Errorf("%s: lsp:\n  got  %+v\n  want %+v (the CLI's)", c.name, got, want)
		}
	}
	if lowered == 0 {
		t.Error("no a2a.signature-invalid finding to lower")
	}
}
