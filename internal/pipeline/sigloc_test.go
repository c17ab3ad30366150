package pipeline

import (
	"bufio"
	"bytes"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/json"
	"strconv"
	"strings"
	"testing"

	"github.com/go-jose/go-jose/v4"

	"github.com/cardscan/cardscan/cardsig"
	"github.com/cardscan/cardscan/internal/report"
)

// a2aCard is an A2A 1.0 card with no findings of its own, pretty-printed
// as a person keeps one in a repository.
const a2aCard = `{
  "name": "Geo",
  "description": "Plans routes.",
  "version": "1.2.0",
  "supportedInterfaces": [
    {
      "url": "https://a.example/a2a",
      "protocolBinding": "JSONRPC",
      "protocolVersion": "1.0"
    }
  ],
  "capabilities": {
    "streaming": true
  },
  "defaultInputModes": ["text/plain"],
  "defaultOutputModes": ["application/json"],
  "skills": [
    {"id": "route", "name": "Route", "description": "Finds a route", "tags": ["maps"]}
  ]
}
`

// signedA2A signs card with a fresh key and returns the signed card and
// a verifier that trusts the key.
func signedA2A(t *testing.T, card string) (string, *cardsig.Verifier) {
	t.Helper()
	pub, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	signed, err := cardsig.Sign([]byte(card), jose.JSONWebKey{Key: priv, KeyID: "k1", Algorithm: "EdDSA"}, cardsig.SignOptions{})
	if err != nil {
		t.Fatal(err)
	}
	set, err := json.Marshal(jose.JSONWebKeySet{Keys: []jose.JSONWebKey{{Key: pub, KeyID: "k1", Algorithm: "EdDSA", Use: "sig"}}})
	if err != nil {
		t.Fatal(err)
	}
	keys, err := cardsig.ParseKeySet(set)
	if err != nil {
		t.Fatal(err)
	}
	v, err := cardsig.NewVerifier(keys)
	if err != nil {
		t.Fatal(err)
	}
	return string(signed), v
}

// located is a finding as the jsonl writer places it.
type located struct {
	Rule   string `json:"rule"`
	Path   string `json:"path"`
	Line   int    `json:"line"`
	Column int    `json:"column"`
}

// runLocated runs input through a Run with keys and returns the findings
// of each verdict, in order.
func runLocated(t *testing.T, input string, v *cardsig.Verifier) [][]located {
	t.Helper()
	var out strings.Builder
	if _, err := Run(Config{Profile: "auto", Findings: jsonlTo(&out, true), Stdin: strings.NewReader(input),
		Signatures: &Signatures{Verifier: v}}, []Input{{Name: "in"}}); err != nil {
		t.Fatal(err)
	}
	var all [][]located
	sc := bufio.NewScanner(strings.NewReader(out.String()))
	for sc.Scan() {
		var vd struct{ Errors, Warnings []located }
		if err := json.Unmarshal(sc.Bytes(), &vd); err != nil {
			t.Fatalf("%v: %s", err, sc.Bytes())
		}
		all = append(all, append(vd.Errors, vd.Warnings...))
	}
	return all
}

// at is where the first byte of input that follows the text before, at
// or after offset from, lies.
func at(t *testing.T, input string, from int, before string) report.Location {
	t.Helper()
	i := strings.Index(input[from:], before)
	if i < 0 {
		t.Fatalf("%q not in %q", before, input[from:])
	}
	line, col := report.LineColumn([]byte(input), from+i+len(before))
	return report.Location{Line: line, Column: col}
}

func findRule(fs []located, rule string) (located, bool) {
	for _, f := range fs {
		if f.Rule == rule {
			return f, true
		}
	}
	return located{}, false
}

