package migrate

import (
	"bufio"
	"bytes"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cardscan/cardscan/cardsig"
	"github.com/cardscan/cardscan/fastvalidate"
	"github.com/cardscan/cardscan/internal/golden"
	"github.com/go-jose/go-jose/v4"
	"github.com/klauspost/compress/zstd"
)

func mustNew(t testing.TB, o Options) *Migrator {
	t.Helper()
	m, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func read(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "cards", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// The invoice card, laid out six ways, loses nothing on the way to 1.0:
// its round trip must give back every byte. It is written as 0.3's
// sample card is (protocolVersion first, additionalInterfaces repeating
// the main interface, supportsAuthenticatedExtendedCard last), which is
// where the way back puts those members.
func TestRoundTripExact(t *testing.T) {
	up := mustNew(t, Options{To: V10})
	down := mustNew(t, Options{To: V03})
	for _, name := range []string{"invoice-0.3-indent2.json", "invoice-0.3-indent4.json", "invoice-0.3-tabs.json",
		"invoice-0.3-compact.json", "invoice-0.3-oneline.json", "invoice-0.3-crlf.json"} {
		t.Run(name, func(t *testing.T) {
			src := read(t, name)
			var r1, r2 Record
			v10 := up.Migrate(nil, src, &r1)
			if r1.Status != StatusMigrated || !r1.ValidBefore || !r1.ValidAfter {
				t.Fatalf("to 1.0: %+v\n%s", r1, v10)
			}
			for _, c := range r1.Changes {
				if c.Action == "dropped" {
					t.Fatalf("to 1.0 dropped %s: %s", c.From, c.Message)
				}
			}
			var top map[string]json.RawMessage
			if err := json.Unmarshal(v10, &top); err != nil {
				t.Fatal(err)
			}
			if top["url"] != nil || top["x-vendor-note"] == nil {
				t.Errorf("to 1.0 kept url or lost the unknown member:\n%s", v10)
			}
			back := down.Migrate(nil, v10, &r2)
			if r2.Status != StatusMigrated || !r2.ValidAfter {
				t.Fatalf("back to 0.3: %+v", r2)
			}
			if !bytes.Equal(back, src) {
				t.Errorf("round trip differs:\n--- got\n%s\n--- want\n%s\n--- 1.0\n%s", back, src, v10)
			}
		})
	}
}

// A round trip gives back a different card only where the 1.0 card
// cannot say what the 0.3 card said. The geo card shows each way:
// stateTransitionHistory is dropped (1.0 has none), and the
// "additionalInterfaces" : name, spaced by hand, comes back in the
// card's own style, since the member is written anew.
func TestRoundTripDiffers(t *testing.T) {
	src := read(t, "geo-0.3-pretty.json")
	var r1, r2 Record
	v10 := mustNew(t, Options{To: V10}).Migrate(nil, src, &r1)
	back := mustNew(t, Options{To: V03}).Migrate(nil, v10, &r2)
	want := strings.Replace(string(src), `"additionalInterfaces" :`, `"additionalInterfaces":`, 1)
	want = strings.Replace(want, "\"streaming\": true,\n    \"stateTransitionHistory\": false", `"streaming": true`, 1)
	if string(back) != want {
		t.Errorf("round trip:\n--- got\n%s\n--- want\n%s", back, want)
	}
	dropped := 0
	for _, c := range r1.Changes {
		if c.Action == "dropped" {
			dropped++
			if c.Rule != "migrate.removed" || c.From != "/capabilities/stateTransitionHistory" {
				t.Errorf("unexpected drop: %+v", c)
			}
		}
	}
	if dropped != 1 {
		t.Errorf("want one drop reported, got %d: %+v", dropped, r1.Changes)
	}
}

// Each migration's card and record are golden files: a change to either
// shows in review.
func TestGolden(t *testing.T) {
	cases := []struct {
		name, card string
		opts       Options
	}{
		{"geo-to-1.0", "geo-0.3-pretty.json", Options{To: V10}},
		{"geo-to-1.0-keep-legacy", "geo-0.3-pretty.json", Options{To: V10, KeepLegacy: true}},
		{"legacy-0.2-to-1.0", "legacy-0.2.json", Options{To: V10}},
		{"new-1.0-to-0.3", "new-1.0.json", Options{To: V03}},
		{"invoice-compact-to-1.0", "invoice-0.3-compact.json", Options{To: V10}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var rec Record
			rec.Input = tc.card
			out := mustNew(t, tc.opts).Migrate(nil, read(t, tc.card), &rec)
			if !rec.ValidAfter {
				t.Errorf("migrated card fails %s: %+v", tc.opts.To, rec.Errors)
			}
			golden.Check(t, "golden/"+tc.name+".json", string(out))
			b, err := json.MarshalIndent(&rec, "", "  ")
			if err != nil {
				t.Fatal(err)
			}
			golden.Check(t, "golden/"+tc.name+".record.json", string(b)+"\n")
		})
	}
}

// A hybrid written with --keep-legacy goes back to the very card it came
// from: only its 1.0 members are dropped.
func TestKeepLegacyRoundTrip(t *testing.T) {
	src := read(t, "geo-0.3-pretty.json")
	var r1, r2 Record
	hybrid := mustNew(t, Options{To: V10, KeepLegacy: true}).Migrate(nil, src, &r1)
	if !r1.ValidAfter {
		t.Fatalf("hybrid fails 1.0: %+v", r1.Errors)
	}
	res := fastvalidate.MustNew(V10).Validate(hybrid)
	hybridWarned := false
	for _, f := range res.Findings() {
		hybridWarned = hybridWarned || f.Code == fastvalidate.CodeA2AHybrid
	}
	if !hybridWarned {
		t.Error("a hybrid card should draw the a2a.hybrid warning")
	}
	back := mustNew(t, Options{To: V03}).Migrate(nil, hybrid, &r2)
	if !bytes.Equal(back, src) {
		t.Errorf("hybrid back to 0.3 differs:\n--- got\n%s\n--- want\n%s", back, src)
	}
}

func TestSigned(t *testing.T) {
	_, priv, _ := ed25519.GenerateKey(rand.Reader)
	key := jose.JSONWebKey{Key: priv, KeyID: "k1", Algorithm: "EdDSA"}
	src := read(t, "invoice-0.3-indent2.json")
	signed, err := cardsig.Sign(src, key, cardsig.SignOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var rec Record
	out := mustNew(t, Options{To: V10}).Migrate(nil, signed, &rec)
	if rec.Status != StatusRefused || !bytes.Equal(out, signed) || rec.Changes[0].Rule != "migrate.signed" {
		t.Errorf("a signed card must be refused as it is: %+v", rec)
	}
	out = mustNew(t, Options{To: V10, DropSignatures: true}).Migrate(nil, signed, &rec)
	if rec.Status != StatusMigrated || bytes.Contains(out, []byte(`"signatures"`)) || !rec.ValidAfter {
		t.Errorf("--drop-signatures: %+v\n%s", rec, out)
	}
	out = mustNew(t, Options{To: V10, SignKey: &key}).Migrate(nil, signed, &rec)
	if rec.Status != StatusMigrated || bytes.Count(out, []byte(`"protected"`)) != 1 {
		t.Fatalf("--key: %+v\n%s", rec, out)
	}
	pub := jose.JSONWebKey{Key: priv.Public(), KeyID: "k1", Algorithm: "EdDSA"}
	set, err := json.Marshal(jose.JSONWebKeySet{Keys: []jose.JSONWebKey{pub}})
	if err != nil {
		t.Fatal(err)
	}
	ks, err := cardsig.ParseKeySet(set)
	if err != nil {
		t.Fatal(err)
	}
	v, err := cardsig.NewVerifier(ks)
	if err != nil {
		t.Fatal(err)
	}
	if res, err := v.Verify(out); err != nil || !res.Verified() {
		t.Errorf("the re-signed card does not verify: %+v %v", res, err)
	}
}

func TestRefused(t *testing.T) {
	m := mustNew(t, Options{To: V10})
	for _, card := range []string{`{"name": "x"`, `[1]`, `{"name":"a","url":"https://a.example","version":"1","capabilities":{},"skills":[]}`} {
		var rec Record
		out := m.Migrate(nil, []byte(card), &rec)
		if rec.Status != StatusRefused || string(out) != card || len(rec.Changes) != 1 || rec.Changes[0].Rule != "migrate.unsupported" {
			t.Errorf("%s: want refused as it is with migrate.unsupported, got %+v", card, rec)
		}
	}
}

// sampleCards reads the generated corpus the repository keeps.
func sampleCards(t testing.TB) [][]byte {
	f, err := os.Open("../../corpus/sample.ndjson.zst")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	d, err := zstd.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	var cards [][]byte
	sc := bufio.NewScanner(d)
	sc.Buffer(nil, 16<<20)
	for sc.Scan() {
		cards = append(cards, bytes.Clone(sc.Bytes()))
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return cards
}

// Every valid 0.2 and 0.3 card migrates to a valid 1.0 card, every valid
// 1.0 card to a valid 0.3 card: no record may say failed.
func TestCorpus(t *testing.T) {
	checkCorpus(t, "corpus/sample.ndjson.zst", sampleCards(t))
}

func TestRealCards(t *testing.T) {
	const dir = "../../../shared/corpus/real"
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Skipf("the real cards are not here (%v): skipped", err)
	}
	var cards [][]byte
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), ".json") {
			continue
		}
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		cards = append(cards, b)
	}
	checkCorpus(t, dir, cards)
}

