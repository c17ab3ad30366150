package fastvalidate_test

import (
	"flag"
	"os"
	"strings"
	"testing"

	"github.com/cardscan/cardscan/fastvalidate"
	"github.com/cardscan/cardscan/internal/ruledoc"
	"github.com/cardscan/cardscan/rule"
)

var updateRules = flag.Bool("update-rules", false, "rewrite the generated blocks of ../docs/rules.md")

// docs/rules.md is the rule reference users read; its three generated
// blocks (the rule table, the draft's and the schema's disagreements, and
// a section per rule, which explain and SARIF help render alike) must say
// exactly what the registry says, or they drift apart silently. This test
// is the one writer of the file: -update-rules rewrites every stale block
// in one go.
func TestRulesDoc(t *testing.T) {
	const path = "../docs/rules.md"
	doc, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var sections strings.Builder
	for _, r := range rule.All() {
		sections.WriteString("\n" + ruledoc.Markdown(r) + "\n")
	}
	out := string(doc)
	var stale []string
	for _, b := range []struct{ name, begin, end, want string }{
		{"rule table", "<!-- rules:begin -->\n", "<!-- rules:end -->", fastvalidate.RulesTable()},
		{"disagreement table", "<!-- disagreements:begin -->\n", "<!-- disagreements:end -->", fastvalidate.DisagreementsTable()},
		{"rule sections", "<!-- rule-docs:begin -->\n", "<!-- rule-docs:end -->", sections.String()},
	} {
		i, j := strings.Index(out, b.begin), strings.Index(out, b.end)
		if i < 0 || j < i {
			t.Fatalf("%s has no %q ... %q block", path, b.begin, b.end)
		}
		if out[i+len(b.begin):j] != b.want {
			stale = append(stale, b.name)
			out = out[:i+len(b.begin)] + b.want + out[j:]
		}
	}
	if len(stale) == 0 {
		return
	}
	if *updateRules {
		if err := os.WriteFile(path, []byte(out), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	t.Errorf("%s: the %s differ from the registry; run: go test ./fastvalidate/ -run TestRulesDoc -update-rules",
		path, strings.Join(stale, " and the "))
}
