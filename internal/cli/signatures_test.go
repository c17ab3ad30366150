package cli

import (
	"bufio"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/go-jose/go-jose/v4"

	"github.com/cardscan/cardscan/cardsig"
	"github.com/cardscan/cardscan/fastvalidate/canon"
	"github.com/cardscan/cardscan/internal/cmderr"
	"github.com/cardscan/cardscan/internal/summary"
)

// a2aCard is a valid A2A 1.0 card, on one line so that signed copies of it
// make an NDJSON input.
const a2aCard = `{"name":"Route Planner","description":"Plans routes","version":"1.0.0","supportedInterfaces":[{"url":"https://geo.example.com/a2a","protocolBinding":"JSONRPC","protocolVersion":"1.0"}],"capabilities":{"streaming":true},"defaultInputModes":["text/plain"],"defaultOutputModes":["application/json"],"skills":[{"id":"route","name":"Route","description":"Finds a route","tags":["maps"]}]}`

// sigFixture holds keys made for one test and the trust store file that
// holds the public halves of k1 (Ed25519) and k2 (P-256); stranger is a
// key the store does not hold.
type sigFixture struct {
	k1, k2, stranger jose.JSONWebKey
	keys             string // path of the JWK Set of k1 and k2
	dir              string
}

func newSigFixture(t *testing.T) *sigFixture {
	t.Helper()
	_, ed, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	p256, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	_, other, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	f := &sigFixture{
		k1:       jose.JSONWebKey{Key: ed, KeyID: "k1"},
		k2:       jose.JSONWebKey{Key: p256, KeyID: "k2"},
		stranger: jose.JSONWebKey{Key: other, KeyID: "k9"},
		dir:      t.TempDir(),
	}
	set, err := json.Marshal(jose.JSONWebKeySet{Keys: []jose.JSONWebKey{f.k1.Public(), f.k2.Public()}})
	if err != nil {
		t.Fatal(err)
	}
	f.keys = writeFile(t, filepath.Join(f.dir, "trusted.jwks"), set)
	return f
}

func (f *sigFixture) sign(t *testing.T, card string, key jose.JSONWebKey, opts cardsig.SignOptions) string {
	t.Helper()
	out, err := cardsig.Sign([]byte(card), key, opts)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(out), "\n") {
		t.Fatalf("signed card spans lines: %s", out)
	}
	return string(out)
}

// sigVerdict is a line of --format jsonl with the member signature
// verification adds.
type sigVerdict struct {
	verdict
	SignedBy []string `json:"signed_by"`
}

func parseSigVerdicts(t *testing.T, out string) []sigVerdict {
	t.Helper()
	var vs []sigVerdict
	sc := bufio.NewScanner(strings.NewReader(out))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var v sigVerdict
		if err := json.Unmarshal(sc.Bytes(), &v); err != nil {
			t.Fatalf("not a verdict: %q: %v", sc.Text(), err)
		}
		vs = append(vs, v)
	}
	return vs
}

// sigFindings lists a verdict's findings of the signature rules as
// "severity rule path".
func sigFindings(v sigVerdict) []string {
	var out []string
	for _, f := range v.Errors {
		if strings.HasPrefix(f.Rule, "a2a.signature-") && f.Rule != "a2a.signature-format" {
			out = append(out, "error "+f.Rule+" "+f.Path)
		}
	}
	for _, f := range v.Warnings {
		if strings.HasPrefix(f.Rule, "a2a.signature-") && f.Rule != "a2a.signature-format" {
			out = append(out, "warning "+f.Rule+" "+f.Path)
		}
	}
	return out
}

