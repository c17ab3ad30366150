package migrate

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/cardscan/cardscan/internal/jsonedit"

	"github.com/cardscan/cardscan/corpus"
	"github.com/cardscan/cardscan/fastvalidate"
)

// The differential test holds migrate to the validator, card by card:
// every card of the generated A2A dialects (half with a defect), the
// sample corpus, the validator's test cards and tables, migrate's own test cards,
// the real cards (when ../shared/corpus/real is there) and every card one
// edit away from valid cards of each release is migrated to 1.0 and to
// 0.3. The record must say what the target profile says of the card
// written; a card that passed its release must pass the target or be
// refused under a migrate.* rule; and a valid 0.3 card back from 1.0
// must hold every value it held, but those docs/cli.md says a round trip
// changes and those its records say were dropped.

// diffEditValues are the values each member is set to in turn.
var diffEditValues = []string{
	`null`, `true`, `0`, `-1`, `1.5`, `""`, `"x"`, `[]`, `{}`, `["x"]`, `[{}]`, `{"x": 1}`,
	`"https://example.com/a"`, `"http://example.com"`, `"not a uri"`, `"grpc://h:1"`,
	`"JSONRPC"`, `"GRPC"`, `"HTTP+JSON"`, `"jsonrpc"`, `"0.3.0"`, `"0.2.5"`, `"1.0"`,
	`"apiKey"`, `"http"`, `"oauth2"`, `"openIdConnect"`, `"mutualTLS"`, `"header"`,
}

// diffBases is how many valid cards of each release are edited.
const diffBases = 4

func TestDifferential_MigrateAgainstValidator(t *testing.T) {
	cards := diffCards(t)
	var release = map[string]*fastvalidate.Validator{}
	for _, p := range []string{"a2a/0.1", V02, V03, V10} {
		release[p] = fastvalidate.MustNew(p)
	}
	detect := fastvalidate.MustNew("a2a")
	bases := map[string]int{}
	for _, c := range slices.Clone(cards) {
		r := detect.Validate(c.card)
		if !r.Detected || !r.Valid() || r.Profile == "a2a/0.1" || bases[r.Profile] == diffBases {
			continue
		}
		bases[r.Profile]++
		cards = append(cards, diffEdits(t, c)...)
	}
	up := mustNew(t, Options{To: V10, DropSignatures: true})
	down := mustNew(t, Options{To: V03, DropSignatures: true})
	keep := map[*Migrator]*Migrator{up: mustNew(t, Options{To: V10}), down: mustNew(t, Options{To: V03})}
	signed := 0
	roundTrips := map[string]int{}
	counts := map[string]int{}
	failures := 0
	fail := func(format string, args ...any) {
		failures++
		if failures <= 20 {
			t.Errorf(format, args...)
		}
	}
	for _, c := range cards {
		for _, m := range []*Migrator{up, down} {
			var rec Record
			out := m.Migrate(nil, c.card, &rec)
			counts[rec.From+" -> "+rec.To+" "+rec.Status]++
			if problem := checkRecord(&rec, c.card, out, release[m.opts.To]); problem != "" {
				fail("%s, to %s: %s\n%s\n->\n%s", c.name, m.opts.To, problem, c.card, out)
			}
			if problem := checkSigned(keep[m], &rec, c.card); problem != "" {
				fail("%s, to %s: %s\n%s", c.name, m.opts.To, problem, c.card)
			} else if slices.ContainsFunc(rec.Changes, func(c Change) bool { return c.Rule == "migrate.signed" }) {
				signed++
			}
			if c.absent != nil && rec.ValidBefore && !rec.ValidAfter && rec.Status != StatusRefused {
				var without Record
				m.Migrate(nil, c.absent, &without)
				if without.ValidBefore && without.ValidAfter {
					fail("%s, to %s: the member set to null, which %s reads as absent, fails the target where the card without it migrates to a valid card: %+v\n%s\n->\n%s",
						c.name, m.opts.To, rec.From, rec.Errors, c.card, out)
				}
			}
		}
		if checked, problem := checkRoundTrip(up, down, c.card, release); problem != "" {
			fail("%s, 0.3 -> 1.0 -> 0.3: %s\n%s", c.name, problem, c.card)
		} else if checked {
			roundTrips["0.3 -> 1.0 -> 0.3"]++
		}
		if checked, problem := checkRoundTrip10(up, down, c.card); problem != "" {
			fail("%s, 1.0 -> 0.3 -> 1.0: %s\n%s", c.name, problem, c.card)
		} else if checked {
			roundTrips["1.0 -> 0.3 -> 1.0"]++
		}
	}
	t.Logf("%d cards (edits of %v valid cards among them), migrated each way: %v", len(cards), bases, counts)
	t.Logf("round trips that kept every value: %v", roundTrips)
	if roundTrips["0.3 -> 1.0 -> 0.3"] == 0 || roundTrips["1.0 -> 0.3 -> 1.0"] == 0 {
		t.Errorf("a round trip was never checked: %v", roundTrips)
	}
	if signed == 0 {
		t.Error("no signed card was migrated: the refusal of signed cards is not checked")
	}
	for _, want := range []string{"a2a/0.2 -> a2a/1.0 migrated", "a2a/0.3 -> a2a/1.0 migrated", "a2a/1.0 -> a2a/0.3 migrated"} {
		if counts[want] == 0 {
			t.Errorf("no card went %s: the differential shows nothing there", want)
		}
	}
}

