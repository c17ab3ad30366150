package ruledoc

import (
	"bytes"
	"flag"
	"github.com/cardscan/cardscan/rule"
	"os"
	"strings"
	"testing"
)

var updateRules = flag.Bool("update-rules", false, "rewrite the rule sections of ../../docs/rules.md")

// TestRulesDocSections keeps the per-rule sections of docs/rules.md what
// Markdown renders from the rule table, so that the reference, explain and
// SARIF help say the same.
func TestRulesDocSections(t *testing.T) {
	const path = "../../docs/rules.md"
	doc, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	const begin, end = "<!-- rule-docs:begin -->\n", "<!-- rule-docs:end -->"
	i, j := bytes.Index(doc, []byte(begin)), bytes.Index(doc, []byte(end))
	if i < 0 || j < i {
		t.Fatalf("%s has no %q ... %q block", path, begin, end)
	}
	var want strings.Builder
	for _, r := range rule.All() {
		want.WriteString("\n" + Markdown(r) + "\n")
	}
	if got := string(doc[i+len(begin) : j]); got == want.String() {
		return
	}
	if *updateRules {
		out := append(append(append([]byte{}, doc[:i+len(begin)]...), want.String()...), doc[j:]...)
		if err := os.WriteFile(path, out, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	t.Errorf("%s rule sections differ from the rule table; run: go test ./internal/ruledoc -run TestRulesDocSections -update-rules", path)
}

// Every rule has a section heading of its own, whose anchor no other
// rule's shares, so that each helpUri lands on its rule.
func TestAnchorsUnique(t *testing.T) {
	seen := map[string]string{}
	for _, r := range rule.All() {
		a := Anchor(r.ID)
		if a == "" || seen[a] != "" {
			t.Errorf("%s: anchor %q (also %s)", r.ID, a, seen[a])
		}
		seen[a] = r.ID
		if !strings.HasSuffix(HelpURI(r.ID), "/docs/rules.md#"+a) {
			t.Errorf("%s: help URI %s", r.ID, HelpURI(r.ID))
		}
	}
	for id, want := range map[string]string{"agent_id.format": "agent_idformat", "schema.additionalProperties": "schemaadditionalproperties", "endpoint.url-scheme": "endpointurl-scheme"} {
		if got := Anchor(id); got != want {
			t.Errorf("Anchor(%q) = %q, want %q", id, got, want)
		}
	}
}

// The text explain prints carries every part of the documentation.
func TestText(t *testing.T) {
	for _, r := range rule.All() {
		d, _ := r.Code.Doc()
		text := Text(r)
		for _, part := range []string{r.ID, r.Severity.String(), r.Profiles.String(), r.Description, d.Spec, d.Source, d.Basis, d.Fail, d.Pass, d.Example, d.Fix, HelpURI(r.ID)} {
			if !strings.Contains(text, part) {
				t.Errorf("%s: explain text lacks %q", r.ID, part)
			}
		}
	}
}