// TestSignatureModes runs one input of signed and unsigned cards through
// each --signatures mode and checks each card's verdict.
func TestSignatureModes(t *testing.T) {
	f := newSigFixture(t)
	good := f.sign(t, a2aCard, f.k1, cardsig.SignOptions{})
	// A second entry beside the good one: the first's, with its first
	// signature character changed (the last may carry bits that
	// base64url's canonical form has zero, a fault of the member's form
	// rather than a signature that does not verify).
	var top struct{ Signatures []map[string]string }
	if err := json.Unmarshal([]byte(good), &top); err != nil {
		t.Fatal(err)
	}
	bad := top.Signatures[0]
	first := bad["signature"][0]
	bad["signature"] = map[bool]string{true: "B", false: "A"}[first == 'A'] + bad["signature"][1:]
	badEntry, _ := json.Marshal(bad)
	goodAndBad := strings.Replace(good, `"signatures":[`, `"signatures":[`+string(badEntry)+`,`, 1)
	tampered := strings.Replace(good, `"Plans routes"`, `"Plans routez"`, 1)
	cards := []struct {
		name, card string
		// the signature findings and signed_by in each mode
		check, require []string
		signedBy       []string
	}{
		{"signed by k1", good, nil, nil, []string{"k1"}},
		{"signed by k2 (ES256)", f.sign(t, a2aCard, f.k2, cardsig.SignOptions{}), nil, nil, []string{"k2"}},
		{"one bad, one good", goodAndBad,
			[]string{"warning a2a.signature-invalid /signatures/0"},
			[]string{"warning a2a.signature-invalid /signatures/0"}, []string{"k1"}},
		{"changed after signing", tampered,
			[]string{"error a2a.signature-invalid /signatures/0"},
			[]string{"error a2a.signature-missing /signatures", "error a2a.signature-invalid /signatures/0"}, nil},
		{"unknown kid", f.sign(t, a2aCard, f.stranger, cardsig.SignOptions{}),
			[]string{"warning a2a.signature-key-unknown /signatures/0"},
			[]string{"error a2a.signature-missing /signatures", "error a2a.signature-key-unknown /signatures/0"}, nil},
		{"unknown kid beside a good one", f.sign(t, good, f.stranger, cardsig.SignOptions{}),
			[]string{"warning a2a.signature-key-unknown /signatures/1"},
			[]string{"warning a2a.signature-key-unknown /signatures/1"}, []string{"k1"}},
		// The P-256 key signs, under k1's kid: an Ed25519 key cannot
		// verify ES256.
		{"key does not fit alg", f.sign(t, a2aCard, f.k2, cardsig.SignOptions{KeyID: "k1"}),
			[]string{"error a2a.signature-alg /signatures/0"},
			[]string{"error a2a.signature-missing /signatures", "error a2a.signature-alg /signatures/0"}, nil},
		{"jku outside --trust-jku", f.sign(t, a2aCard, f.stranger, cardsig.SignOptions{JKU: "https://evil.example/keys.json"}),
			[]string{"warning a2a.signature-key-unknown /signatures/0"},
			[]string{"error a2a.signature-missing /signatures", "error a2a.signature-key-unknown /signatures/0"}, nil},
		{"unsigned", a2aCard, nil, []string{"error a2a.signature-missing "}, nil},
		{"duplicate member", strings.Replace(good, `"version":"1.0.0"`, `"version":"1.0.0","version":"1.0.0"`, 1),
			[]string{"error a2a.signature-invalid /signatures"},
			[]string{"error a2a.signature-invalid /signatures", "error a2a.signature-missing /signatures"}, nil},
	}
	var input strings.Builder
	for _, c := range cards {
		input.WriteString(c.card + "\n")
	}
	path := writeFile(t, filepath.Join(f.dir, "cards.ndjson"), []byte(input.String()))
	plain := run(t, "", "--format", "jsonl", "--all", path)
	plainVerdicts := parseSigVerdicts(t, plain.stdout)

	for _, mode := range []string{"off", "check", "require"} {
		t.Run(mode, func(t *testing.T) {
			args := []string{"--format", "jsonl", "--all", "--keys", f.keys, "--trust-jku", "https://keys.example/a2a/", "--signatures", mode, path}
			if mode == "off" {
				// Keys beside off are refused (TestSignaturesOffWithKeys).
				args = []string{"--format", "jsonl", "--all", "--signatures", mode, path}
			}
			r := run(t, "", args...)
			if r.code == cmderr.StatusUsage || r.code == cmderr.StatusIO {
				t.Fatalf("exit %d: %s", r.code, r.stderr)
			}
			vs := parseSigVerdicts(t, r.stdout)
			if len(vs) != len(cards) {
				t.Fatalf("%d verdicts for %d cards", len(vs), len(cards))
			}
			for i, c := range cards {
				v := vs[i]
				if mode == "off" {
					if !reflect.DeepEqual(v, plainVerdicts[i]) {
						t.Errorf("%s: verdict %+v, want the one without keys %+v", c.name, v, plainVerdicts[i])
					}
					continue
				}
				want := c.check
				if mode == "require" {
					want = c.require
				}
				if got := sigFindings(v); !reflect.DeepEqual(got, want) {
					t.Errorf("%s: signature findings %q, want %q", c.name, got, want)
				}
				if !reflect.DeepEqual(v.SignedBy, c.signedBy) {
					t.Errorf("%s: signed_by %q, want %q", c.name, v.SignedBy, c.signedBy)
				}
				// Signature errors, and only they, turn a valid card invalid.
				wantValid := plainVerdicts[i].Valid
				for _, w := range want {
					wantValid = wantValid && !strings.HasPrefix(w, "error ")
				}
				if v.Valid != wantValid {
					t.Errorf("%s: valid %v, want %v", c.name, v.Valid, wantValid)
				}
			}
		})
	}
}