// checkRecord returns what is wrong with the record of a card migrated
// to out, judged anew by target, or "".
func checkRecord(rec *Record, in, out []byte, target *fastvalidate.Validator) string {
	switch rec.Status {
	case StatusRefused, StatusUnchanged:
		if !bytes.Equal(in, out) {
			return rec.Status + " but the bytes changed"
		}
		if rec.Status == StatusRefused && !slices.ContainsFunc(rec.Changes, func(c Change) bool {
			return c.Action == "refused" && strings.HasPrefix(c.Rule, "migrate.") && c.Message != ""
		}) {
			return fmt.Sprintf("refused without a migrate.* change saying why: %+v", rec.Changes)
		}
		return ""
	}
	if !json.Valid(out) {
		return "the card written is no JSON"
	}
	res := target.Validate(out)
	if res.Valid() != rec.ValidAfter {
		return fmt.Sprintf("valid_after is %v where %s says %v", rec.ValidAfter, rec.To, res.Valid())
	}
	for _, f := range res.Findings() {
		if f.Severity == fastvalidate.SeverityError && strings.HasPrefix(f.Rule(), "json.") {
			return fmt.Sprintf("the card written breaks %s at %s: the migration wrote no JSON one reads one way", f.Rule(), f.Path)
		}
	}
	if rec.ValidBefore && !res.Valid() && (rec.Status != StatusFailed || len(rec.Errors) != res.Errors() ||
		!slices.ContainsFunc(rec.Changes, func(c Change) bool { return c.Rule == "migrate.invalid-result" })) {
		return fmt.Sprintf("a card valid under %s became invalid under %s without a failed record naming the errors (status %s): %+v", rec.From, rec.To, rec.Status, rec.Errors)
	}
	return ""
}

// checkSigned returns what is wrong with how plain, a migrator told
// neither to drop signatures nor to sign, treats a card whose migration
// with --drop-signatures (rec) dropped them: it must refuse it as it is,
// under migrate.signed.
func checkSigned(plain *Migrator, rec *Record, card []byte) string {
	if !slices.ContainsFunc(rec.Changes, func(c Change) bool { return c.Rule == "migrate.signed" && c.Action == "dropped" }) {
		return ""
	}
	var own Record
	out := plain.Migrate(nil, card, &own)
	if own.Status != StatusRefused || !bytes.Equal(out, card) || len(own.Changes) != 1 || own.Changes[0].Rule != "migrate.signed" {
		return fmt.Sprintf("a signed card was not refused under migrate.signed without --drop-signatures or --key: %s %+v", own.Status, own.Changes)
	}
	return ""
}

