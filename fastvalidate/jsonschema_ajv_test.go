package fastvalidate

import (
	"bytes"
	"encoding/json"
	"io"
	"math"
	"math/big"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/cardscan/cardscan/corpus"
	"github.com/cardscan/cardscan/internal/jsonedit"
	"github.com/klauspost/compress/zstd"
)

// TestJSONSchema_AjvAgrees holds every schema `cardscan schema` writes to
// cardscan itself, card by card, as an editor running ajv 8 (with
// ajv-formats, which asserts every "format") would judge them: the
// generated cards of each dialect (half with a defect), the test cards
// of testdata/golden, corpus/sample.ndjson.zst, the real cards of
// ../shared/corpus/real (when there), the cards of the tables of
// testdata/content, and every card one edit away from a
// valid card of each profile. A card cardscan accepts and the schema
// rejects is a defect of the schema; a card the schema accepts and
// cardscan rejects is one only when a rule of cardscan's errors is one
// the schema cites (docs/schema.md lists those it cannot).
func TestJSONSchema_AjvAgrees(t *testing.T) {
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node is not installed: the schemas are not judged by ajv")
	}
	if _, err := os.Stat("testdata/ajv/node_modules/ajv"); err != nil {
		t.Skip("testdata/ajv/node_modules is missing (run make node-deps): the schemas are not judged by ajv")
	}
	shared := ajvSharedCards(t)
	dir := t.TempDir()
	judged, rejected, explained, stricter, looser := 0, 0, 0, 0, 0
	for _, p := range SchemaProfiles() {
		b, err := JSONSchema(p)
		if err != nil {
			t.Fatal(err)
		}
		schema := filepath.Join(dir, strings.ReplaceAll(p, "/", "-")+".json")
		if err := os.WriteFile(schema, b, 0o644); err != nil {
			t.Fatal(err)
		}
		v := newTestValidator(t, p)
		var releases []*Validator
		if p == "a2a" {
			for _, r := range []string{"a2a/0.1", "a2a/0.2", "a2a/0.3", "a2a/1.0"} {
				releases = append(releases, newTestValidator(t, r))
			}
		}
		cards := append(slices.Clip(shared), profileMutants(t, v, p, shared)...)
		verdicts := ajvVerdicts(t, node, schema, "", "2020", cards)
		cited := citedRules(t, p)
		for i, m := range cards {
			judged++
			if verdicts[i] != "" {
				rejected++
			}
			r := v.Validate(m.card)
			switch {
			case r.Valid() && verdicts[i] != "":
				stricter++
				if stricter <= 20 {
					t.Errorf("%s: the schema rejects a card cardscan accepts (%s): %s\n%s", p, m.edit, verdicts[i], m.card)
				}
			case !r.Valid() && verdicts[i] == "" && slices.ContainsFunc(releases, func(v *Validator) bool { return v.Validate(m.card).Valid() }):
				// The a2a schema is any release's: it passes a card some
				// release passes, where cardscan judges the release it detects.
				explained++
			case !r.Valid() && verdicts[i] == "":
				if rules := citedErrors(r, m.card, cited, p); len(rules) > 0 {
					looser++
					if looser <= 20 {
						t.Errorf("%s: the schema accepts a card cardscan rejects under %v, rules it cites (%s)\n%s", p, rules, m.edit, m.card)
					}
				}
			}
		}
	}
	t.Logf("%d judgements by ajv, %d rejections, %d disagreements explained: %d rejections of cards cardscan accepts, %d acceptances of cards cardscan rejects by a rule the schema cites",
		judged, rejected, explained, stricter, looser)
	if rejected == 0 {
		t.Error("ajv rejected no card: the schemas were not judged")
	}
}

// undescribedA2A are the members whose shape docs/schema.md says no
// schema can give (security schemes and requirements, JWS signatures):
// the schema leaves them open, so an error inside them, even of a rule
// the schema cites elsewhere, is one it cannot show.
var undescribedA2A = []string{"/securitySchemes/", "/security/", "/securityRequirements/", "/signatures/", "/authentication/"}