// The messages name what went wrong, for the cases a user must tell apart.
func TestSignatureMessages(t *testing.T) {
	f := newSigFixture(t)
	jku := f.sign(t, a2aCard, f.stranger, cardsig.SignOptions{JKU: "https://evil.example/keys.json"})
	r := run(t, jku+"\n", "--format", "text", "--keys", f.keys, "--trust-jku", "https://keys.example/a2a/")
	// A signature's finding sits at its entry in the signatures array.
	entryColumn := func(card string) int {
		i := strings.Index(card, `"signatures":[`)
		if i < 0 {
			t.Fatalf("no signatures array in %.80q", card)
		}
		return i + len(`"signatures":[`) + 1
	}
	want := fmt.Sprintf(`<stdin>:1:%d: warning: a2a.signature-key-unknown: /signatures/0: no trusted key has kid "k9", and jku "https://evil.example/keys.json" is outside the trusted jku prefixes`+"\n", entryColumn(jku))
	if r.stdout != want || r.code != cmderr.StatusOK {
		t.Errorf("exit %d, stdout %q, want %q", r.code, r.stdout, want)
	}
	tampered := strings.Replace(f.sign(t, a2aCard, f.k1, cardsig.SignOptions{}), "Route Planner", "Route Plannex", 1)
	r = run(t, tampered+"\n", "--keys", f.keys)
	// An invalid card says which A2A version judged it, first.
	want = "<stdin>:1:1: note: judged as a2a/1.0\n" +
		fmt.Sprintf(`<stdin>:1:%d: error: a2a.signature-invalid: /signatures/0: signature does not verify with key "k1"`+"\n", entryColumn(tampered))
	if r.stdout != want || r.code != cmderr.StatusFailed {
		t.Errorf("exit %d, stdout %q, want %q", r.code, r.stdout, want)
	}
}

// Text output says who signed a valid card on its ok line.
func TestSignatureTextOK(t *testing.T) {
	f := newSigFixture(t)
	both := f.sign(t, f.sign(t, a2aCard, f.k1, cardsig.SignOptions{}), f.k2, cardsig.SignOptions{})
	r := run(t, both+"\n"+a2aCard+"\n", "--all", "--keys", f.keys)
	want := "<stdin>:1:1: ok: a2a/1.0, signed by k1, k2\n<stdin>:2:1: ok: a2a/1.0\n"
	if r.stdout != want {
		t.Errorf("stdout %q, want %q", r.stdout, want)
	}
	if !strings.Contains(r.stderr, "; 1 of 1 signed card verified;") {
		t.Errorf("stderr %q does not count the verified card", r.stderr)
	}
}