func checkCorpus(t *testing.T, name string, cards [][]byte) {
	up := mustNew(t, Options{To: V10, DropSignatures: true})
	down := mustNew(t, Options{To: V03, DropSignatures: true})
	counts := map[string]int{}
	for i, card := range cards {
		for _, m := range []*Migrator{up, down} {
			var rec Record
			m.Migrate(nil, card, &rec)
			if !rec.ValidBefore || rec.Status == StatusUnchanged || rec.Status == StatusRefused {
				continue
			}
			counts[rec.From+" -> "+rec.To]++
			if rec.Status == StatusFailed || !rec.ValidAfter {
				t.Errorf("%s card %d, %s -> %s: %+v", name, i+1, rec.From, rec.To, rec.Errors)
			}
		}
	}
	if len(counts) == 0 {
		t.Fatalf("%s: no valid card migrated", name)
	}
	t.Logf("%s: valid cards migrated to valid cards: %v", name, counts)
}

// A 1.0 OAuth scheme whose only flow is deviceCode has no 0.3 shape: its
// flows would be empty, a scheme no 0.3 client can get a token from (and
// a2a-go's reader rejects). Unused, it is dropped; required, the card is
// refused, since dropping it would drop a security requirement.
func TestDeviceCodeOnlyScheme(t *testing.T) {
	down := mustNew(t, Options{To: V03})
	src := read(t, "new-1.0.json")
	var rec Record
	out := down.Migrate(nil, src, &rec)
	var card struct {
		SecuritySchemes map[string]json.RawMessage `json:"securitySchemes"`
	}
	if err := json.Unmarshal(out, &card); err != nil {
		t.Fatal(err)
	}
	if rec.Status != StatusMigrated || card.SecuritySchemes["dev"] != nil || card.SecuritySchemes["code"] == nil {
		t.Errorf("the unused device-code scheme should be dropped, the other kept: %+v\n%s", rec, out)
	}
	dropped := false
	for _, c := range rec.Changes {
		dropped = dropped || (c.Rule == "migrate.scheme-unsupported" && c.From == "/securitySchemes/dev" && c.Action == "dropped")
	}
	if !dropped {
		t.Errorf("the drop of /securitySchemes/dev is not reported: %+v", rec.Changes)
	}

	required := bytes.Replace(src, []byte(`"code": {
          "list"`), []byte(`"dev": {
          "list"`), 1)
	if bytes.Equal(required, src) {
		t.Fatal("the test card changed: no requirement to point at dev")
	}
	for _, card := range [][]byte{required, skillRequires(t, src, "dev")} {
		out = down.Migrate(nil, card, &rec)
		if rec.Status != StatusRefused || !bytes.Equal(out, card) || len(rec.Changes) != 1 ||
			rec.Changes[0].Rule != "migrate.scheme-unsupported" || !strings.Contains(rec.Changes[0].Message, "/securitySchemes/dev") {
			t.Errorf("a required device-code scheme must refuse the card as it is: %+v", rec)
		}
	}
}

