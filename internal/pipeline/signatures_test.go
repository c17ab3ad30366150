package pipeline

import (
	"crypto/ed25519"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/go-jose/go-jose/v4"

	"github.com/cardscan/cardscan/cardsig"
	"github.com/cardscan/cardscan/fastvalidate"
)

// TestWorkerWithKeysDoesNotAllocateForUnsignedCards: with keys configured,
// a card that cannot carry signatures costs no more allocations than
// without.
func TestWorkerWithKeysDoesNotAllocateForUnsignedCards(t *testing.T) {
	v, err := cardsig.NewVerifier(new(cardsig.KeySet))
	if err != nil {
		t.Fatal(err)
	}
	cfg := &Config{Profile: "agentcard", MaxRecord: DefaultMaxRecord, All: true, Findings: jsonlTo(io.Discard, true), ValidOut: io.Discard, InvalidOut: io.Discard,
		Signatures: &Signatures{Verifier: v}}
	w := newWorker(cfg, 512)
	c := &chunk{kind: kindLines, input: "in", line: 1, buf: []byte(strings.Repeat(card+"\n", 100))}
	w.process(c, 0, 0)
	if c.st.valid != 100 || c.st.signed != 0 {
		t.Fatalf("%d valid, %d signed cards; want 100 and 0", c.st.valid, c.st.signed)
	}
	if n := testing.AllocsPerRun(50, func() { w.process(c, 0, 0) }); n != 0 {
		t.Errorf("a chunk of 100 unsigned cards costs %v allocations with keys configured", n)
	}
}

// A card with more findings than a verdict lists still lists no more, and
// counts its signature findings past the cap.
func TestSignatureFindingsPastTheListCap(t *testing.T) {
	_, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	// Distinct ids: one repeated would fold into one finding.
	var each []string
	for i := range 150 {
		each = append(each, fmt.Sprintf(`{"id":"Bad Id %d","description":"d"}`, i))
	}
	caps := strings.Join(each, ",")
	bad := strings.Replace(card, `{"id":"a","description":"d"}`, caps, 1)
	signed, err := cardsig.Sign([]byte(bad), jose.JSONWebKey{Key: priv, KeyID: "stranger"}, cardsig.SignOptions{})
	if err != nil {
		t.Fatal(err)
	}
	v, err := cardsig.NewVerifier(new(cardsig.KeySet))
	if err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	st, err := Run(Config{Profile: "agentcard", Findings: jsonlTo(&out, false), Stdin: strings.NewReader(string(signed) + "\n"),
		Signatures: &Signatures{Verifier: v, Require: true}}, []Input{{Name: "in"}})
	if err != nil {
		t.Fatal(err)
	}
	var vd struct{ Errors, Warnings []json.RawMessage }
	if err := json.Unmarshal([]byte(out.String()), &vd); err != nil {
		t.Fatal(err)
	}
	if n := len(vd.Errors) + len(vd.Warnings); n != maxListed {
		t.Errorf("%d findings listed, want %d", n, maxListed)
	}
	if st.Rules["a2a.signature-key-unknown"] != 1 || st.Rules["a2a.signature-missing"] != 1 || st.Rules["capability.id"] != 150 ||
		st.Errors != 152 || st.Signed != 1 || st.Verified != 0 || st.SignatureFindings != 2 {
		t.Errorf("stats %+v", st)
	}
}

// Overrides reach the findings of signature verification: turned off, a
// finding is gone from the verdict and the counts; lowered, it no longer
// fails the card.
func TestSignatureOverrides(t *testing.T) {
	_, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	signed, err := cardsig.Sign([]byte(card), jose.JSONWebKey{Key: priv, KeyID: "stranger"}, cardsig.SignOptions{})
	if err != nil {
		t.Fatal(err)
	}
	v, err := cardsig.NewVerifier(new(cardsig.KeySet))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name      string
		overrides map[fastvalidate.Code]fastvalidate.Severity
		valid     int64
		errors    int64
		warnings  int64
		unknown   int64
		missing   int64
	}{
		{"none", nil, 0, 2, 0, 1, 1},
		{"missing lowered", map[fastvalidate.Code]fastvalidate.Severity{fastvalidate.CodeA2ASignatureMissing: fastvalidate.SeverityWarning,
			fastvalidate.CodeA2ASignatureKeyUnknown: fastvalidate.SeverityWarning}, 1, 0, 2, 1, 1},
		{"unknown off", map[fastvalidate.Code]fastvalidate.Severity{fastvalidate.CodeA2ASignatureKeyUnknown: fastvalidate.SeverityOff}, 0, 1, 0, 0, 1},
	} {
		t.Run(c.name, func(t *testing.T) {
			var out strings.Builder
			st, err := Run(Config{Profile: "agentcard", All: true, Findings: jsonlTo(&out, true), Stdin: strings.NewReader(string(signed) + "\n"),
				Signatures: &Signatures{Verifier: v, Require: true, Overrides: c.overrides}}, []Input{{Name: "in"}})
			if err != nil {
				t.Fatal(err)
			}
			if st.Valid != c.valid || st.Errors != c.errors || st.Warnings != c.warnings ||
				st.Rules["a2a.signature-key-unknown"] != c.unknown || st.Rules["a2a.signature-missing"] != c.missing {
				t.Errorf("stats %+v", st)
			}
			if c.unknown == 0 && strings.Contains(out.String(), "a2a.signature-key-unknown") {
				t.Errorf("a finding turned off is reported: %s", out.String())
			}
		})
	}
}