// A card signed over its members without the empty ones verifies with
// --canonical drop-empty and not as-is; one signed as served, the reverse.
func TestSignatureCanonicalModes(t *testing.T) {
	f := newSigFixture(t)
	withEmpty := strings.Replace(a2aCard, `"tags":["maps"]`, `"tags":["maps"],"examples":[]`, 1)
	cleaned := f.sign(t, withEmpty, f.k1, cardsig.SignOptions{Mode: canon.DropEmpty})
	asServed := f.sign(t, withEmpty, f.k1, cardsig.SignOptions{})
	for _, tc := range []struct {
		canonical string
		signedBy  [2]bool
	}{{"as-is", [2]bool{false, true}}, {"drop-empty", [2]bool{true, false}}} {
		r := run(t, cleaned+"\n"+asServed+"\n", "--format", "jsonl", "--all", "--keys", f.keys, "--canonical", tc.canonical)
		vs := parseSigVerdicts(t, r.stdout)
		if len(vs) != 2 {
			t.Fatalf("--canonical %s: %d verdicts", tc.canonical, len(vs))
		}
		for i, v := range vs {
			if got := len(v.SignedBy) == 1 && v.SignedBy[0] == "k1"; got != tc.signedBy[i] {
				t.Errorf("--canonical %s, card %d: signed_by %q, want signed %v", tc.canonical, i+1, v.SignedBy, tc.signedBy[i])
			}
		}
	}
}

// Without keys, or with --signatures off, a run says and counts exactly
// what it did before signatures were verified; with keys, cards without
// signatures are judged as they were too.
func TestSignaturesLeaveUnsignedCardsAlone(t *testing.T) {
	f := newSigFixture(t)
	dir := t.TempDir()
	args := []string{"--format", "jsonl", "--all", cardsFile}
	plain := run(t, "", append(args, "--summary", filepath.Join(dir, "plain.json"))...)
	for _, extra := range [][]string{{"--keys", f.keys}, {"--signatures", "off"}, {"--canonical", "drop-empty"}} {
		name := filepath.Join(dir, "s.json")
		r := run(t, "", append(append(args, "--summary", name), extra...)...)
		if r.stdout != plain.stdout || r.code != plain.code {
			t.Errorf("%v: output differs from a run without keys", extra)
		}
		s, p := readSummary(t, name), readSummary(t, filepath.Join(dir, "plain.json"))
		wantSigs := extra[0] == "--keys" && len(extra) == 2
		if (s.Signatures != nil) != wantSigs || s.Signatures != nil && !reflect.DeepEqual(*s.Signatures, summary.Signatures{}) {
			t.Errorf("%v: summary signatures %+v", extra, s.Signatures)
		}
		s.Signatures, s.Seconds, s.MBPerSecond, p.Seconds, p.MBPerSecond = nil, 0, 0, 0, 0
		if !reflect.DeepEqual(s, p) {
			t.Errorf("%v: summary %+v, want %+v", extra, s, p)
		}
	}
}