// holdsMembersOf reports whether a card carries a member only the other
// release defines (names, a skill's given as "skills/*/NAME"), which a
// round trip writes back in the card's own release's shape (a 0.3 card's
// securityRequirements comes back as security).
func holdsMembersOf(card []byte, names []string) bool {
	for ptr := range leaves(card) {
		parts := strings.Split(ptr, "/")
		if len(parts) > 3 && parts[1] == "skills" {
			parts[2] = "*"
		}
		for _, n := range names {
			if strings.HasPrefix(strings.Join(parts, "/")+"/", "/"+n+"/") {
				return true
			}
		}
	}
	return false
}

// only10 and only0x are the members one release defines and the other
// does not.
var (
	only10 = []string{"securityRequirements", "supportedInterfaces", "capabilities/extendedAgentCard", "skills/*/securityRequirements"}
	only0x = []string{"security", "url", "preferredTransport", "additionalInterfaces", "protocolVersion",
		"supportsAuthenticatedExtendedCard", "capabilities/stateTransitionHistory", "skills/*/security"}
)

// hybrid reports whether the card carries members of another release
// (a2a.hybrid), which a round trip writes in the card's own release.
func hybrid(res *fastvalidate.Result) bool {
	return slices.ContainsFunc(res.Findings(), func(f fastvalidate.Finding) bool { return f.Rule() == "a2a.hybrid" })
}

// checkRoundTrip returns what a valid 0.3 card (not a hybrid) lost on its way to 1.0
// and back, or "".
func checkRoundTrip(up, down *Migrator, card []byte, release map[string]*fastvalidate.Validator) (checked bool, problem string) {
	res := fastvalidate.MustNew("a2a").Validate(card)
	if !release[V03].Validate(card).Valid() || res.Profile != V03 || hybrid(res) || holdsMembersOf(card, only10) {
		return false, ""
	}
	var r1, r2 Record
	v10 := up.Migrate(nil, card, &r1)
	if r1.Status == StatusRefused {
		return false, ""
	}
	back := down.Migrate(nil, v10, &r2)
	if r2.Status == StatusRefused || r2.Status == StatusFailed {
		return true, fmt.Sprintf("the 1.0 card does not come back (%s): %+v\n%s", r2.Status, r2.Changes, v10)
	}
	before, after := leaves(card), leaves(back)
	var lost []string
	for ptr, v := range before {
		if after[ptr] == v || roundTripMayChange(ptr, v, &r1, &r2) {
			continue
		}
		lost = append(lost, ptr+"="+v+" became "+after[ptr])
	}
	slices.Sort(lost)
	if len(lost) > 0 {
		return true, fmt.Sprintf("lost %s\n1.0:\n%s\nback:\n%s", strings.Join(lost, ", "), v10, back)
	}
	return true, ""
}

// checkRoundTrip10 returns what a valid 1.0 card (not a hybrid, whose
// 0.x members stand for its 1.0 ones) lost on its way to 0.3 and back,
// or "".
func checkRoundTrip10(up, down *Migrator, card []byte) (checked bool, problem string) {
	res := fastvalidate.MustNew("a2a").Validate(card)
	if !res.Valid() || res.Profile != V10 || hybrid(res) || holdsMembersOf(card, only0x) {
		return false, ""
	}
	var r1, r2 Record
	v03 := down.Migrate(nil, card, &r1)
	if r1.Status != StatusMigrated {
		return false, ""
	}
	back := up.Migrate(nil, v03, &r2)
	if r2.Status == StatusRefused || r2.Status == StatusFailed {
		return true, fmt.Sprintf("the 0.3 card does not come back (%s): %+v\n%s", r2.Status, r2.Changes, v03)
	}
	before, after := leaves(card), leaves(back)
	var lost []string
	for ptr, v := range before {
		if after[ptr] == v || sameIn10(ptr, v, after) || roundTripMayChange(ptr, v, &r1, &r2) {
			continue
		}
		lost = append(lost, ptr+"="+v+" became "+after[ptr])
	}
	slices.Sort(lost)
	if len(lost) > 0 {
		return true, fmt.Sprintf("lost %s\n0.3:\n%s\nback:\n%s", strings.Join(lost, ", "), v03, back)
	}
	return true, ""
}