// TestSignatureFindingsAtTheSignature: a signature finding is placed at
// the signatures[] entry it is about, or at the entry's member at fault,
// as the validator places its own, whether the card is pretty-printed in
// a JSON file, a line of NDJSON or a card embedded as a JSON string. They
// were all placed at the card's first byte.
func TestSignatureFindingsAtTheSignature(t *testing.T) {
	signed, v := signedA2A(t, a2aCard)
	tampered := strings.Replace(signed, "Plans routes.", "Plans roads.", 1)
	var compact bytes.Buffer
	if err := json.Compact(&compact, []byte(tampered)); err != nil {
		t.Fatal(err)
	}
	line := compact.String()
	embedded := strconv.Quote(line)
	var entry struct {
		Signatures []struct{ Protected string }
	}
	if err := json.Unmarshal([]byte(signed), &entry); err != nil || len(entry.Signatures) != 1 {
		t.Fatalf("signed card: %v, %d signatures", err, len(entry.Signatures))
	}
	badHeader := strings.Replace(tampered, entry.Signatures[0].Protected, "e30", 1) // "{}": no alg, no kid

	// The record's own escapes, each decoding to a different number of
	// bytes, stand before the entry: é, a surrogate pair, a quote.
	var compactBad bytes.Buffer
	if err := json.Compact(&compactBad, []byte(badHeader)); err != nil {
		t.Fatal(err)
	}
	escapedBad := strings.Replace(strconv.Quote(compactBad.String()), `\"Geo\"`, `\"G\u00e9o\ud83d\ude00\\\"\"`, 1)
	if !strings.Contains(escapedBad, `\u00e9`) {
		t.Fatalf("no escapes in %s", escapedBad)
	}

	for _, c := range []struct {
		name, input string
		record      int // the verdict of the record to read
		rule, path  string
		want        report.Location
		// sameAs names the validator's finding placed at the same spot
		// (it judges an A2A card embedded as a string no further than
		// card.type).
		sameAs string
	}{
		{"pretty", tampered, 0, "a2a.signature-invalid", "/signatures/0", at(t, tampered, 0, `"signatures": [`+"\n    "), ""},
		{"ndjson", a2aLine(t, a2aCard) + "\n" + line + "\n", 1, "a2a.signature-invalid", "/signatures/0",
			report.Location{Line: 2, Column: at(t, line, 0, `"signatures":[`).Column}, ""},
		{"embedded", embedded + "\n", 0, "a2a.signature-invalid", "/signatures/0", at(t, embedded, 0, `\"signatures\":[`), ""},
		{"bad header", badHeader, 0, "a2a.signature-invalid", "/signatures/0/protected",
			at(t, badHeader, strings.Index(badHeader, `"signatures"`), `"protected": `), "a2a.signature-format"},
		{"embedded bad header", escapedBad + "\n", 0, "a2a.signature-invalid", "/signatures/0/protected",
			at(t, escapedBad, strings.Index(escapedBad, `\"signatures\"`), `\"protected\":`), ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			verdicts := runLocated(t, c.input, v)
			if len(verdicts) <= c.record {
				t.Fatalf("%d verdicts, want a verdict for record %d", len(verdicts), c.record)
			}
			fs := verdicts[c.record]
			f, ok := findRule(fs, c.rule)
			if !ok {
				t.Fatalf("no %s among %+v", c.rule, fs)
			}
			if got := (report.Location{Line: f.Line, Column: f.Column}); f.Path != c.path || got != c.want {
				t.Errorf("%s at %s %d:%d, want %s %d:%d", c.rule, f.Path, f.Line, f.Column, c.path, c.want.Line, c.want.Column)
			}
			if c.sameAs == "" {
				return
			}
			if g, ok := findRule(fs, c.sameAs); !ok || g.Path != f.Path || g.Line != f.Line || g.Column != f.Column {
				t.Errorf("%s at %s %d:%d, but %s at %+v among %+v", c.rule, f.Path, f.Line, f.Column, c.sameAs, g, fs)
			}
		})
	}
}

// a2aLine is card compacted to one line: an unsigned record before the
// signed one, so that the signed one's line is not the first.
func a2aLine(t *testing.T, card string) string {
	t.Helper()
	var b bytes.Buffer
	if err := json.Compact(&b, []byte(card)); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// TestSignatureFindingsPlacedInEveryFormat: every writer puts a signature
// finding on the signature's line and column, as they share the
// finding's offset: text, GitHub annotations, SARIF, JUnit and Code
// Quality (which gives a line only) alike; jsonl is checked above.
func TestSignatureFindingsPlacedInEveryFormat(t *testing.T) {
	signed, v := signedA2A(t, a2aCard)
	tampered := strings.Replace(signed, "Plans routes.", "Plans roads.", 1)
	loc := at(t, tampered, 0, `"signatures": [`+"\n    ")
	l, c := strconv.Itoa(loc.Line), strconv.Itoa(loc.Column)
	for _, tc := range []struct {
		format report.Format
		want   string
	}{
		{report.FormatText, "in:" + l + ":" + c + ": error: a2a.signature-invalid: /signatures/0:"},
		{report.FormatGitHub, "::error file=in,line=" + l + ",col=" + c + ",title=a2a.signature-invalid::"},
		{report.FormatSARIF, `"startLine":` + l + `,"startColumn":` + c},
		{report.FormatJUnit, "in:" + l + ":" + c + ": error: a2a.signature-invalid: /signatures/0:"},
		{report.FormatCodeQuality, `"begin":` + l},
	} {
		var out strings.Builder
		w := tc.format.Writer(&out, report.WriterOptions{})
		if err := w.Head(); err != nil {
			t.Fatal(err)
		}
		if _, err := Run(Config{Profile: "auto", Findings: w, Stdin: strings.NewReader(tampered),
			Signatures: &Signatures{Verifier: v}}, []Input{{Name: "in"}}); err != nil {
			t.Fatal(err)
		}
		if err := w.Tail(&report.RunEnd{Name: "cardscan", Successful: true}); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(out.String(), "a2a.signature-invalid") || !strings.Contains(out.String(), tc.want) {
			t.Errorf("%s: no a2a.signature-invalid placed by %q in\n%s", tc.format, tc.want, out.String())
		}
	}
}
