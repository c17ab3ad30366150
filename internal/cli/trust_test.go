package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/go-jose/go-jose/v4"

	"github.com/cardscan/cardscan/cardsig"
	"github.com/cardscan/cardscan/internal/summary"
)

// TestTrustPolicy runs cards signed by an origin's pinned key, by another
// origin's key and by a revoked key through --trust, and checks each
// card's findings and the summary's outcome counts.
func TestTrustPolicy(t *testing.T) {
	f := newSigFixture(t)
	k2only, _ := json.Marshal(jose.JSONWebKeySet{Keys: []jose.JSONWebKey{f.k2.Public()}})
	writeFile(t, filepath.Join(f.dir, "other.jwks"), k2only)
	k1only, _ := json.Marshal(jose.JSONWebKeySet{Keys: []jose.JSONWebKey{f.k1.Public()}})
	writeFile(t, filepath.Join(f.dir, "geo.jwks"), k1only)
	strangerThumb, err := cardsig.Thumbprint(f.stranger)
	if err != nil {
		t.Fatal(err)
	}
	strangerSet, _ := json.Marshal(jose.JSONWebKeySet{Keys: []jose.JSONWebKey{f.stranger.Public()}})
	writeFile(t, filepath.Join(f.dir, "stranger.jwks"), strangerSet)
	policy := writeFile(t, filepath.Join(f.dir, "trust.yaml"), []byte(`# keys bound to origins
origins:
  https://geo.example.com:
    keys: [geo.jwks, stranger.jwks]
  https://other.example:
    keys: other.jwks
revoked:
  - `+strangerThumb+`
`))
	cards := strings.Join([]string{
		f.sign(t, a2aCard, f.k1, cardsig.SignOptions{}),       // geo's own key
		f.sign(t, a2aCard, f.k2, cardsig.SignOptions{}),       // other.example's key
		f.sign(t, a2aCard, f.stranger, cardsig.SignOptions{}), // revoked
		a2aCard, // unsigned
	}, "\n") + "\n"
	in := writeFile(t, filepath.Join(f.dir, "cards.ndjson"), []byte(cards))
	sumPath := filepath.Join(f.dir, "summary.json")
	r := run(t, "", "--trust", policy, "--format", "jsonl", "--all", "--summary", sumPath, in)
	if r.code != 1 {
		t.Fatalf("exit %d, want 1; stderr %s", r.code, r.stderr)
	}
	vs := parseSigVerdicts(t, r.stdout)
	want := [][]string{nil, {"error a2a.signature-untrusted-origin /signatures/0"}, {"error a2a.signature-revoked /signatures/0"}, nil}
	for i, v := range vs {
		if got := sigFindings(v); !reflect.DeepEqual(got, want[i]) {
			t.Errorf("card %d: %v, want %v", i, got, want[i])
		}
	}
	if len(vs) != 4 || !reflect.DeepEqual(vs[0].SignedBy, []string{"k1"}) {
		t.Errorf("verdicts %+v", vs)
	}
	s, err := summary.Unmarshal(readFile(t, sumPath))
	if err != nil {
		t.Fatal(err)
	}
	wantSig := summary.Signatures{Signed: 3, Verified: 1, Findings: 2, Outcomes: map[string]int64{"verified": 1, "untrusted-origin": 1, "revoked": 1}}
	if s.Signatures == nil || !reflect.DeepEqual(*s.Signatures, wantSig) {
		t.Errorf("summary signatures %+v, want %+v", s.Signatures, wantSig)
	}
	if !strings.Contains(r.stderr, "1 of 3 signed cards verified (signatures: untrusted-origin 1, revoked 1)") {
		t.Errorf("stderr does not count outcomes: %s", r.stderr)
	}

	// The same policy as the trust section of a policy file.
	body, _ := os.ReadFile(policy)
	indented := "trust:\n  " + strings.ReplaceAll(strings.TrimSpace(string(body)), "\n", "\n  ") + "\n"
	cfg := writeFile(t, filepath.Join(f.dir, ".cardscan.yaml"), []byte(indented))
	r2 := run(t, "", "--config", cfg, "--format", "jsonl", "--all", in)
	if r2.stdout != r.stdout {
		t.Errorf("the trust section judged differently from --trust:\n%s\nvs\n%s", r2.stdout, r.stdout)
	}
}

func TestTrustPolicyErrors(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		name, text, want string
	}{
		{"unknown key", "origins:\n  https://a.example:\n    thumbprint: []\n", "trust.yaml:3:5: https://a.example: unknown key \"thumbprint\": did you mean thumbprints?"},
		{"origin with a path", "origins:\n  https://a.example/a2a:\n    x5c: true\n", "trust.yaml:2:3: origins: \"https://a.example/a2a\" has a path"},
		{"bad thumbprint", "origins:\n  \"*\":\n    x5c: true\nrevoked: [abc]\n", "trust.yaml:4:11: revoked: \"abc\" is not a JWK thumbprint"},
		{"missing key file", "origins:\n  https://a.example:\n    keys: nope.jwks\n", "trust.yaml:3:11: https://a.example: keys: "},
		{"bad jku", "origins:\n  https://a.example:\n    jku: anywhere\n", "trust.yaml:3:10: https://a.example: jku: want same-origin or never"},
		{"duplicate origin", "origins:\n  https://a.example:\n    x5c: true\n  https://A.example:443:\n    x5c: true\n", "trust.yaml:4:3: origins: https://a.example is listed twice"},
		{"no origins", "revoked: []\n", "trust.yaml:1:8: trust: no origins"},
		{"an alias", "origins: &o\n  \"*\":\n    x5c: true\n", "trust.yaml:1:"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := writeFile(t, filepath.Join(dir, "trust.yaml"), []byte(tc.text))
			r := run(t, a2aCard, "--trust", p, "-")
			if r.code != 2 || !strings.Contains(r.stderr, tc.want) {
				t.Errorf("exit %d, stderr %q; want 2 and %q", r.code, r.stderr, tc.want)
			}
		})
	}
	if r := run(t, a2aCard, "--now", "yesterday", "-"); r.code != 2 || !strings.Contains(r.stderr, "--now \"yesterday\": want an RFC 3339 time") {
		t.Errorf("--now yesterday: exit %d, %s", r.code, r.stderr)
	}
}