// sameIn10 reports whether after says what v at ptr said in 1.0's
// ProtoJSON, where a message's empty repeated or map field may be left
// out or null: a requirement's scheme {} and {"list": []}, a requirement
// {} and {"schemes": {}}; and whether an interface's protocolVersion
// "0.3.0" came back as the major.minor "0.3" docs/cli.md says interfaces
// moved to 1.0 keep.
func sameIn10(ptr, v string, after map[string]string) bool {
	switch {
	case (v == "{}" || v == "null") && strings.Contains(ptr, "/schemes/"):
		return after[ptr+"/list"] == "[]" || after[ptr] == "{}"
	case (v == "{}" || v == "null") && strings.Contains(ptr, "securityRequirements/"):
		return after[ptr+"/schemes"] == "{}" || after[ptr] == "{}"
	case strings.HasSuffix(ptr, "/protocolVersion") && strings.Count(v, ".") == 2:
		return after[ptr] == v[:strings.LastIndexByte(v, '.')]+`"`
	}
	return false
}

// roundTripMayChange reports whether docs/cli.md lets a round trip change
// the value v at ptr: protocolVersion is written as 0.3.0,
// additionalInterfaces lists every interface, a preferredTransport left
// out (or null, which 0.x reads as absent) comes back as JSONRPC, and
// what a record says was dropped (stateTransitionHistory, flows beyond
// the first) is gone.
func roundTripMayChange(ptr, v string, recs ...*Record) bool {
	if ptr == "/protocolVersion" || ptr == "/additionalInterfaces" || strings.HasPrefix(ptr, "/additionalInterfaces/") ||
		ptr == "/preferredTransport" && v == "null" {
		return true
	}
	for _, r := range recs {
		for _, c := range r.Changes {
			if c.Action == "dropped" && c.From != "" && (ptr == c.From || strings.HasPrefix(ptr, c.From+"/")) {
				return true
			}
		}
	}
	return false
}

// leaves maps the JSON Pointer of each scalar, empty object and empty
// array of a card to its JSON text.
func leaves(card []byte) map[string]string {
	dec := json.NewDecoder(bytes.NewReader(card))
	dec.UseNumber()
	var root any
	if dec.Decode(&root) != nil {
		return nil
	}
	out := map[string]string{}
	var walk func(v any, ptr string)
	walk = func(v any, ptr string) {
		switch n := v.(type) {
		case map[string]any:
			if len(n) == 0 {
				out[ptr] = "{}"
			}
			for k, e := range n {
				walk(e, ptr+"/"+strings.ReplaceAll(strings.ReplaceAll(k, "~", "~0"), "/", "~1"))
			}
		case []any:
			if len(n) == 0 {
				out[ptr] = "[]"
			}
			for i, e := range n {
				walk(e, ptr+"/"+strconv.Itoa(i))
			}
		default:
			b, _ := json.Marshal(n)
			out[ptr] = string(b)
		}
	}
	walk(root, "")
	return out
}

type diffCard struct {
	name string
	card []byte
	// absent is the card without the member an edit set to null, which
	// the 0.x releases read as absent (a2a.null): the two must migrate
	// alike.
	absent []byte
}

// diffCards returns the cards migrated as they are.
func diffCards(t *testing.T) []diffCard {
	t.Helper()
	var out []diffCard
	for _, dialect := range corpus.Dialects() {
		if !strings.HasPrefix(dialect, "a2a") {
			continue
		}
		g, err := corpus.New(corpus.Options{Seed: 47, Dialects: []string{dialect}, DefectRate: 0.5})
		if err != nil {
			t.Fatal(err)
		}
		for i := range 150 {
			out = append(out, diffCard{name: fmt.Sprintf("generated %s card %d", dialect, i+1), card: g.Next().JSON})
		}
	}
	for i, c := range sampleCards(t) {
		out = append(out, diffCard{name: fmt.Sprintf("corpus/sample.ndjson.zst card %d", i+1), card: c})
	}
	tables, _ := filepath.Glob("../../fastvalidate/testdata/content/*.tsv")
	if len(tables) == 0 {
		t.Fatal("no tables at fastvalidate/testdata/content")
	}
	for _, f := range tables {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for i, line := range strings.Split(string(b), "\n") {
			if what, card, ok := strings.Cut(line, "\t"); ok && !strings.HasPrefix(line, "#") {
				out = append(out, diffCard{name: fmt.Sprintf("%s:%d %s", f, i+1, what), card: []byte(card)})
			}
		}
	}
	for _, glob := range []string{"testdata/cards/*.json", "../../fastvalidate/testdata/golden/*.json", "../../../shared/corpus/real/*.json"} {
		files, _ := filepath.Glob(glob)
		if len(files) == 0 && strings.Contains(glob, "shared") {
			t.Log("no real cards at ../shared/corpus/real: they are not migrated")
		}
		for _, f := range files {
			b, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, diffCard{name: f, card: b})
		}
	}
	return out
}