// citedErrors returns, as "rule at pointer", r's errors of the rules cited
// names, outside the members the schema of profile leaves undescribed.
func citedErrors(r *Result, card []byte, cited map[string]bool, profile string) []string {
	var out []string
	for _, f := range r.Findings() {
		if f.Severity != SeverityError || !cited[f.Code.String()] {
			continue
		}
		if strings.HasPrefix(profile, "a2a") && slices.ContainsFunc(undescribedA2A, func(prefix string) bool {
			return strings.Contains(f.Path+"/", prefix)
		}) {
			continue
		}
		if profile == "agentcard" && bytes.HasPrefix(card, []byte(`"`)) {
			continue // the schema types a card given as a string, not what it holds
		}
		if roundsToBound(card, f.Path) {
			continue
		}
		out = append(out, f.Code.String()+" at "+strconv.Quote(f.Path))
	}
	return out
}

// roundsToBound reports whether the number at ptr in card is one a
// validator reading binary floating point cannot judge: its float64 is a
// whole number, as every bound of the tables is, and not its value
// (1.0000000000000000000001 reads as 1, -1e-400 as 0). cardscan compares
// the decimal text; ajv, as JavaScript, compares the rounded double.
func roundsToBound(card []byte, ptr string) bool {
	n, ok := numberAt(card, ptr)
	if !ok {
		return false
	}
	exact, ok := new(big.Rat).SetString(string(n))
	if !ok {
		return false
	}
	f, err := strconv.ParseFloat(string(n), 64)
	if err != nil || math.IsInf(f, 0) || f != math.Trunc(f) {
		return false
	}
	rounded, _ := new(big.Rat).SetString(strconv.FormatFloat(f, 'f', -1, 64))
	return exact.Cmp(rounded) != 0
}

// numberAt returns the number the JSON Pointer ptr names in card.
func numberAt(card []byte, ptr string) (json.Number, bool) {
	dec := json.NewDecoder(bytes.NewReader(card))
	dec.UseNumber()
	var node any
	if dec.Decode(&node) != nil {
		return "", false
	}
	for _, tok := range strings.Split(ptr, "/")[1:] {
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
		switch n := node.(type) {
		case map[string]any:
			node = n[tok]
		case []any:
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 || i >= len(n) {
				return "", false
			}
			node = n[i]
		default:
			return "", false
		}
	}
	n, ok := node.(json.Number)
	return n, ok
}

// ajvSharedCards returns the cards judged under every profile, compacted
// to one line each; text that is no JSON value is left out, as no schema
// can judge it.
func ajvSharedCards(t *testing.T) []mutant {
	t.Helper()
	var out []mutant
	add := func(name string, b []byte) {
		var c bytes.Buffer
		if json.Compact(&c, b) == nil && json.Valid(c.Bytes()) {
			out = append(out, mutant{edit: name, card: c.Bytes()})
		}
	}
	for _, dialect := range corpus.Dialects() {
		g, err := corpus.New(corpus.Options{Seed: 43, Dialects: []string{dialect}, DefectRate: 0.5})
		if err != nil {
			t.Fatal(err)
		}
		for range 200 {
			add("generated "+dialect, g.Next().JSON)
		}
	}
	golden, err := filepath.Glob("testdata/golden/*.json")
	if err != nil || len(golden) == 0 {
		t.Fatal("no test cards in testdata/golden")
	}
	for _, f := range golden {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		add(f, b)
	}
	for i, b := range ajvSampleCards(t) {
		add("corpus/sample.ndjson.zst card "+strconv.Itoa(i+1), b)
	}
	files, _ := filepath.Glob("../../shared/corpus/real/*.json")
	if len(files) == 0 {
		t.Log("no real cards at ../shared/corpus/real: only generated and test cards are judged")
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		add(filepath.Base(f), b)
	}
	for _, c := range tableCards(t, "testdata/content/*.tsv") {
		add(c.name, c.card)
	}
	return out
}

// namedCard is a card and where it comes from.
type namedCard struct {
	name string
	card []byte
}

