package corpus_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"github.com/cardscan/cardscan/rule"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/cardscan/cardscan/corpus"
	"github.com/cardscan/cardscan/fastvalidate"
)

func allDialects() corpus.Options {
	return corpus.Options{Dialects: corpus.Dialects(), DefectRate: 0.3}
}

func TestSameSeedSameCards(t *testing.T) {
	opts := allDialects()
	opts.Seed = 42
	a, b := generate(t, opts, 500), generate(t, opts, 500)
	for i := range a {
		if !bytes.Equal(a[i].JSON, b[i].JSON) || a[i].Defect != b[i].Defect || a[i].Dialect != b[i].Dialect {
			t.Fatalf("card %d differs between two runs with seed 42:\n%s\n%s", i, a[i].JSON, b[i].JSON)
		}
	}
}

func TestDifferentSeedDifferentCards(t *testing.T) {
	opts := allDialects()
	opts.Seed = 1
	a := generate(t, opts, 50)
	opts.Seed = 2
	b := generate(t, opts, 50)
	same := 0
	for i := range a {
		if bytes.Equal(a[i].JSON, b[i].JSON) {
			same++
		}
	}
	if same > 0 {
		t.Errorf("%d of 50 cards are identical under seeds 1 and 2", same)
	}
}

func TestEveryDefectKindReachable(t *testing.T) {
	for _, dialect := range corpus.Dialects() {
		kinds := corpus.DefectKinds(dialect)
		// Kinds are dealt in rounds: len(kinds) defective cards hold each once.
		cards := generate(t, corpus.Options{Seed: 3, Dialects: []string{dialect}, DefectRate: 1}, len(kinds))
		seen := map[string]bool{}
		for _, c := range cards {
			seen[c.Defect] = true
		}
		for _, k := range kinds {
			if !seen[k] {
				t.Errorf("%s: defect kind %s missing from %d defective cards", dialect, k, len(kinds))
			}
		}
	}
}

func TestDefectKindsNamedAfterRules(t *testing.T) {
	if n := len(corpus.DefectKinds("agentcard")); n < 40 {
		t.Errorf("agentcard has %d defect kinds, want one or more per rule (40+)", n)
	}
	if n := len(corpus.DefectKinds("agentcard-schema")); n < 13 {
		t.Errorf("agentcard-schema has %d defect kinds, want one or more per keyword", n)
	}
	for _, dialect := range corpus.Dialects() {
		kinds := corpus.DefectKinds(dialect)
		if !slices.IsSorted(kinds) {
			t.Errorf("%s: DefectKinds not sorted", dialect)
		}
		for _, k := range kinds {
			id, _, _ := strings.Cut(k, "/")
			if _, ok := rule.Lookup(id); !ok {
				t.Errorf("%s: defect kind %s names no fastvalidate rule", dialect, k)
			}
		}
	}
}

// TestRulesCovered checks that every error rule of the two card profiles
// has a defect kind, so that a rule nothing exercises is noticed.
func TestRulesCovered(t *testing.T) {
	for _, dialect := range []string{"agentcard", "agentcard-schema"} {
		covered := map[string]bool{}
		for _, k := range corpus.DefectKinds(dialect) {
			id, _, _ := strings.Cut(k, "/")
			covered[id] = true
		}
		for _, r := range rule.All() {
			applies := r.Profiles == rule.AllProfiles || slices.Contains(strings.Split(r.Profiles.String(), ","), dialect)
			if !applies || r.Severity != fastvalidate.SeverityError || r.ID == "input.too-large" {
				continue
			}
			if dialect == "agentcard-schema" && strings.HasPrefix(r.ID, "json.") || r.ID == "card.type" && dialect != "agentcard" {
				continue // the strict-JSON kinds are registered for agentcard only
			}
			if !covered[r.ID] {
				t.Errorf("%s: no defect kind exercises rule %s", dialect, r.ID)
			}
		}
	}
}

// TestCardShape checks what the cards are before any validator sees them:
// one line each, and, when valid or broken above the JSON layer, RFC 8259
// JSON in valid UTF-8 with the dialect's telltale members.
func TestCardShape(t *testing.T) {
	opts := allDialects()
	opts.Seed = 5
	cards := generate(t, opts, 1500)
	for _, c := range cards {
		if bytes.ContainsAny(c.JSON, "\n\r") {
			t.Fatalf("%s card (defect %q) spans lines: %q", c.Dialect, c.Defect, c.JSON)
		}
		if len(c.JSON) == 0 {
			t.Fatalf("%s card (defect %q) is empty", c.Dialect, c.Defect)
		}
		if (c.Defect == "") != (c.Rule == "") || c.Defect != "" && c.Variant != "" {
			t.Fatalf("inconsistent labels: %+v", c)
		}
		jsonBroken := strings.HasPrefix(c.Rule, "json.syntax") || strings.HasPrefix(c.Rule, "json.utf8")
		if jsonBroken {
			continue
		}
		if !utf8.Valid(c.JSON) {
			t.Errorf("%s card (defect %q) is not UTF-8: %q", c.Dialect, c.Defect, c.JSON)
		}
		if !json.Valid(c.JSON) {
			t.Errorf("%s card (defect %q) is not JSON: %q", c.Dialect, c.Defect, c.JSON)
		}
		if c.Defect != "" {
			continue
		}
		doc := c.JSON
		if c.Variant == "embedded-string" {
			var inner string
			if err := json.Unmarshal(doc, &inner); err != nil {
				t.Fatal(err)
			}
			doc = []byte(inner)
		}
		var m map[string]any
		if err := json.Unmarshal(doc, &m); err != nil {
			t.Fatalf("%s valid card is not an object: %v", c.Dialect, err)
		}
		telltale := map[string]string{
			"agentcard": "capabilities", "agentcard-schema": "capabilities",
			"a2a/0.1": "authentication", "a2a/0.2": "defaultInputModes", "a2a/0.3": "protocolVersion",
			"a2a/1.0": "supportedInterfaces", "ma2d": "invocation",
		}[c.Dialect]
		if _, ok := m[telltale]; !ok && c.Variant != "escaped-key" {
			t.Errorf("valid %s card lacks %s: %s", c.Dialect, telltale, doc)
		}
	}
}