// diffEdits returns the cards one edit away from c: each member and
// element deleted and set to each of diffEditValues.
func diffEdits(t *testing.T, c diffCard) []diffCard {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(c.card))
	dec.UseNumber()
	var root any
	if err := dec.Decode(&root); err != nil {
		t.Fatal(err)
	}
	values := make([]any, len(diffEditValues))
	for i, v := range diffEditValues {
		if err := json.Unmarshal([]byte(v), &values[i]); err != nil {
			t.Fatal(err)
		}
	}
	var out []diffCard
	var walk func(node any, path []string)
	walk = func(node any, path []string) {
		if len(path) > 0 {
			ptr := "/" + strings.Join(path, "/")
			out = append(out, diffCard{name: c.name + ": del " + ptr, card: encode(t, jsonedit.Edited(root, path, nil, true))})
			absent := out[len(out)-1].card
			for i, v := range values {
				e := diffCard{name: c.name + ": set " + ptr + "=" + diffEditValues[i], card: encode(t, jsonedit.Edited(root, path, v, false))}
				if v == nil {
					e.absent = absent
				}
				out = append(out, e)
			}
		}
		switch n := node.(type) {
		case map[string]any:
			for k, e := range n {
				walk(e, append(slices.Clip(path), k))
			}
		case []any:
			for i, e := range n {
				walk(e, append(slices.Clip(path), strconv.Itoa(i)))
			}
		}
	}
	walk(root, nil)
	for _, m := range strayMembers {
		path := strings.Split(m.name, "/")
		if parent, ok := valueAt(root, path[:len(path)-1]).(map[string]any); !ok || parent[path[len(path)-1]] != nil {
			continue
		}
		var v any
		if err := json.Unmarshal([]byte(m.value), &v); err != nil {
			t.Fatal(err)
		}
		out = append(out, diffCard{name: c.name + ": add /" + m.name + "=" + m.value, card: encode(t, jsonedit.Edited(root, path, v, false))})
	}
	return out
}

// valueAt returns the value at path in root, or nil.
func valueAt(root any, path []string) any {
	for _, p := range path {
		switch n := root.(type) {
		case map[string]any:
			root = n[p]
		case []any:
			i, err := strconv.Atoi(p)
			if err != nil || i < 0 || i >= len(n) {
				return nil
			}
			root = n[i]
		default:
			return nil
		}
	}
	return root
}

// strayMembers are members of the other releases a card is given (at
// their paths, when the object is there), one at a time: a 1.0 card with
// 0.x members (a hybrid), a 0.x card with 1.0 ones.
var strayMembers = []struct{ name, value string }{
	{"protocolVersion", `"0.3.0"`}, {"protocolVersion", `"1.0"`}, {"preferredTransport", `"GRPC"`},
	{"additionalInterfaces", `[{"url": "https://other.example.com/a2a", "transport": "JSONRPC"}]`},
	{"url", `"https://other.example.com/a2a"`}, {"security", `[{}]`}, {"supportsAuthenticatedExtendedCard", `true`},
	{"supportedInterfaces", `[{"url": "https://other.example.com/a2a", "protocolBinding": "JSONRPC", "protocolVersion": "1.0"}]`},
	{"securityRequirements", `[]`}, {"signatures", `[]`},
	{"capabilities/extendedAgentCard", `true`}, {"capabilities/stateTransitionHistory", `true`},
	{"skills/0/security", `[{}]`}, {"skills/0/securityRequirements", `[{"schemes": {}}]`},
}

