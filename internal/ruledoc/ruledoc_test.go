package ruledoc

import (
	"strings"
	"testing"

	"github.com/cardscan/cardscan/rule"
)

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