func TestAgentCardSize(t *testing.T) {
	cards := generate(t, corpus.Options{Seed: 9}, 2000)
	total := 0
	for _, c := range cards {
		total += len(c.JSON)
	}
	if avg := total / len(cards); avg < 1400 || avg > 2000 {
		t.Errorf("agentcard cards average %d bytes, want about 1.7 KB", avg)
	}
}

// TestAgentIDsAreULIDs decodes every valid card's agent_id as a ULID and
// checks its time lies in the generator's fixed window (2024-2025).
func TestAgentIDsAreULIDs(t *testing.T) {
	const from, to = 1704067200000, 1767225600000 // 2024-01-01, 2026-01-01 UTC
	for _, c := range generate(t, corpus.Options{Seed: 4}, 500) {
		if c.Variant != "" {
			continue
		}
		var card struct {
			AgentID string `json:"agent_id"`
		}
		if err := json.Unmarshal(c.JSON, &card); err != nil {
			t.Fatal(err)
		}
		ms, ok := fastvalidate.ULIDTime([]byte(card.AgentID))
		if !fastvalidate.IsAgentID([]byte(card.AgentID)) || !ok || ms < from || ms >= to {
			t.Errorf("agent_id %s: not a ULID of 2024-2025 (ms %d, ok %v)", card.AgentID, ms, ok)
		}
	}
}

func TestVariantsReachable(t *testing.T) {
	seen := map[string]map[string]bool{}
	for _, c := range generate(t, corpus.Options{Seed: 6, Dialects: []string{"agentcard", "agentcard-schema"}}, 4000) {
		if seen[c.Dialect] == nil {
			seen[c.Dialect] = map[string]bool{}
		}
		seen[c.Dialect][c.Variant] = true
		if c.Dialect == "agentcard" {
			for _, p := range []string{"stdio", "mcp", "grpc", "http"} {
				if bytes.Contains(c.JSON, []byte(`"protocol":"`+p+`"`)) {
					seen[c.Dialect]["protocol "+p] = true
				}
			}
		}
	}
	want := map[string][]string{
		"agentcard":        {"", "embedded-string", "escapes", "escaped-key", "name-128-code-points", "boundary-values", "unknown-fields", "protocol stdio", "protocol mcp", "protocol grpc", "protocol http"},
		"agentcard-schema": {"", "escapes", "escaped-key", "name-128-code-points", "null-values", "boundary-values"},
	}
	for dialect, variants := range want {
		for _, v := range variants {
			if !seen[dialect][v] {
				t.Errorf("%s: no card of variant %q in 4000", dialect, v)
			}
		}
	}
}

func TestOptionErrors(t *testing.T) {
	for _, opts := range []corpus.Options{
		{Dialects: []string{"agentcard", "nope"}},
		{Defects: []string{"capability.id/nope"}},
		{Dialects: []string{"a2a/1.0"}, Defects: []string{"capability.id/uppercase"}},
	} {
		if _, err := corpus.New(opts); !errors.Is(err, corpus.ErrUnknown) {
			t.Errorf("New(%+v) = %v, want ErrUnknown", opts, err)
		}
	}
	for _, rate := range []float64{-0.1, 1.5} {
		if _, err := corpus.New(corpus.Options{DefectRate: rate}); err == nil {
			t.Errorf("New accepted defect rate %v", rate)
		}
	}
}

func TestDefectRate(t *testing.T) {
	cards := generate(t, corpus.Options{Seed: 8, DefectRate: 0.05}, 4000)
	bad := 0
	for _, c := range cards {
		if c.Defect != "" {
			bad++
		}
	}
	if bad < 120 || bad > 280 {
		t.Errorf("%d of 4000 cards defective at rate 0.05, want about 200", bad)
	}
	// At rate 1 every card carries a defect, and kinds are dealt in
	// rounds, so one round's worth of cards shows every kind once.
	for _, dialect := range corpus.Dialects() {
		kinds := corpus.DefectKinds(dialect)
		if len(kinds) == 0 {
			t.Errorf("%s has no defect kinds", dialect)
			continue
		}
		seen := map[string]bool{}
		for _, c := range generate(t, corpus.Options{Seed: 8, Dialects: []string{dialect}, DefectRate: 1}, len(kinds)) {
			if c.Defect == "" {
				t.Fatalf("%s card without a defect at rate 1", dialect)
			}
			seen[c.Defect] = true
		}
		if len(seen) != len(kinds) {
			t.Errorf("%s: one round of %d defective cards showed %d kinds, want each of %d once", dialect, len(kinds), len(seen), len(kinds))
		}
	}
}

func BenchmarkGenerator_Next(b *testing.B) {
	for _, dialect := range corpus.Dialects() {
		b.Run(strings.ReplaceAll(dialect, "/", "_"), func(b *testing.B) {
			g, err := corpus.New(corpus.Options{Seed: 1, Dialects: []string{dialect}})
			if err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			n := 0
			for b.Loop() {
				n += len(g.Next().JSON)
			}
			b.SetBytes(int64(n / b.N))
		})
	}
}