func encode(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// A 0.x card whose preferredTransport is null names no transport (a2a.null
// reads an optional member set to null as absent): its first interface
// takes the default JSONRPC, as when the member is left out, rather than
// a null binding 1.0 rejects.
func TestNullPreferredTransport(t *testing.T) {
	card := []byte(`{"protocolVersion": "0.3.0", "name": "Geo", "description": "Maps.", "url": "https://geo.example.com/a2a",
 "preferredTransport": null, "version": "1.0.0", "capabilities": {}, "defaultInputModes": ["text/plain"],
 "defaultOutputModes": ["text/plain"], "skills": [{"id": "route", "name": "Route", "description": "Routes.", "tags": ["maps"]}]}`)
	var rec Record
	out := mustNew(t, Options{To: V10}).Migrate(nil, card, &rec)
	if !rec.ValidBefore || !rec.ValidAfter || rec.Status != StatusMigrated {
		t.Fatalf("want a valid 1.0 card, got %s (valid before %v, after %v): %+v\n%s", rec.Status, rec.ValidBefore, rec.ValidAfter, rec.Errors, out)
	}
	var v10 struct {
		SupportedInterfaces []struct {
			ProtocolBinding *string `json:"protocolBinding"`
		} `json:"supportedInterfaces"`
	}
	if err := json.Unmarshal(out, &v10); err != nil || len(v10.SupportedInterfaces) != 1 || v10.SupportedInterfaces[0].ProtocolBinding == nil || *v10.SupportedInterfaces[0].ProtocolBinding != "JSONRPC" {
		t.Errorf("want one interface bound to JSONRPC (%v):\n%s", err, out)
	}
	if !slices.ContainsFunc(rec.Changes, func(c Change) bool { return c.Action == "added" && c.To == "/supportedInterfaces/0/protocolBinding" }) {
		t.Errorf("the record does not say the default binding was added: %+v", rec.Changes)
	}
}

// A card that is no JSON text one can read one way (a member named twice,
// nesting beyond the limit, a string that is not UTF-8, a number beyond
// a float64) is refused whichever release --from names, its record
// naming the rule, the place and the line and column: a migration would
// pick one of the duplicate members, where readers keep the last, and
// write a valid card from an ambiguous one.
func TestUnreadableJSONRefused(t *testing.T) {
	card := read(t, "geo-0.3-pretty.json")
	dup := bytes.Replace(card, []byte(`"url":`), []byte("\"url\": \"https://other.example/a2a\",\n  \"url\":"), 1)
	deep := []byte(`{"protocolVersion": "0.3.0", "url": "https://a.example", "x": ` + strings.Repeat("[", 600) + strings.Repeat("]", 600) + `}`)
	for _, tc := range []struct {
		name string
		card []byte
		want string
	}{
		{"duplicate member", dup, "json.duplicate-key at /url (line 6, column 3)"},
		{"deep nesting", deep, "json.depth at /x/0/0/0/0/0/0/0/0/0/0/0/0"},
		{"not UTF-8", bytes.Replace(card, []byte("Plans routes."), []byte("Plans \xff routes."), 1), "json.utf8 at /description (line 4, column 25)"},
		{"number beyond a float64", bytes.Replace(card, []byte(`"streaming": true`), []byte(`"streaming": 1e400`), 1), "json.number-range at /capabilities/streaming"},
	} {
		for _, from := range []string{"auto", V03} {
			var rec Record
			out := mustNew(t, Options{To: V10, From: from}).Migrate(nil, tc.card, &rec)
			if rec.Status != StatusRefused || !bytes.Equal(out, tc.card) || len(rec.Changes) != 1 || rec.Changes[0].Rule != "migrate.unsupported" {
				t.Errorf("%s, --from %s: want refused as it is under migrate.unsupported, got %s: %+v", tc.name, from, rec.Status, rec.Changes)
				continue
			}
			if msg := rec.Changes[0].Message; !strings.Contains(msg, tc.want) || !strings.Contains(msg, "(line ") {
				t.Errorf("%s, --from %s: the record does not say %q and a line: %.300s", tc.name, from, tc.want, rec.Changes[0].Message)
			}
		}
	}
}

// A 1.0 card's only interface may carry members neither release knows
// (a real card prices its endpoint there); 0.3's url and
// preferredTransport cannot hold them, so they must go to
// additionalInterfaces, not vanish unreported, and come back on the way
// up again.
func TestSingleInterfaceKeepsItsMembers(t *testing.T) {
	card := []byte(`{
  "name": "Myco",
  "description": "Fungi.",
  "supportedInterfaces": [
    {"url": "https://api.example.com/a2a", "protocolBinding": "HTTP+JSON", "protocolVersion": "1.0", "pricing": {"amount": "0.005"}}
  ],
  "version": "1.0.0",
  "capabilities": {},
  "defaultInputModes": ["text/plain"],
  "defaultOutputModes": ["text/plain"],
  "skills": [{"id": "id", "name": "Identify", "description": "Identifies.", "tags": ["fungi"]}]
}
`)
	var r1, r2 Record
	v03 := mustNew(t, Options{To: V03}).Migrate(nil, card, &r1)
	if r1.Status != StatusMigrated || !r1.ValidAfter {
		t.Fatalf("to 0.3: %s %+v\n%s", r1.Status, r1.Errors, v03)
	}
	if got := leaves(v03)["/additionalInterfaces/0/pricing/amount"]; got != `"0.005"` {
		t.Errorf("the interface's pricing is not in additionalInterfaces:\n%s", v03)
	}
	back := mustNew(t, Options{To: V10}).Migrate(nil, v03, &r2)
	if got := leaves(back)["/supportedInterfaces/0/pricing/amount"]; got != `"0.005"` || r2.Status != StatusMigrated || !r2.ValidAfter {
		t.Errorf("back to 1.0 (%s), the interface lost its pricing:\n%s", r2.Status, back)
	}
}

// A 1.0 card may still carry 0.x members beside supportedInterfaces
// (a hybrid, a2a.hybrid) without url: its protocolVersion,
// preferredTransport or additionalInterfaces. On the way to 0.3 they
// take the values the interfaces give, in place, rather than standing
// beside a second member of the same name (json.duplicate-key).
func TestStrayLegacyMembersNotDuplicated(t *testing.T) {
	card := []byte(`{
  "name": "Myco",
  "description": "Fungi.",
  "protocolVersion": "1.0",
  "preferredTransport": "GRPC",
  "additionalInterfaces": [],
  "supportedInterfaces": [
    {"url": "https://api.example.com/a2a", "protocolBinding": "HTTP+JSON", "protocolVersion": "0.3"},
    {"url": "https://api.example.com/rpc", "protocolBinding": "JSONRPC", "protocolVersion": "0.3"}
  ],
  "version": "1.0.0",
  "capabilities": {},
  "defaultInputModes": ["text/plain"],
  "defaultOutputModes": ["text/plain"],
  "skills": [{"id": "id", "name": "Identify", "description": "Identifies.", "tags": ["fungi"]}]
}
`)
	if r := fastvalidate.MustNew("a2a").Validate(card); !r.Valid() || r.Profile != V10 {
		t.Fatalf("the test card is not a valid 1.0 card: %s %v", r.Profile, r.Findings())
	}
	var rec Record
	out := mustNew(t, Options{To: V03}).Migrate(nil, card, &rec)
	if rec.Status != StatusMigrated || !rec.ValidAfter {
		t.Fatalf("to 0.3: %s %+v\n%s", rec.Status, rec.Errors, out)
	}
	l := leaves(out)
	if l["/protocolVersion"] != `"0.3.0"` || l["/preferredTransport"] != `"HTTP+JSON"` || l["/additionalInterfaces/1/url"] != `"https://api.example.com/rpc"` {
		t.Errorf("the 0.x members do not say what the interfaces say:\n%s", out)
	}
	for _, name := range []string{`"protocolVersion"`, `"preferredTransport"`, `"additionalInterfaces"`} {
		if n := bytes.Count(out, []byte(name)); n != 1 {
			t.Errorf("%s stands %d times:\n%s", name, n, out)
		}
	}
}