// The summary counts signed and verified cards and signature findings, and
// summary merge adds them up.
func TestSignatureSummaryAndMerge(t *testing.T) {
	f := newSigFixture(t)
	good := f.sign(t, a2aCard, f.k1, cardsig.SignOptions{})
	unknown := f.sign(t, a2aCard, f.stranger, cardsig.SignOptions{})
	tampered := strings.Replace(good, "Route Planner", "Route Plannex", 1)
	dir := t.TempDir()
	shards := []struct {
		input string
		want  summary.Signatures
	}{
		{good + "\n" + unknown + "\n" + a2aCard + "\n", summary.Signatures{Signed: 2, Verified: 1, Findings: 1, Outcomes: map[string]int64{"verified": 1, "key-unknown": 1}}},
		{tampered + "\n" + good + "\n", summary.Signatures{Signed: 2, Verified: 1, Findings: 1, Outcomes: map[string]int64{"verified": 1, "invalid": 1}}},
	}
	var paths []string
	for i, sh := range shards {
		path := filepath.Join(dir, string(rune('a'+i))+".json")
		run(t, sh.input, "-q", "--keys", f.keys, "--summary", path)
		s := readSummary(t, path)
		if s.Signatures == nil || !reflect.DeepEqual(*s.Signatures, sh.want) {
			t.Errorf("shard %d: signatures %+v, want %+v", i, s.Signatures, sh.want)
		}
		paths = append(paths, path)
	}
	// A shard run without keys has no signature counts, and adds none.
	plain := filepath.Join(dir, "plain.json")
	run(t, a2aCard+"\n", "-q", "--summary", plain)
	if s := readSummary(t, plain); s.Signatures != nil {
		t.Errorf("run without keys: signatures %+v", s.Signatures)
	}
	m := run(t, "", append([]string{"summary", "merge", plain}, paths...)...)
	if m.code != cmderr.StatusOK {
		t.Fatalf("merge: exit %d %s", m.code, m.stderr)
	}
	merged, err := summary.Unmarshal([]byte(m.stdout))
	if err != nil {
		t.Fatal(err)
	}
	want := summary.Signatures{Signed: 4, Verified: 2, Findings: 2, Outcomes: map[string]int64{"verified": 2, "key-unknown": 1, "invalid": 1}}
	if merged.Signatures == nil || !reflect.DeepEqual(*merged.Signatures, want) || merged.Rules["a2a.signature-invalid"] != 1 || merged.Rules["a2a.signature-key-unknown"] != 1 {
		t.Errorf("merged signatures %+v, rules %v; want %+v", merged.Signatures, merged.Rules, want)
	}
	// A summary whose signature counts cannot be is not one.
	bad := writeFile(t, filepath.Join(dir, "bad.json"), []byte(`{"records":1,"valid":1,"invalid":0,"signatures":{"signed":1,"verified":2,"findings":0}}`))
	if r := run(t, "", "summary", "merge", bad); r.code != cmderr.StatusIO {
		t.Errorf("impossible signature counts: exit %d %q", r.code, r.stderr)
	}
}

func TestSignatureUsageErrors(t *testing.T) {
	f := newSigFixture(t)
	notKeys := writeFile(t, filepath.Join(f.dir, "sym.jwk"), []byte(`{"keys":[{"kty":"oct","kid":"h","k":"c2VjcmV0"}]}`))
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--signatures", "maybe"}, `--signatures "maybe": want off, check or require`},
		{[]string{"--canonical", "sorted"}, `--canonical "sorted": want as-is or drop-empty`},
		{[]string{"--signatures", "require"}, "--signatures require needs trusted keys"},
		{[]string{"--keys", filepath.Join(f.dir, "none.jwks")}, "none.jwks: no such file"},
		{[]string{"--keys", notKeys}, "symmetric key"},
		{[]string{"--keys", f.keys, "--keys", f.keys}, `kid "k1" is already in the trust store`},
		{[]string{"--keys", f.keys, "--trust-jku", "http://keys.example/"}, "--trust-jku: jku prefix \"http://keys.example/\" is not an https URL"},
	} {
		r := run(t, a2aCard+"\n", tc.args...)
		if r.code != cmderr.StatusUsage || !strings.Contains(r.stderr, tc.want) || r.stdout != "" {
			t.Errorf("%v: exit %d, stderr %q, want it to hold %q", tc.args, r.code, r.stderr, tc.want)
		}
	}
}