// tableCards returns the cards of the tables glob names: lines of
// "what the card is<TAB>card", "#" lines being comments.
func tableCards(t *testing.T, glob string) []namedCard {
	t.Helper()
	files, err := filepath.Glob(glob)
	if err != nil || len(files) == 0 {
		t.Fatalf("no tables at %s", glob)
	}
	var out []namedCard
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for i, line := range strings.Split(string(b), "\n") {
			what, card, ok := strings.Cut(line, "\t")
			if ok && !strings.HasPrefix(line, "#") {
				out = append(out, namedCard{f + ":" + strconv.Itoa(i+1) + " " + what, []byte(card)})
			}
		}
	}
	return out
}

func ajvSampleCards(t *testing.T) [][]byte {
	t.Helper()
	f, err := os.Open("../corpus/sample.ndjson.zst")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	d, err := zstd.NewReader(f, zstd.WithDecoderMaxMemory(64<<20))
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	b, err := io.ReadAll(d)
	if err != nil {
		t.Fatal(err)
	}
	var cards [][]byte
	for line := range bytes.SplitSeq(b, []byte("\n")) {
		if len(bytes.TrimSpace(line)) > 0 {
			cards = append(cards, line)
		}
	}
	return cards
}

// ajvMutantBases is how many valid cards of a profile are edited, of the
// generated cards and of the others (test, sample and real cards) each.
const ajvMutantBases = 3

// profileMutants returns the cards one edit away from the first valid
// cards of shared under profile p, generated and not.
func profileMutants(t *testing.T, v *Validator, p string, shared []mutant) []mutant {
	t.Helper()
	var out []mutant
	generated, others := 0, 0
	for _, m := range shared {
		count := &others
		if strings.HasPrefix(m.edit, "generated ") {
			count = &generated
		}
		if *count == ajvMutantBases || !v.Validate(m.card).Valid() || bytes.HasPrefix(m.card, []byte(`"`)) {
			continue
		}
		*count++
		for _, e := range append(mutants(t, string(m.card)), stringMutants(t, m.card)...) {
			e.edit = m.edit + ": " + e.edit
			out = append(out, e)
		}
	}
	if generated+others == 0 {
		t.Fatalf("%s: no valid card to edit", p)
	}
	return out
}

// stringValues are what each string of a card is set to besides
// mutationValues: lengths counted in code points beyond the Basic
// Multilingual Plane (two UTF-16 units each, one code point for both
// cardscan and ajv) at the tables' bounds, and escapes.
var stringValues = []string{
	strings.Repeat("\U0001F600", 64), strings.Repeat("\U0001F600", 65),
	strings.Repeat("\U0001F600", 128), strings.Repeat("\U0001F600", 129),
	strings.Repeat("\U0001F600", 512), strings.Repeat("\U0001F600", 513),
	"a\nb", "\u00e9", "\x00", "e\u0301", " x", "x ", "\u200b",
	// URIs whose hier-part is an empty path, which RFC 3986 section 3
	// allows and ajv-formats' "uri" does not, and near misses.
	"a:?q", "a:#f", "A+.-:?/?:@!$&'()*+,;=%41#/?", "a:?%zz", "a:?q r", "a:#f#g", "1a:", ":",
}

// stringMutants returns the cards with one string of card set to each of
// stringValues.
func stringMutants(t *testing.T, card []byte) []mutant {
	t.Helper()
	var root any
	dec := json.NewDecoder(bytes.NewReader(card))
	dec.UseNumber()
	if err := dec.Decode(&root); err != nil {
		t.Fatal(err)
	}
	var out []mutant
	var walk func(node any, path []string)
	walk = func(node any, path []string) {
		switch n := node.(type) {
		case string:
			for _, v := range stringValues {
				out = append(out, mutant{edit: "set " + pointerOf(path) + "=" + strconv.QuoteToASCII(v), ptr: pointerOf(path),
					card: marshal(t, jsonedit.Edited(root, path, v, false))})
			}
		case map[string]any:
			for _, k := range sortedKeys(n) {
				walk(n[k], append(slices.Clip(path), k))
			}
		case []any:
			for i, e := range n {
				walk(e, append(slices.Clip(path), strconv.Itoa(i)))
			}
		}
	}
	walk(root, nil)
	return out
}