// skillRequires returns the 1.0 card with its skill requiring scheme.
func skillRequires(t *testing.T, card []byte, scheme string) []byte {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(card, &m); err != nil {
		t.Fatal(err)
	}
	m["skills"].([]any)[0].(map[string]any)["securityRequirements"] = []any{map[string]any{"schemes": map[string]any{scheme: map[string]any{"list": []any{}}}}}
	delete(m, "securityRequirements")
	b, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// Every OAuth scheme of a card migrated to 0.3 keeps a flow.
func TestOAuthSchemesKeepAFlow(t *testing.T) {
	down := mustNew(t, Options{To: V03, DropSignatures: true})
	n := 0
	for i, card := range sampleCards(t) {
		var rec Record
		out := down.Migrate(nil, card, &rec)
		if rec.Status != StatusMigrated {
			continue
		}
		var c struct {
			SecuritySchemes map[string]struct {
				Type  string         `json:"type"`
				Flows map[string]any `json:"flows"`
			} `json:"securitySchemes"`
		}
		if err := json.Unmarshal(out, &c); err != nil {
			t.Fatalf("sample card %d: the migrated card is not JSON: %v", i+1, err)
		}
		for name, s := range c.SecuritySchemes {
			if s.Type == "oauth2" {
				n++
				if len(s.Flows) == 0 {
					t.Errorf("sample card %d: scheme %s has no flow left in 0.3: %+v", i+1, name, rec.Changes)
				}
			}
		}
	}
	if n == 0 {
		t.Fatal("no OAuth scheme in the sample migrated to 0.3")
	}
}

// BenchmarkMigrate migrates the sample corpus's cards to each release.
func BenchmarkMigrate(b *testing.B) {
	f, err := os.Open("../../corpus/sample.ndjson.zst")
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	d, err := zstd.NewReader(f)
	if err != nil {
		b.Fatal(err)
	}
	defer d.Close()
	var cards [][]byte
	size := 0
	sc := bufio.NewScanner(d)
	sc.Buffer(nil, 16<<20)
	for sc.Scan() {
		cards = append(cards, bytes.Clone(sc.Bytes()))
		size += len(sc.Bytes())
	}
	for _, to := range []string{V10, V03} {
		b.Run(strings.TrimPrefix(to, "a2a/"), func(b *testing.B) {
			m := mustNew(b, Options{To: to, DropSignatures: true})
			var rec Record
			var buf []byte
			b.SetBytes(int64(size))
			b.ReportAllocs()
			for b.Loop() {
				for _, c := range cards {
					buf = m.Migrate(buf[:0], c, &rec)
				}
			}
		})
	}
}

// A value moved deeper and back keeps its bytes, even a line indented
// less than the line the value opens on (a closing brace at the margin
// under a member indented by one space).
func TestReindentInverse(t *testing.T) {
	for _, text := range []string{
		"{\"in\":\"header\"\n}",
		"{\"a\":1,\n  \"b\":2\n }",
		"[1,\n\t2\n]",
	} {
		deeper := reindent([]byte(text), " ", "   ")
		back := reindent(deeper, "   ", " ")
		if string(back) != text {
			t.Errorf("moved in and out, %q became %q (via %q)", text, back, deeper)
		}
	}
}

// An apiKey scheme whose closing brace stands at the margin, under a
// line indented by one space, and follows another scheme on that line:
// unwrapping it after 0.3 -> 1.0 put its brace two spaces in, then one,
// then back, one step a round trip.
func TestIrregularSchemeRoundTrip(t *testing.T) {
	card := []byte("{\"protocolVersion\":\"0.3.0\",\"name\":\"0\",\"description\":\"0\",\"url\":\"A:\",\"preferredTransport\":\"0\",\"version\":\"0\",\"capabilities\":{},\"securitySchemes\":{\"0\":{\"type\":\"oauth2\",\"flows\":{\n \"clientCredentials\":{\"tokenUrl\":\"http://0\",\"scopes\":{}}}},\"1\":{\"type\":\"apiKey\",\"in\":\"header\",\"name\":\"0\"\n}},\"defaultInputModes\":[\"\"],\"defaultOutputModes\":[\"\"],\"skills\":[{\"id\":\"0\",\"name\":\"0\",\"description\":\"0\",\"tags\":[\"\"]}]}")
	up := mustNew(t, Options{To: V10})
	down := mustNew(t, Options{To: V03})
	first, ok := roundTrip(up, down, card)
	if !ok {
		t.Fatalf("the card does not round trip:\n%s", card)
	}
	second, _ := roundTrip(up, down, first)
	if !bytes.Equal(first, second) {
		t.Fatalf("a second round trip differs:\n%s\n->\n%s", first, second)
	}
	if !bytes.Contains(first, []byte("\"name\":\"0\"\n}")) {
		t.Errorf("the scheme's closing brace moved:\n%s\n->\n%s", card, first)
	}
}
